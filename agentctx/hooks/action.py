"""PreToolUse (each agent's pre-action hook): the records whose anchors match what a tool call is about to edit, run
or use reach the model before it runs, once per session each, within ACTION_BUDGET tokens; guards the user set ask
or deny. The hot path opens no database: the project's anchor map is one file read, and no map means nothing."""

import os

from ..base.models import record_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

ACTION_BUDGET = 400  # tokens an action may receive (SPEC §4.11), the header included
TEXT_SCAN = 32_000  # characters of an edit's text searched for symbol anchors
COMMAND_SCAN = 16_000  # characters of a shell line matched against command anchors (a pasted script is cut)
PATHS_MAX = 64  # files of one call matched (a patch touching more is matched on its first 64)
# Neutral (Claude Code) tool names whose target is a file, and the input fields that name it; adapters map their
# own tools to these (Gemini's replace/write_file, Codex's apply_patch as `file_paths`).
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_PATH_FIELDS = ("file_path", "notebook_path", "path")
_TEXT_FIELDS = ("new_string", "old_string", "content", "new_source")
SHELL_TOOLS = frozenset({"Bash"})
MAP_READ_LIMIT = 8 * 1024 * 1024
NOTES_READ_LIMIT = 1024 * 1024


class Target(record_type("Target", ("tool", "paths", "command", "text"), defaults=("", (), "", ""))):
    """What a tool call is about to touch: its tool name, the repository-relative files it edits, the shell line it
    runs, and the text it writes (for symbol anchors)."""

    __slots__ = ()


class Pick(record_type("Pick", ("entry", "anchor", "decision", "block"))):
    """One record chosen for an action: its map entry, the anchor that matched (or the guard pattern), the guard's
    decision (`ask`, `deny`, or "" for a plain delivery) and the text block delivered."""

    __slots__ = ()


def _rel(path: str, cwd: str, root: str) -> str:
    """`path` relative to the repository root, or "" when it lies outside it."""
    path = path.replace("\\", "/")
    full = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    for base in (root, os.path.realpath(root)):
        base = base.rstrip("/") + "/"
        if full.startswith(base):
            return full[len(base):]
    real = os.path.realpath(full)
    base = os.path.realpath(root).rstrip("/") + "/"
    return real[len(base):] if real.startswith(base) else ""


def target_of(tool: str, tool_input: object, cwd: str, root: str) -> Target:
    """The target of a tool call in the neutral shape (file edits, shell lines; every tool by its name)."""
    data = tool_input if isinstance(tool_input, dict) else {}
    paths: list[str] = []
    text = ""
    if tool in EDIT_TOOLS:
        names = [data.get(k) for k in _PATH_FIELDS]
        listed = data.get("file_paths")
        if isinstance(listed, list):
            names += listed
        for name in names[:PATHS_MAX * 2]:
            if isinstance(name, str) and name.strip() and len(name) <= 4096:
                rel = _rel(name.strip(), cwd, root)
                if rel and rel not in paths:
                    paths.append(rel)
        parts = [data.get(k) for k in _TEXT_FIELDS]
        edits = data.get("edits")
        if isinstance(edits, list):
            for e in edits[:64]:
                if isinstance(e, dict):
                    parts += [e.get("new_string"), e.get("old_string")]
        text = "\n".join(p for p in parts if isinstance(p, str))[:TEXT_SCAN]
    command = data.get("command") if tool in SHELL_TOOLS else None
    command = command[:COMMAND_SCAN] if isinstance(command, str) else ""
    return Target(tool, tuple(paths[:PATHS_MAX]), command, text)


def _has_symbol(symbol: str, text: str) -> bool:
    """Whether `text` names the symbol: its last part (`send` of `Client.send`) as a whole identifier."""
    name = symbol
    for sep in (".", ":", "#"):
        name = name.rsplit(sep, 1)[-1]
    if not name:
        return False
    at = text.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name)] if at + len(name) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        at = text.find(name, at + 1)
    return False


def matches(anchor: str, target: Target) -> bool:
    """Whether one stored anchor (`kind:value`) governs the target (base/anchors.py's bounded matchers)."""
    from ..base import anchors

    kind, _, value = anchor.partition(":")
    if kind == "path":
        return any(anchors.path_matches(value, p) for p in target.paths)
    if kind == "command":
        return bool(target.command) and anchors.command_matches(value, target.command)
    if kind == "tool":
        return bool(target.tool) and anchors.tool_matches(value, target.tool)
    if kind == "symbol":
        return bool(target.text) and _has_symbol(value, target.text)
    return False


def guard_decision(entry: dict, target: Target) -> str:  # type: ignore[type-arg]
    """`ask` or `deny` when the entry's guard stops this action, else "" (base/guards.py defines never/always)."""
    from ..base import guards

    parsed = guards.parse(entry.get("guard") or "") if isinstance(entry.get("guard"), str) else None
    if parsed is None:
        return ""
    mode, decision, patterns = parsed
    if mode == "never":
        return decision if any(matches(p, target) for p in patterns) else ""
    scope = [a for a in entry.get("anchors") or () if isinstance(a, str)]
    each = [target._replace(paths=(p,)) for p in target.paths] or [target]  # every edited file on its own
    for one in each:
        if any(matches(a, one) for a in scope) and not any(matches(p, one) for p in patterns):
            return decision
    return ""


