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
    """The first body line that does not just repeat the title."""
    for line in record.body.splitlines():
        line = line.strip().lstrip("-* ").strip()
        if line and line.rstrip(".").lower() != record.title.rstrip(".").lower():
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


def decisions_section(conn: "sqlite3.Connection", project_id: str) -> str:
    from ..store import records

    # Ordered and limited in SQL: the digest is rebuilt after every write, and a store holds thousands of these.
    rows = records.established(conn, project_id, types=("decision", "convention"), limit=MAX_DECISIONS)
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


def _marks(conn: "sqlite3.Connection", rows: "list[Record]") -> "dict[str, dict[str, str]]":
    """The marks of the rows (SPEC §3.9): waiting for review (left out) and unverified (flagged)."""
    from ..store import trust

    try:
        return trust.marks_for(conn, [r.id for r in rows])
    except Exception:  # a store from before migration 15
        return {}


def _shown_title(r: "Record", marks: "dict[str, dict[str, str]]") -> str:
    from ..store.trust import flag

    title = f"{r.title} (team file)" if r.confidence == "team" else r.title
    reason = marks.get(r.id, {}).get("unverified")
    return title + flag(reason) if reason is not None else title


def _left_out_line(n: int) -> str:
    return f"({n} more decision{'s' if n != 1 else ''} and conventions did not fit here: ctx_search finds them.)"


def carried(conn: "sqlite3.Connection", project_id: str, text: str) -> list[str]:
    """The ids of the records whose lines the digest `text` shows (profile, decisions and conventions, the
    handover, global preferences): what SessionStart puts in front of the model, for the ledger."""
    from ..base.models import GLOBAL_PROJECT
    from ..store import records

    lines = set(text.splitlines())
    shown = lambda prefix: any(line.startswith(prefix) for line in lines)  # noqa: E731
    ids = [r.id for r in records.current(conn, project_id, types=["profile"], own_only=True)
           if shown(f"- {r.title}: ")]
    rows = records.established(conn, project_id, types=("decision", "convention"), limit=MAX_DECISIONS)
    marks = _marks(conn, rows)
    for r in rows:
        title = _shown_title(r, marks)
        if shown(f"- {title}: ") or f"- {title}" in lines:
            ids.append(r.id)
    hand = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    if hand and shown("Last session handover"):
        ids.append(hand[0].id)
    ids += [r.id for r in records.current(conn, GLOBAL_PROJECT, types=["preference"], own_only=True)
            if _established(r) and r.scope == "global" and f"- {r.title}" in lines]
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


def preferences_section(conn: "sqlite3.Connection") -> str:
    from ..base.models import GLOBAL_PROJECT
    from ..store import records

    rows = [r for r in records.current(conn, GLOBAL_PROJECT, types=["preference"], own_only=True)
            if _established(r) and r.scope == "global"]
    lines = [_clip(f"- {r.title}") for r in rows]
    return _lines_section("Developer preferences (agentctx, confirmed):", lines, SECTION_BUDGETS["preferences"])


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
    """The digest of a project: its sections and their composition under the SessionStart budget.

    `drift`, when given, is used as the drift hint instead of scanning CLAUDE.md (a rebuild after a write keeps the
    last scan's hint: consolidation, `init`, `profile refresh` and `sync` scan again).
    """
    from ..base import tokens
    from ..base.ids import now_iso
    from .notice import stats
    from ..store import records

    total = sum(records.counts_by_type(conn, project_id).values())  # counting costs ~12 ms at 100K records: once
    sections = {
        "profile": profile_section(conn, project_id),
        "decisions": decisions_section(conn, project_id),
        "handover": handover_section(conn, project_id),
        "preferences": preferences_section(conn),
        "mcp_hint": mcp_hint(conn, project_id, total),
        "drift_hint": drift_hint(conn, project) if drift is None else drift,
    }
    sections = {name: tokens.truncate(text, SECTION_BUDGETS[name]) for name, text in sections.items()}
    text = tokens.compose(list(sections.values()), tokens.SESSION_START_BUDGET)
    ids = carried(conn, project_id, text)
    return {"version": VERSION, "projectId": project_id, "generatedAt": now_iso(), "sections": sections,
            "text": text, "tokens": tokens.estimate(text), "stats": stats(conn, project_id, total),
            "ids": ids, "own": own_lines(conn, project_id, text, ids)}


def own_lines(conn: "sqlite3.Connection", project_id: str, text: str, ids: "list[str]") -> "dict[str, dict[str, list[str]]]":
    """Per agent, the digest lines (and ids) of records that agent loads itself from its own memory (the skip set
    outside.agentmem keeps): SessionStart leaves them out of that agent's sessions (`without_own`)."""
    from ..store import agentmem, records

    out: "dict[str, dict[str, list[str]]]" = {}
    try:
        rows = agentmem.skip_rows(conn, project_id)
    except Exception:  # a store before migration 16: nothing is skipped
        return out
    carried_ids = set(ids)
    lines = text.splitlines()
    for agent, rid, _why in rows:
        if rid not in carried_ids:
            continue
        record = records.get(conn, rid)
        if record is None:
            continue
        title = f"{record.title} (team file)" if record.confidence == "team" else record.title
        mine = [ln for ln in lines if ln == f"- {title}" or ln.startswith(f"- {title}: ")
                or ln == _clip(f"- {title}")]
        if mine:
            entry = out.setdefault(agent, {"lines": [], "ids": []})
            entry["lines"] += [ln for ln in mine if ln not in entry["lines"]]
            entry["ids"].append(rid)
    return out


def without_own(data: "dict[str, object] | None", agent: str, text: str, ids: "list[str]") -> "tuple[str, list[str]]":
    """`text` and `ids` without the lines of records `agent` already loads itself (the digest's `own`)."""
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
