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
    """An extraction backend is there: the API ([llm] and a key) or the user's Claude Code CLI (extract.backend)."""
    from ..extract.backend import choose

    return choose().on


def _state_file(session_id: str) -> str:
    from ..base import paths

    return os.path.join(paths.state_dir_str(), f"stop-{paths.session_token(session_id)}.json")


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
    from ..base import paths
    from ..base.safeio import create_private

    paths.ensure_private_dir_str(os.path.dirname(state_path))  # every directory it creates 0700, whatever the umask

    fd = create_private(state_path)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"size": size, "at": now}, fh)
    return True


def _off(cwd: str) -> bool:
    """agentctx is off for the project at `cwd` (docs/control.md): no capture, no snapshot, no spawn."""
    from ..base import control
    from ..base.project import detect

    return control.check(detect(cwd).id, cwd)[0] is not None


def stop(payload: "Payload") -> None:
    """Prints nothing (any output would continue the turn); spawns incremental extraction when due."""
    if not payload.session_id or not payload.transcript_path or not _llm_on():
        return None
    if _off(payload.cwd):
        return None
    if due(payload.session_id, payload.transcript_path):
        from ..base.spawn import agentctx_argv, detached

        detached(agentctx_argv("extract", "--session-id", payload.session_id, "--transcript", payload.transcript_path),
                 cwd=payload.cwd)
    return None


def pre_compact(payload: "Payload") -> None:
    """Snapshot the working state as a handover before compaction, unless a richer handover is current; a store
    locked past the hook's budget gets the snapshot later, through the pending ledger."""
    from ..store import db
    from ..base import paths
    from ..memory import snapshot
    from ..memory.capture import read_log
    import sqlite3

    from ..base.errors import StoreError
    from ..base.ids import now_iso
    from ..base.project import detect
    from .budget import defer, lock_wait

    if not os.path.exists(paths.db_file()) or _off(payload.cwd):
        return None
    prompts = snapshot.recent_prompts(payload.transcript_path) if payload.transcript_path else []
    project = detect(payload.cwd)
    log = read_log(payload.session_id) if payload.session_id else []
    body = snapshot.compose(prompts, log, when=f"before {payload.trigger or 'a'} compaction at {now_iso()}",
                            root=project.root_dir)
    if not body:
        return None
    if payload.session_id:
        snapshot.leave_for_compaction(payload.session_id, body)
    try:
        conn = db.connect(paths.db_file(), timeout=lock_wait("pre-compact"))
        try:
            snapshot.save(conn, project.id, payload.session_id, body, SNAPSHOT_TITLE, log)
        finally:
            conn.close()
    except (StoreError, sqlite3.Error) as exc:  # locked past the budget, or a statement failed: queued
        defer("pre-compact", {"event": "PreCompact", "write": "snapshot", "session_id": payload.session_id,
                              "project_id": project.id, "title": SNAPSHOT_TITLE, "body": body}, exc)
    return None


def session_end(payload: "Payload") -> None:
    """Close the session, drop the dedup file, spawn `agentctx consolidate`; returns at once (1.5 s budget).

    The consolidation starts whatever happens before it (a locked store, the watchdog): it is what drains a
    session end the store could not take in time."""
    from ..memory import open_sessions
    from ..base import paths
    from ..base.spawn import agentctx_argv, detached

    off = False
    try:
        if payload.session_id:
            open_sessions.mark_closed(payload.session_id)  # it ended normally: nobody needs to close it later
            for done in (paths.dedup_file(payload.session_id), paths.actions_file(payload.session_id)):
                try:  # the prompt hook's dedup and the pre-action hook's notes: nothing follows a session's end
                    os.unlink(done)
                except OSError:
                    pass
        off = _off(payload.cwd)  # off: no session row, no consolidation (and so no final extraction)
        if not off and os.path.exists(paths.db_file()) and payload.session_id:
            _end_session(payload)
    finally:
        if not off:
            argv = agentctx_argv("consolidate")
            if payload.session_id:
                argv += ["--session-id", payload.session_id]
                if payload.transcript_path:
                    argv += ["--transcript", payload.transcript_path]
            detached(argv, cwd=payload.cwd)
    return None


def _end_session(payload: "Payload") -> None:
    """Queue the session's end in the pending ledger: SessionEnd opens no database (a store held by another program
    cost it its 1.5 s budget on a loaded machine); the consolidation it spawns drains the row first thing."""
    from ..base.ids import now_iso
    from ..base.project import detect
    from . import log, record_pending

    row = {"event": "SessionEnd", "write": "session_end", "session_id": payload.session_id,
           "project_id": detect(payload.cwd).id, "ended_at": now_iso(), "agent": payload.agent}
    if not record_pending(row):
        log("session-end", "the pending ledger could not be written: the session's end is left to consolidation")