def block(entry: dict, decision: str = "") -> str:  # type: ignore[type-arg]
    """What the model reads of a record before the action: its type, title (and flag), id and the start of it."""
    flag = f" {entry['flag']}" if entry.get("flag") else ""
    if entry.get("confidence") == "inferred":  # a capture stub or an unconfirmed extraction: said as such
        flag = " (unconfirmed pattern)" + flag
    elif entry.get("origin"):  # a rule file's record: that file, not the team file, says it
        flag = f" ({entry['origin']})" + flag
    elif entry.get("confidence") == "team":
        flag = " (from the team file)" + flag
    head = f"[{entry.get('type') or 'record'}] {entry.get('title') or ''}{flag} (id {entry['id']})"
    if decision:
        head = f"GUARD ({'denied' if decision == 'deny' else 'asks the user'}) " + head
    text = str(entry.get("text") or "")
    return f"{head}\n{text}" if text else head


HEADER = "agentctx: project memory about what this tool call touches (the whole record: ctx_get with its id):"


def select(entries: "list[dict]", target: Target, agent: str, delivered: "set[str] | frozenset[str]",  # type: ignore[type-arg]
           cwd_rel: str = "") -> "list[Pick]":
    """The records to deliver before this action, within ACTION_BUDGET (header included): every guard the action
    trips, then the entries whose anchors match, in map order, skipping those already delivered this session and
    those the agent loads itself in a session started at `cwd_rel` (`memory.native.entry_skips`). Pure: the hook
    and bench/action.py call exactly this."""
    from ..memory.native import entry_skips

    guarded: list[Pick] = []
    plain: list[Pick] = []
    seen: set[str] = set()
    for e in entries:
        rid = e.get("id") if isinstance(e, dict) else None
        if not isinstance(rid, str) or rid in seen:
            continue
        seen.add(rid)
        decision = guard_decision(e, target)
        if decision:
            guarded.append(Pick(e, "guard", decision, block(e, decision)))
            continue
        if rid in delivered or entry_skips(e, agent, cwd_rel):
            continue
        anchor = next((a for a in e.get("anchors") or () if isinstance(a, str) and matches(a, target)), "")
        if anchor:
            plain.append(Pick(e, anchor, "", block(e)))
    cap = ACTION_BUDGET * 4 - len(HEADER)
    out: list[Pick] = []
    for pick in guarded + plain:
        room = cap - sum(len(p.block) + 2 for p in out) - 2
        if len(pick.block) > room:
            if not pick.decision or room < 40:
                continue
            pick = pick._replace(block=pick.block[: room - 2].rstrip() + " …")  # a guard is never left out
        out.append(pick)
    return out


def render(picks: "list[Pick]") -> str:
    return "\n\n".join([HEADER] + [p.block for p in picks]) if picks else ""


def candidates(data: object, target: Target) -> "list[dict]":  # type: ignore[type-arg]
    """The entries of an anchor map that may match the target: those in the buckets its keys name."""
    from ..base.anchors import target_keys

    if not isinstance(data, dict):
        return []
    entries = data.get("entries")
    index = data.get("index")
    if not isinstance(entries, list) or not entries:
        return []
    if not isinstance(index, dict):
        return [e for e in entries if isinstance(e, dict)]
    positions: set[int] = set()
    for key in target_keys(target.paths, target.command, target.tool, bool(target.text)):
        found = index.get(key)
        if isinstance(found, list):
            positions.update(i for i in found if isinstance(i, int))
    return [entries[i] for i in sorted(positions) if 0 <= i < len(entries) and isinstance(entries[i], dict)]


def action_key(payload: "Payload", target: Target) -> str:
    """What ties the post-action hook's call to this one: the agent's tool-use id, else the target itself."""
    from ..base.ids import sha256_hex

    raw = payload.tool_use_id or "\0".join((target.tool, *target.paths, target.command))
    return sha256_hex(raw)[:16]


def _project(cwd: str) -> "tuple[str, str] | None":
    """(project id, repository root) of the working directory, from the root cache when it has them."""
    from ..base.roots import cached_id_of_root, git_root

    root = git_root(cwd)
    pid = cached_id_of_root(root) if root else None
    if pid is not None and root is not None:
        return pid, root
    from ..base.project import detect

    project = detect(cwd)
    return project.id, (getattr(project, "root_dir", "") or root or cwd)


def _read_map(project_id: str) -> object:
    from ..base import jsonfast, paths

    try:
        fd = os.open(paths.anchor_map_file(project_id), os.O_RDONLY)
    except OSError:
        return None  # no anchored record in this project: the common case, one failed open
    try:
        raw = os.read(fd, MAP_READ_LIMIT)
    finally:
        os.close(fd)
    try:
        return jsonfast.loads(raw)
    except ValueError:
        return None


