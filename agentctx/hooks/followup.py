"""PostToolUse's first step: what an action did after the pre-action hook delivered records for it (SPEC §4.11).

For every delivery the session's notes hold for this call: a guard whose pattern still matched what ran is
`ignored` (the user let it through), any other record the action ran with is `acted`; a `ctx_get` of a record
delivered before an action, injected at a prompt or carried by the digest is `fetched`. One pending ledger row, no database. Then capture runs as before. For
Gemini CLI, whose BeforeTool takes no context, the delivery itself goes out here, with the tool's result.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

_GET_TOOLS = ("ctx_get",)


def post_tool_use(payload: "Payload") -> "dict[str, object] | None":
    carried = _safe_follow(payload)
    from .tool import post_tool_use as capture

    capture(payload)
    return carried


def post_tool_use_failure(payload: "Payload") -> "dict[str, object] | None":
    carried = _safe_follow(payload)
    from .tool import post_tool_use_failure as capture

    capture(payload)
    return carried


def _safe_follow(payload: "Payload") -> "dict[str, object] | None":
    try:
        return follow_up(payload)
    except Exception as exc:  # bookkeeping: it must never cost the capture that follows
        from . import log

        log("post-tool-use", f"follow-up: {type(exc).__name__}: {exc}")
        return None


def _notes(session_id: str) -> "list[dict]":  # type: ignore[type-arg]
    from .action import notes

    return notes(session_id)


def _fetched_ids(payload: "Payload") -> "list[str]":
    name = payload.tool_name
    if not name.endswith(_GET_TOOLS) or "agentctx" not in name:
        return []
    args = payload.tool_input if isinstance(payload.tool_input, dict) else {}
    ids = args.get("ids")
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def follow_up(payload: "Payload") -> "dict[str, object] | None":
    """Note what the action did for each record delivered before it; Gemini's delivery, as its context."""
    if not payload.session_id or not payload.tool_name:
        return None
    from ..base import paths

    notes_path = paths.actions_file(payload.session_id)
    fetched = _fetched_ids(payload)
    if fetched:  # read in whole after it was delivered: before an action, at a prompt or in the digest
        from ..base.safeio import read_ids

        dedup = paths.dedup_file(payload.session_id)
        delivered = read_ids(dedup, 1024 * 1024) | read_ids(dedup + ".digest", 1024 * 1024)
        if os.path.exists(notes_path):
            delivered |= {i for n in _notes(payload.session_id) for i in n.get("ids") or () if isinstance(i, str)}
        hit = [i for i in fetched if i in delivered]
        if hit:
            _record(payload, "", {i: "fetched" for i in hit})
        return None
    if not os.path.exists(notes_path):  # nothing was delivered before an action this session: the common case
        return None
    notes = _notes(payload.session_id)
    if not notes:
        return None
    from . import action

    found = action._project(payload.cwd)
    if found is None:
        return None
    target = action.target_of(payload.tool_name, payload.tool_input, payload.cwd, found[1])
    key = action.action_key(payload, target)
    note = None
    for n in notes:  # the latest delivery for this key that no follow-up has answered yet
        if n.get("key") == key and "ids" in n:
            note = n
        elif n.get("done") == key:
            note = None
    if note is None:
        return None
    guards = note.get("guards") if isinstance(note.get("guards"), dict) else {}
    outcomes: dict[str, str] = {}
    for rid in note.get("ids") or ():
        if not isinstance(rid, str):
            continue
        spec = guards.get(rid)  # type: ignore[union-attr]
        if isinstance(spec, list) and len(spec) == 2:
            entry = {"id": rid, "guard": spec[0], "anchors": spec[1]}
            outcomes[rid] = "ignored" if action.guard_decision(entry, target) else "followed"
        else:
            outcomes[rid] = "acted"
    _record(payload, key, outcomes, found[0])
    from ..base import jsonfast

    action._append(notes_path, (jsonfast.dumps({"done": key}) + "\n").encode("utf-8"))
    carry = note.get("carry")
    if isinstance(carry, str) and carry:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": carry}}
    return None


def _record(payload: "Payload", key: str, outcomes: "dict[str, str]", project_id: str = "") -> None:
    from . import record_pending

    if not project_id:
        from .action import _project

        found = _project(payload.cwd)
        project_id = found[0] if found else ""
    record_pending({"event": "PostToolUse", "session_id": payload.session_id, "project_id": project_id,
                    "prompt_hash": key, "outcomes": outcomes, "agent": payload.agent})
