"""SessionStart: emit the pre-computed digest (never computed here), else the project profile, under 1,500 tokens."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

PROFILE_FALLBACK_BUDGET = 200


def session_start(payload: "Payload") -> dict[str, object] | None:
    """The hot path opens no database: the digest file, the root cache and a pending ledger line are enough."""
    from .. import digest
    from ..roots import cached_project_id

    project_id = cached_project_id(payload.cwd)
    if project_id is None:
        from ..project import detect

        project_id = detect(payload.cwd).id
    text = digest.read_text(project_id)
    if not text:
        text = _profile_fallback(project_id)
    if text and digest.estimate(text) > digest.SESSION_START_BUDGET:  # a hand-edited or foreign digest file
        from .. import tokens

        text = tokens.truncate(text, tokens.SESSION_START_BUDGET)
    from . import record_pending

    record_pending({"event": "SessionStart", "session_id": payload.session_id, "project_id": project_id,
                    "tokens": digest.estimate(text) if text else 0})
    _track(payload, project_id)
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}


def _track(payload: "Payload", project_id: str) -> None:
    """Mark this session open until its SessionEnd; when earlier sessions ended without one, close them out of band.
    Only a directory listing and a few small files here (the latency budget is 1.15x the interpreter floor)."""
    from .. import open_sessions, paths

    if not payload.session_id or not os.path.exists(paths.db_file()):
        return
    open_sessions.mark_open(payload.session_id, project_id, payload.cwd, payload.transcript_path)
    if open_sessions.stale_markers(exclude=payload.session_id):
        open_sessions.spawn_closer(payload.cwd)


def _profile_fallback(project_id: str) -> str:
    """No digest yet: the profile records, if there is a store (hooks never create one)."""
    from .. import db, digest, paths

    if not os.path.exists(paths.db_file()):
        return ""
    conn = db.connect(paths.db_file())
    try:
        return digest.profile_section(conn, project_id, PROFILE_FALLBACK_BUDGET)
    finally:
        conn.close()
