"""The hook's stdin JSON as an immutable record: known fields only, junk becomes empty values."""

import os
from ..frozen import record_type

# An immutable tuple with named fields (agentctx.frozen) rather than a frozen dataclass: `dataclasses` pulls in
# `inspect`, about 8 ms of imports on every hook process (measured: bench/hooks.py).
_FIELDS = ("session_id", "transcript_path", "cwd", "event_name", "source", "prompt", "tool_name", "tool_input",
           "tool_response", "trigger", "reason", "stop_hook_active")
_DEFAULTS = ("", "", "", "", "", "", "", None, None, "", "", False)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _obj(value: object) -> object:
    return value if isinstance(value, (dict, list, str)) else None


class Payload(record_type("Payload", _FIELDS, defaults=_DEFAULTS)):
    """What Claude Code sends on stdin (vendor-notes/claude-code-hooks.md facts 5-6); unknown keys are ignored.

    `source` is SessionStart's startup|resume|clear|compact|fork, `prompt` UserPromptSubmit's text, `tool_*`
    PostToolUse's, `trigger` PreCompact's manual|auto, `reason` SessionEnd's. A wrong type reads as empty.
    """

    __slots__ = ()

    @classmethod
    def from_json(cls, data: dict) -> "Payload":  # type: ignore[type-arg]
        return cls(
            session_id=_text(data.get("session_id")),
            transcript_path=_text(data.get("transcript_path")),
            cwd=_text(data.get("cwd")) or os.getcwd(),
            event_name=_text(data.get("hook_event_name")),
            source=_text(data.get("source")),
            prompt=_text(data.get("prompt")),
            tool_name=_text(data.get("tool_name")),
            tool_input=_obj(data.get("tool_input")),
            tool_response=_obj(data.get("tool_response")),
            trigger=_text(data.get("trigger")),
            reason=_text(data.get("reason")),
            stop_hook_active=data.get("stop_hook_active") is True,
        )
