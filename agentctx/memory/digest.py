"""The SessionStart digest: composed by consolidation, stored as a file, read by the hook in one open()."""

from ..base import jsonfast, paths
from ..base.roots import git_root, roots_file, stamp
from ..base.tokens import SESSION_START_BUDGET, estimate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from ..base.models import Record
    from ..base.project import Project

VERSION = 1
# SPEC §4 digest composition, in priority order: later sections are truncated or dropped first.
SECTION_BUDGETS: dict[str, int] = {
    "profile": 200,
    # "rules" (always-apply rule files, whole) has no budget of its own: the room the others leave (`_view`).
    "decisions": 500,
    "handover": 400,
    "preferences": 200,
    "mcp_hint": 100,
    "drift_hint": 60,
}
MAX_DECISIONS = 10
LINE_CHARS = 240


def read(project_id: str) -> dict[str, object] | None:
    """The stored digest of a project, or None when it is missing, unreadable or of another version."""
    try:
        with open(paths.digest_file(project_id), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return None
    return data


def read_text(project_id: str) -> str:
    """The stored digest text of a project, or "" when it is missing, unreadable or of another version."""
    return read_carried(project_id)[0]


def read_carried(project_id: str) -> "tuple[str, list[str]]":
    """The stored digest text and the ids of the records it carries (for the ledger), or ("", [])."""
    return carried_of(read(project_id))


def carried_of(data: "dict[str, object] | None") -> "tuple[str, list[str]]":
    """A read digest's text and the ids of the records it carries, or ("", [])."""
    text = data.get("text") if data else None
    if not isinstance(text, str):
        return "", []
    ids = data.get("ids") if data else None
    return text, [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def remember_root(project: "Project") -> None:
    """Record root -> project id for SessionStart's fast path (derived; losing it only costs the slow path)."""
    root = str(project.root)
    if git_root(root) != root:
        return
    try:
        with open(roots_file(), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    entry = [project.id, stamp(root)]
    if data.get(root) == entry:
        return
    data[root] = entry
    _write_json(roots_file(), data)


def _write_json(target: str, data: object) -> None:
    import json  # indented for people who read the file; only consolidation writes it

    from ..base.userfiles import atomic_write  # not at import: SessionStart reads digests through this module

    paths.ensure_private_dir(paths.digests_dir())
    atomic_write(target, json.dumps(data, ensure_ascii=False, indent=1) + "\n", mode=0o600)


def _first_line(record: "Record") -> str:
    """The first body line that does not just repeat the title (a Markdown heading of it included)."""
    title = record.title.rstrip(".").lower()
    for line in record.body.splitlines():
        line = line.strip().lstrip("-* ").strip()
        if line and line.rstrip(".").lower() != title and line.lstrip("#").strip().rstrip(".").lower() != title:
            return line
    return ""


def _clip(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1].rstrip() + "…"


def _lines_section(header: str, lines: list[str], budget: int) -> str:
    from ..base import tokens

    if not lines:
        return ""
    kept = tokens.fit([header, *lines], budget, separator="\n")
    return "\n".join(kept) if len(kept) > 1 else ""


def profile_section(conn: "sqlite3.Connection", project_id: str, budget: int = SECTION_BUDGETS["profile"]) -> str:
    """`Project profile (agentctx):` with the Stack, Commands and Entry points records."""
    from ..base import tokens
    from ..store import records

    profile = records.current(conn, project_id, types=["profile"], own_only=True)
    order = {"Stack": 0, "Commands": 1, "Entry points": 2}
    profile.sort(key=lambda r: (order.get(r.title, 9), r.title))
    parts = []
    for record in profile:
        lines = record.body.splitlines()
        # Profile bodies open with a descriptive line for search (profile.describe): the digest shows the bullets.
        items = [line.strip().lstrip("- ").strip() for line in lines if line.strip()
                 and (line.lstrip().startswith("-") or not any(ln.lstrip().startswith("-") for ln in lines))]
        parts.append(f"{record.title}: " + "; ".join(items))
    if not parts:
        return ""
    return tokens.truncate("Project profile (agentctx):\n" + "\n".join(f"- {p}" for p in parts), budget)


def _established(record: "Record") -> bool:
    return record.confidence != "inferred"


def decisions_section(conn: "sqlite3.Connection", project_id: str, *, rows: "list[Record] | None" = None,
                      skip: "set[str] | frozenset[str]" = frozenset()) -> str:
    """`- <title>: <first line>` for the established decisions and conventions, without the ids in `skip` (what
    the session's agent loads itself) and without the rules the rules section carries (always-apply rule files)."""
    from ..store import records

    # Ordered and limited in SQL: the digest is rebuilt after every write, and a store holds thousands of these.
    if rows is None:
        rows = records.established(conn, project_id, types=("decision", "convention"), limit=MAX_DECISIONS)
    rows = [r for r in rows if r.id not in skip and not _always_rule(r)][:MAX_DECISIONS]
    lines = []
    marks = _marks(conn, rows)
    for r in rows:
        if "review" in marks.get(r.id, {}):
            continue
        detail = _first_line(r)
        title = _shown_title(r, marks)
        lines.append(_clip(f"- {title}: {detail}" if detail else f"- {title}"))
    header = "Active decisions and conventions (agentctx):"
    budget = SECTION_BUDGETS["decisions"]
    text = _lines_section(header, lines, budget)
    left_out = len(lines) - (text.count("\n") if text else 0)
    if lines and left_out > 0:  # the budget dropped some: say so, in room kept for the line
        from ..base import tokens

        note = _left_out_line(left_out)
        text = _lines_section(header, lines, budget - tokens.estimate(note) - 1)
        left_out = len(lines) - (text.count("\n") if text else 0)
        text = f"{text}\n{_left_out_line(left_out)}" if text else ""
    return text


def _always_rule(r: "Record") -> bool:
    return r.source == "rule_file" and r.pinned


def _marks(conn: "sqlite3.Connection", rows: "list[Record]") -> "dict[str, dict[str, str]]":
    """The marks of the rows (SPEC §3.9): waiting for review (left out) and unverified (flagged)."""
    from ..store import trust

    try:
        return trust.marks_for(conn, [r.id for r in rows])
    except Exception:  # a store from before migration 15
        return {}


def _shown_title(r: "Record", marks: "dict[str, dict[str, str]]") -> str:
    from ..store.trust import flag

    if r.source == "rule_file":  # what the rule file says, named by that file: the team file does not carry it
        from ..outside.native import provenance

        label, origin = provenance(r)
        title = label + origin
    else:
        title = f"{r.title} (team file)" if r.confidence == "team" else r.title
    reason = marks.get(r.id, {}).get("unverified")
    return title + flag(reason) if reason is not None else title


def _left_out_line(n: int) -> str:
    return f"({n} more decision{'s' if n != 1 else ''} and conventions did not fit here: ctx_search finds them.)"


def carried(conn: "sqlite3.Connection", project_id: str, text: str, *, rows: "list[Record] | None" = None,
            prefs: "list[Record] | None" = None) -> list[str]:
    """The ids of the records whose lines the digest `text` shows (profile, decisions and conventions, the
    handover, global preferences): what SessionStart puts in front of the model, for the ledger."""
    from ..store import records

    lines = set(text.splitlines())
    shown = lambda prefix: any(line.startswith(prefix) for line in lines)  # noqa: E731
    ids = [r.id for r in records.current(conn, project_id, types=["profile"], own_only=True)
           if shown(f"- {r.title}: ")]
    if rows is None:
        rows = records.established(conn, project_id, types=("decision", "convention"), limit=MAX_DECISIONS)
    marks = _marks(conn, rows)
    for r in rows:
        title = _shown_title(r, marks)
        if shown(f"- {title}: ") or f"- {title}" in lines:
            ids.append(r.id)
    hand = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    if hand and shown("Last session handover"):
        ids.append(hand[0].id)
    ids += [r.id for r in (_preferences(conn) if prefs is None else prefs) if f"- {r.title}" in lines]
    return ids


def handover_section(conn: "sqlite3.Connection", project_id: str) -> str:
    from ..base import tokens
    from ..store import records

    found = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    if not found:
        return ""
    r = found[0]
    marks = _marks(conn, found)
    if "review" in marks.get(r.id, {}):
        return ""
    reason = marks.get(r.id, {}).get("unverified")
    label = " (unconfirmed)" if r.confidence == "inferred" else ""
    if reason is not None:
        from ..store.trust import flag

        label = flag(reason) + label
    return tokens.truncate(f"Last session handover{label} (agentctx, {r.recorded_at}):\n{r.body}",
                           SECTION_BUDGETS["handover"])


def preferences_section(conn: "sqlite3.Connection", skip: "set[str] | frozenset[str]" = frozenset(),
                        rows: "list[Record] | None" = None) -> str:
    if rows is None:
        rows = _preferences(conn)
    rows = [r for r in rows if r.id not in skip]
    lines = [_clip(f"- {r.title}") for r in rows]
    return _lines_section("Developer preferences (agentctx, confirmed):", lines, SECTION_BUDGETS["preferences"])


def _preferences(conn: "sqlite3.Connection") -> "list[Record]":
    from ..base.models import GLOBAL_PROJECT
    from ..store import records

    return [r for r in records.current(conn, GLOBAL_PROJECT, types=["preference"], own_only=True)
            if _established(r) and r.scope == "global"]


def mcp_hint(conn: "sqlite3.Connection", project_id: str, total: int | None = None) -> str:
    from ..store import records

    if total is None:
        total = sum(records.counts_by_type(conn, project_id).values())
    if not total:
        return ""
    return f"agentctx holds {total} context records for this project (its memory). For more: {MCP_TOOLS}"


# Newer Claude Code releases defer MCP tools: the model sees only their full names and loads one with ToolSearch
# (vendor-facts 7.2), so the hint names them as Claude Code's model will find them. The Codex and Gemini adapters
# swap this exact sentence for their own agent's (agents/codex.py, agents/gemini.py: CLAUDE_TOOLS).
MCP_TOOLS = ("mcp__agentctx__ctx_search(query) returns a compact index, mcp__agentctx__ctx_get(ids) full records, "
             "mcp__agentctx__ctx_related(file) what is known about a file (load them with ToolSearch if deferred).")


def drift_hint(conn: "sqlite3.Connection", project: "Project | None") -> str:
    """The CLAUDE.md drift hint from the drift scanner, when the scan finds at least 2 candidates."""
    try:
        from ..outside import drift  # type: ignore[attr-defined]
    except ImportError:
        return ""
    try:
        report = drift.scan(conn, project) if project is not None else None
    except Exception:
        return ""
    missing = list(getattr(report, "missing", None) or [])
    if len(missing) < 2:
        return ""
    return (f"{len(missing)} context records (decisions/conventions) are not reflected in CLAUDE.md: "
            "run `agentctx sync` to review.")


def compose(conn: "sqlite3.Connection", project_id: str, *, project: "Project | None" = None,
            drift: str | None = None) -> dict[str, object]:
    """The digest of a project: its sections and their composition under the SessionStart budget, once for any
    agent (`text`, `ids`, `later`) and once per agent (`agents[<name>]`) without what that agent loads itself.

    `drift`, when given, is used as the drift hint instead of scanning CLAUDE.md (a rebuild after a write keeps the
    last scan's hint: consolidation, `init`, `profile refresh` and `sync` scan again).
    """
    from ..base.ids import now_iso
    from ..store import records
    from ..outside.native import AGENTS
    from .notice import stats

    total = sum(records.counts_by_type(conn, project_id).values())  # counting costs ~12 ms at 100K records: once
    from .digest_rules import always_rules

    rules = always_rules(conn, project_id)
    common = {
        "profile": profile_section(conn, project_id),
        "handover": handover_section(conn, project_id),
        "mcp_hint": mcp_hint(conn, project_id, total),
        "drift_hint": drift_hint(conn, project) if drift is None else drift,
    }
    rows = records.established(conn, project_id, types=("decision", "convention"), limit=MAX_DECISIONS + len(rules))
    prefs = _preferences(conn)
    base = _view(conn, project_id, common, rows, prefs, rules, frozenset())
    agents = {}
    for agent in AGENTS:
        own = _own_ids(conn, project_id, agent, rows + rules + prefs)
        agents[agent] = base if not own else _view(conn, project_id, common, rows, prefs, rules, own)
    return {"version": VERSION, "projectId": project_id, "generatedAt": now_iso(), "sections": base["sections"],
            "text": base["text"], "tokens": base["tokens"], "stats": stats(conn, project_id, total),
            "ids": base["ids"], "later": base["later"], "lines": base["lines"],
            "handoverSession": base["handoverSession"], "agents": agents}


def _own_ids(conn: "sqlite3.Connection", project_id: str, agent: str, rows: "list[Record]") -> "frozenset[str]":
    """The ids among `rows` that `agent` loads itself (`outside.native`: its memory's and its rule files')."""
    from ..outside.native import loaded_ids

    try:
        return frozenset(loaded_ids(conn, project_id, agent, rows))
    except Exception:  # a store before migration 16: only rule files
        from ..outside.native import native_agents

        return frozenset(r.id for r in rows if r.source == "rule_file" and agent in native_agents(r))


def _view(conn: "sqlite3.Connection", project_id: str, common: "dict[str, str]", rows: "list[Record]",
          prefs: "list[Record]", rules: "list[Record]", own: "frozenset[str]") -> "dict[str, object]":
    """The digest as one agent gets it: without the records in `own`, the always-apply rules in the room left."""
    from ..base import tokens
    from .digest_rules import LATER_HEADER, RULES_FLOOR, RULES_HEADER, rule_block, rules_section

    sections = {
        "profile": common["profile"],
        "rules": "",
        "decisions": decisions_section(conn, project_id, rows=rows, skip=own),
        "handover": common["handover"],
        "preferences": preferences_section(conn, own, prefs),
        "mcp_hint": common["mcp_hint"],
        "drift_hint": common["drift_hint"],
    }
    sections = {name: tokens.truncate(text, SECTION_BUDGETS[name]) if name in SECTION_BUDGETS else text
                for name, text in sections.items()}
    mine = [r for r in rules if r.id not in own]
    rule_ids: "list[str]" = []
    later: "list[Record]" = []
    if mine:
        # The rules come first: at least RULES_FLOOR tokens when they need it (the sections after them are cut or
        # dropped first), else the room the others leave.
        needed = tokens.estimate("\n".join([RULES_HEADER, *(rule_block(r) for r in mine)]))
        others = tokens.compose(list(sections.values()), tokens.SESSION_START_BUDGET)
        room = max(tokens.SESSION_START_BUDGET - tokens.estimate(others) - 1, min(RULES_FLOOR, needed))
        sections["rules"], rule_ids, later = rules_section(mine, room)
        # Estimates of parts and whole may differ by a token: the section must be in the composed text whole.
        while rule_ids and sections["rules"] not in tokens.compose(list(sections.values()),
                                                                   tokens.SESSION_START_BUDGET):
            room -= 8
            sections["rules"], rule_ids, later = rules_section(mine, room)
    text = tokens.compose(list(sections.values()), tokens.SESSION_START_BUDGET)
    ids = [i for i in carried(conn, project_id, text, rows=[r for r in rows if not _always_rule(r)], prefs=prefs)
           if i not in own] + rule_ids
    later_text = "\n".join([LATER_HEADER, *(rule_block(r) for r in later)]) if later else ""
    return {"sections": sections, "text": text, "tokens": tokens.estimate(text), "ids": ids,
            "later": {"text": tokens.truncate(later_text, tokens.PROMPT_BUDGET), "ids": [r.id for r in later]},
            **record_lines(conn, text, ids, sections["handover"])}


def record_lines(conn: "sqlite3.Connection", text: str, ids: "list[str]", handover: str) -> "dict[str, object]":
    """`lines`: per carried record, its lines in `text` (the handover: its section, `handover`; an always-apply
    rule: its whole block), and `handoverSession`: the session that wrote the carried handover. A resumed session
    gets only the lines of records its conversation has not had, never the handover it wrote itself
    (hooks/session.py)."""
    from ..store import records
    from .digest_rules import rule_block

    out: "dict[str, list[str]]" = {}
    lines = text.splitlines()
    session = None
    for rid in ids:
        record = records.get(conn, rid)
        if record is None:
            continue
        if record.type == "handover":
            if handover and handover in text:
                out[rid] = handover.splitlines()
                session = record.session_id
            continue
        if _always_rule(record):
            block = rule_block(record)
            if block in text:
                out[rid] = block.splitlines()
            continue
        title = _shown_title(record, {})
        mine = [ln for ln in lines if ln == f"- {title}" or ln.startswith(f"- {title}: ") or ln == _clip(f"- {title}")]
        if mine:
            out[rid] = mine
    return {"lines": out, "handoverSession": session}


def for_agent(data: "dict[str, object] | None", agent: str) -> "dict[str, object]":
    """The digest as `agent`'s sessions get it: {text, ids, sections, later, lines, handoverSession} (its own view
    when the digest has one, else the common text without the lines `own` lists: a digest written before per-agent
    views)."""
    agents = data.get("agents") if isinstance(data, dict) else None
    view = agents.get(agent) if isinstance(agents, dict) else None
    own_view = isinstance(view, dict) and isinstance(view.get("text"), str)
    source = view if own_view else data
    if own_view:
        ids = view.get("ids")  # type: ignore[union-attr]
        text, ids = view["text"], [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []  # type: ignore[index]
    else:
        text, ids = carried_of(data)
        if text:
            text, ids = without_own(data, agent, text, ids)
    get = source.get if isinstance(source, dict) else (lambda key: None)  # noqa: E731
    sections, later, lines = get("sections"), get("later"), get("lines")
    return {"text": text, "ids": ids, "sections": sections if isinstance(sections, dict) else {},
            "later": later if isinstance(later, dict) else {}, "lines": lines,
            "handoverSession": get("handoverSession")}


def without_own(data: "dict[str, object] | None", agent: str, text: str, ids: "list[str]") -> "tuple[str, list[str]]":
    """`text` and `ids` without the lines of records `agent` already loads itself (the `own` of a digest written
    before per-agent views, `for_agent`)."""
    own = data.get("own") if isinstance(data, dict) else None
    mine = own.get(agent) if isinstance(own, dict) else None
    if not isinstance(mine, dict):
        return text, ids
    drop = {ln for ln in mine.get("lines") or [] if isinstance(ln, str)}
    gone = {i for i in mine.get("ids") or [] if isinstance(i, str)}
    if not drop:
        return text, ids
    kept = [ln for ln in text.split("\n") if ln not in drop]
    headers = ("Active decisions and conventions (agentctx):", "Developer preferences (agentctx, confirmed):")
    kept = [ln for n, ln in enumerate(kept)  # a section all of whose lines went: its header goes too
            if ln not in headers or (n + 1 < len(kept) and kept[n + 1].startswith("- "))]
    return "\n".join(kept), [i for i in ids if i not in gone]


def write(project_id: str, data: dict[str, object]) -> "Path":
    """Store a digest atomically (tmp + rename) so a concurrent SessionStart reads the old or the new one."""
    path = paths.digest_path(project_id)
    _write_json(str(path), data)
    return path


def refresh(conn: "sqlite3.Connection", project_id: str, *, project: "Project | None" = None) -> dict[str, object]:
    """Compose and store the digest of one project (the drift hint needs `project`, for its CLAUDE.md)."""
    from ..base import freshness

    data = compose(conn, project_id, project=project)
    write(project_id, data)
    try:  # the pre-action hook's map is refreshed with the digest (`done` below drops the pending rebuild)
        from .anchormap import write as write_map

        write_map(conn, project_id)
    except Exception as exc:  # derived data: a failure leaves the older map
        freshness._log(f"anchor map for {project_id} failed: {type(exc).__name__}: {exc}")
    freshness.done(project_id)
    if project is not None and project.id == project_id:
        remember_root(project)
    return data


def refresh_after_write(conn: "sqlite3.Connection", project_id: str) -> dict[str, object]:
    """Rebuild a project's digest after a store write (`agentctx.base.freshness`), keeping the last drift scan's hint."""
    old = read(project_id)
    sections = old.get("sections") if old else None
    hint = sections.get("drift_hint") if isinstance(sections, dict) else None
    data = compose(conn, project_id, drift=hint if isinstance(hint, str) else "")
    write(project_id, data)
    return data