def notes(session_id: str) -> "list[dict]":  # type: ignore[type-arg]
    """The session's notes, one row a line (what was delivered before which call; unreadable: none)."""
    from ..base import paths
    from ..base.safeio import jsonl_tail

    if not session_id:
        return []
    return jsonl_tail(paths.actions_file(session_id), NOTES_READ_LIMIT)


def delivered_ids(session_id: str) -> "set[str]":
    """Ids already delivered before an action this session (the session's notes; unreadable: none)."""
    out: set[str] = set()
    for row in notes(session_id):
        out.update(i for i, d in zip(row.get("ids") or (), row.get("decisions") or ()) if isinstance(i, str) and not d)
    return out


def pre_tool_use(payload: "Payload") -> "dict[str, object] | None":
    if not payload.tool_name:
        return None
    from ..base import paths

    if not os.path.exists(paths.db_file()):
        return None
    found = _project(payload.cwd)
    if found is None:
        return None
    project_id, root = found
    from .session import take_later

    # The always-apply rules the session's digest had no room for: whole, once, at its first prompt or action.
    later, later_ids = take_later(payload.session_id) if payload.session_id else ("", [])
    data = _read_map(project_id)
    if data is None and not later:
        return None  # no anchored record in this project: the common case
    target = target_of(payload.tool_name, payload.tool_input, payload.cwd, root)
    pool = candidates(data, target) if data is not None else []
    picks = select(pool, target, payload.agent, delivered_ids(payload.session_id) if payload.session_id else set(),
                   _rel(payload.cwd, payload.cwd, root) if payload.cwd else "") if pool else []
    if not picks and not later:
        return None
    from ..base import control

    off, _notify = control.check(project_id, payload.cwd)
    if off is not None:  # turned off for this project: nothing delivered, nothing enforced
        return None
    text = "\n\n".join(t for t in (later, render(picks)) if t)
    key = action_key(payload, target)
    _note(payload, project_id, target, picks, key, text, later_ids)
    specific: dict[str, object] = {"hookEventName": "PreToolUse", "additionalContext": text}
    stop = next((p for p in picks if p.decision == "deny"), None) or next((p for p in picks if p.decision), None)
    if stop is not None:
        specific["permissionDecision"] = stop.decision
        specific["permissionDecisionReason"] = reason(stop)
    return {"hookSpecificOutput": specific}


def reason(pick: Pick) -> str:
    """The guard's reason, shown to the user (ask) or the model (deny): the record quoted, and how to lift it."""
    from ..base import guards

    e = pick.entry
    rule = guards.describe(str(e.get("guard") or ""))
    text = str(e.get("text") or "")
    return (f"agentctx guard {e['id']} ({rule}): \"{e.get('title') or ''}\"" + (f" — {text}" if text else "")
            + f" [lift it: agentctx guard {e['id']} --off]")


def _note(payload: "Payload", project_id: str, target: Target, picks: "list[Pick]", key: str, text: str,
          later: "list[str] | None" = None) -> None:
    """The delivery, three ways, none of them the database: the ledger row (pending file), the session's notes
    (the post-action hook and once-per-session delivery read them) and the decisions log `agentctx why` reads."""
    from ..base import jsonfast, paths, tokens
    from ..base.ids import now_iso
    from . import record_pending

    ids = [p.entry["id"] for p in picks]
    decisions = [p.decision for p in picks]
    n_tokens = tokens.estimate(text)
    shown = (later or []) + [i for i in ids if i not in (later or [])]  # the ledger: every record shown
    record_pending({"event": "PreToolUse", "session_id": payload.session_id, "project_id": project_id,
                    "prompt_hash": key, "record_ids": shown, "scores": [1.0] * len(shown), "tokens": n_tokens,
                    "agent": payload.agent, "guards": [i for i, d in zip(ids, decisions) if d]})
    what = {"tool": target.tool, "paths": list(target.paths[:8])}
    if payload.session_id:
        note = {"key": key, "ids": ids, "decisions": decisions, "tool": target.tool,
                "guards": {p.entry["id"]: [p.entry.get("guard") or "", p.entry.get("anchors") or []] for p in picks
                           if p.entry.get("guard")}}
        if payload.agent == "gemini":  # its BeforeTool takes no context: AfterTool delivers it (docs/agents.md)
            note["carry"] = text
        _append(paths.actions_file(payload.session_id), (jsonfast.dumps(note) + "\n").encode("utf-8"))
    row = {"at": now_iso(), "session_id": payload.session_id, "project_id": project_id, "key": key,
           "agent": payload.agent, **what, "tokens": n_tokens,
           "picks": [{"id": p.entry["id"], "anchor": p.anchor, "decision": p.decision} for p in picks]}
    path = paths.action_decisions_file()
    line = (jsonfast.dumps(row) + "\n").encode("utf-8")
    if not _append(path, line):
        paths.ensure_private_dir_str(os.path.dirname(path))
        _append(path, line)


def _append(path: str, data: bytes) -> bool:
    """One O_APPEND write, 0600 (base.safeio.append_bytes); False when it failed."""
    from ..base.safeio import append_bytes

    return append_bytes(path, data)
