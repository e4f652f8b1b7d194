"""Did the delivery reach the model: each action-time delivery of a session looked up in the agent's own transcript.

At Stop and SessionEnd, after the hook's answer (`hooks.later`: never on the agent's path), the session's notes
(what the pre-action hook delivered, SPEC §4.11) are matched against the transcript's places where a hook's context
or a deny reason reaches the model: Claude Code's `hook_additional_context` attachments, its request blobs' `system`
messages (2.1.332) and error tool results (a deny); Codex CLI's developer messages and call outputs (its rollout
file); Gemini CLI's function responses (`<hook_context>` in them, or a deny); Copilot CLI's session log
(events.jsonl: a denied call's result only, since it keeps no preToolUse context: its other deliveries are not
judged). A delivery is found when every record id it carried is there. Found: a `PreToolUse/arrived` ledger row
(at Stop already); not found by the session's end: a `PreToolUse/not_found` row. No transcript (Codex
`--ephemeral`): nothing is said either way.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

TRANSCRIPT_LIMIT = 32 * 1024 * 1024  # bytes of a transcript read, from its end (an agent's file: untrusted, bounded)
TEXT_LIMIT = 64 * 1024  # characters kept of one context text


def _texts(value: object) -> "list[str]":
    if isinstance(value, str):
        return [value[:TEXT_LIMIT]]
    if isinstance(value, list):
        return [t for v in value[:256] for t in _texts(v.get("text") if isinstance(v, dict) else v)]
    return []


def claude_context(line: dict) -> "list[str]":  # type: ignore[type-arg]
    """Where a Claude Code transcript line holds what a hook gave the model (vendor-notes/claude-code-hooks.md)."""
    kind = line.get("type")
    if kind == "attachment":
        att = line.get("attachment")
        if isinstance(att, dict) and att.get("type") == "hook_additional_context":
            return _texts(att.get("content"))
        return []
    message = line.get("message")
    if not isinstance(message, dict):
        return []
    if kind == "api-request-blob" and message.get("role") == "system":  # 2.1.332: a system message of the request
        return _texts(message.get("content"))
    if kind == "user" and isinstance(message.get("content"), list):  # a deny: the reason is the tool's error result
        return [t for b in message["content"][:64] if isinstance(b, dict) and b.get("type") == "tool_result"
                and b.get("is_error") for t in _texts(b.get("content"))]
    return []


def _context_of(agent: str) -> "object":
    if agent == "claude":
        return claude_context
    from ..agents import adapter

    module = adapter(agent)
    return getattr(module, "line_context", None) if module is not None else None


def _logged(agent: str) -> "frozenset[str] | None":
    """The deliveries an agent's transcript can vouch for (`ARRIVAL_LOGGED` of its adapter), None: all of them."""
    if agent == "claude":
        return None
    from ..agents import adapter

    module = adapter(agent)
    return getattr(module, "ARRIVAL_LOGGED", None) if module is not None else None


def contexts(agent: str, transcript: str) -> str:
    """Every context text of the transcript, joined (empty when it cannot be read or the agent is unknown)."""
    from ..base.safeio import jsonl_tail

    reader = _context_of(agent)
    if reader is None or not transcript:
        return ""
    out: list[str] = []
    for line in jsonl_tail(transcript, TRANSCRIPT_LIMIT):
        try:
            out.extend(reader(line))  # type: ignore[operator]
        except (AttributeError, TypeError, ValueError):
            continue
    return "\n".join(out)


def check(payload: "Payload", final: bool) -> int:
    """Mark the session's unchecked deliveries arrived (and, `final`, the rest not found); returns the rows written."""
    from ..base import jsonfast, paths
    from . import action, record_pending

    if not payload.session_id or not payload.transcript_path or not os.path.isfile(payload.transcript_path):
        return 0
    rows = action.notes(payload.session_id)
    done = {r.get("arrived") for r in rows if "arrived" in r}
    todo = [(i, r) for i, r in enumerate(rows) if r.get("ids") and r.get("key") and i not in done]
    logged = _logged(payload.agent)
    if logged is not None:  # the transcript shows only denials (Copilot CLI): the rest is said neither way
        todo = [(i, r) for i, r in todo if "stop" in r or any(d in logged for d in r.get("decisions") or ())]
    if not todo:
        return 0
    blob = contexts(payload.agent, payload.transcript_path)
    found = action._project(payload.cwd)
    project_id = found[0] if found else ""
    written, arrived = 0, []
    for i, row in todo:
        ids = [x for x in row["ids"] if isinstance(x, str)]
        ok = bool(ids) and all(x in blob for x in ids)
        if ok or final:
            record_pending({"event": "PreToolUse/arrived" if ok else "PreToolUse/not_found", "mark": True,
                            "session_id": payload.session_id, "project_id": project_id, "prompt_hash": row["key"],
                            "record_ids": ids, "agent": payload.agent, "tool": row.get("tool") or ""})
            written += 1
        if ok:
            arrived.append(i)
    if arrived and not final:  # the session goes on: the next Stop looks only at what is still unchecked
        action._append(paths.actions_file(payload.session_id),
                       "".join(jsonfast.dumps({"arrived": i}) + "\n" for i in arrived).encode("utf-8"))
    return written
