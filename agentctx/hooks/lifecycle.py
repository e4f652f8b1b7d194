"""Stop, PreCompact and SessionEnd: spawn background work (debounced), snapshot the working state, close the session."""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

# Stop fires after every turn: extract again only when the transcript grew this much, or after this long.
DEBOUNCE_BYTES = 24 * 1024
DEBOUNCE_SECONDS = 300.0
SNAPSHOT_TITLE = "Handover: working-state snapshot"


def _llm_on() -> bool:
    from .. import config

    return bool(config.load()["llm"]) and bool(os.environ.get("ANTHROPIC_API_KEY"))


def _state_file(session_id: str) -> str:
    import re

    from .. import paths

    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:128] or "_"
    return os.path.join(paths.state_dir_str(), f"stop-{safe}.json")


def due(session_id: str, transcript: str, *, now: float | None = None) -> bool:
    """Debounce: True (and remember it) when the transcript grew enough or enough time passed since the last spawn."""
    try:
        size = os.path.getsize(transcript)
    except OSError:
        return False
    now = time.time() if now is None else now
    state_path = _state_file(session_id)
    try:
        with open(state_path, encoding="utf-8") as fh:
            last = json.load(fh)
        last_size, last_at = int(last["size"]), float(last["at"])
    except (OSError, ValueError, KeyError, TypeError):
        last_size, last_at = -1, 0.0
    grown = size - max(last_size, 0)
    if last_size >= 0 and (grown < DEBOUNCE_BYTES and (grown <= 0 or now - last_at < DEBOUNCE_SECONDS)):
        return False
    os.makedirs(os.path.dirname(state_path), mode=0o700, exist_ok=True)
    with open(state_path, "w", encoding="utf-8") as fh:
        json.dump({"size": size, "at": now}, fh)
    return True


def stop(payload: "Payload") -> None:
    """Prints nothing (any output would continue the turn); spawns incremental extraction when due."""
    if not payload.session_id or not payload.transcript_path or not _llm_on():
        return None
    if due(payload.session_id, payload.transcript_path):
        from ..spawn import agentctx_argv, detached

        detached(agentctx_argv("extract", "--session-id", payload.session_id, "--transcript", payload.transcript_path),
                 cwd=payload.cwd)
    return None


def pre_compact(payload: "Payload") -> None:
    """Snapshot the working state as a handover before compaction, unless a richer handover is current."""
    from .. import db, paths, snapshot
    from ..capture import read_log
    from ..ids import now_iso
    from ..models import NewRecord
    from ..project import detect
    from ..store import records

    if not os.path.exists(paths.db_file()):
        return None
    prompts = snapshot.recent_prompts(payload.transcript_path) if payload.transcript_path else []
    project = detect(payload.cwd)
    conn = db.connect(paths.db_file())
    try:
        current = records.current(conn, project.id, types=["handover"], own_only=True, limit=1)
        if current and current[0].source != "hook_observation":
            return None  # an extracted or explicit handover says more than a snapshot: keep it
        body = snapshot.handover_body(prompts, read_log(payload.session_id) if payload.session_id else [],
                                      when=f"before {payload.trigger or 'a'} compaction at {now_iso()}",
                                      current=current[0].body if current else None, current_is_snapshot=True)
        if not body:
            return None  # nothing new since the current snapshot: it stays the last real working state
        records.insert(conn, NewRecord(type="handover", title=SNAPSHOT_TITLE, body=body, project_id=project.id,
                                       source="hook_observation", session_id=payload.session_id or None))
    finally:
        conn.close()
    return None


def session_end(payload: "Payload") -> None:
    """Close the session, drop the dedup file, spawn `agentctx consolidate`; returns at once (1.5 s budget)."""
    from .. import open_sessions, paths
    from ..spawn import agentctx_argv, detached

    if payload.session_id:
        open_sessions.mark_closed(payload.session_id)  # it ended normally: nobody needs to close it later
        try:
            os.unlink(paths.dedup_file(payload.session_id))
        except OSError:
            pass
    if os.path.exists(paths.db_file()) and payload.session_id:
        from .. import db
        from ..project import detect
        from ..store import sessions

        conn = db.connect(paths.db_file())
        try:
            sessions.end(conn, payload.session_id, detect(payload.cwd).id)
        finally:
            conn.close()
    argv = agentctx_argv("consolidate")
    if payload.session_id:
        argv += ["--session-id", payload.session_id]
        if payload.transcript_path:
            argv += ["--transcript", payload.transcript_path]
    detached(argv, cwd=payload.cwd)
    return None
