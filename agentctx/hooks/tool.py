"""PostToolUse and PostToolUseFailure (registered synchronous, see docs/hooks.md): deterministic capture only; no model,
no network. A failed call (a failing test run, a command that errors) comes through PostToolUseFailure from Claude
Code, and as a PostToolUse with `error` set from an agent whose adapter read a nonzero exit code (Gemini CLI)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload


def post_tool_use_failure(payload: "Payload") -> None:
    """A tool call that failed: its `error` (exit code, stderr, stdout) is the output capture reads."""
    if not payload.error:
        return None
    return _capture(payload._replace(tool_response={"error": payload.error}), "post-tool-use-failure", True)


def post_tool_use(payload: "Payload") -> None:
    """A call that succeeded (Claude Code sends failures to PostToolUseFailure: vendor-notes/claude-code-hooks.md
    fact 24), failed (`error` set by the agent's adapter), or whose outcome the agent does not say (`exit_unknown`:
    Codex, vendor-notes/codex-cli.md fact 13)."""
    if payload.error:
        return post_tool_use_failure(payload)
    return _capture(payload, "post-tool-use", None if payload.exit_unknown else False)


def _capture(payload: "Payload", event: str, failed: "bool | None") -> None:
    from ..base import paths

    if not payload.tool_name or not os.path.exists(paths.db_file()):
        return None
    from ..memory import capture
    from ..base import control
    from ..store import db
    from ..memory import open_sessions
    from ..base.project import detect

    observations = capture.observe(payload.tool_name, payload.tool_input, payload.tool_response, payload.cwd, failed)
    if not observations:
        if failed is False:  # a retry that worked: the error before it is not the session's last (no database)
            capture.note_success(payload.session_id, payload.tool_name, payload.tool_input)
        return None
    import sqlite3

    from ..base.errors import StoreError
    from .budget import defer, lock_wait

    project = detect(payload.cwd)
    if control.check(project.id, payload.cwd)[0] is not None:
        return None  # off for this project: capture nothing
    # Its log needs a wrap-up even if this ran after SessionEnd (async) or the session was closed early.
    open_sessions.ensure_open(payload.session_id, project.id, payload.cwd, payload.transcript_path)
    try:
        conn = db.connect(paths.db_file(), timeout=lock_wait(event))
        try:
            capture.store(conn, project.id, payload.session_id, observations)
        finally:
            conn.close()
    except (StoreError, sqlite3.Error) as exc:  # locked past the budget, or a statement failed: queued
        defer(event, {"event": "PostToolUse", "write": "capture", "session_id": payload.session_id,
                                "project_id": project.id, "observations": [o.to_dict() for o in observations]}, exc)
    capture.append_log(payload.session_id, observations)
    return None
