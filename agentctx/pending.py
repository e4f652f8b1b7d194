"""Writes a hook deferred to the pending ledger (the store was locked past its budget), replayed by the drain."""

from __future__ import annotations

import sqlite3
from typing import Any, Callable


def _snapshot(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    from . import snapshot

    snapshot.save(conn, str(row["project_id"]), row.get("session_id") or None, str(row["body"]), str(row["title"]))


def _capture(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    from .capture import Observation, store

    fields = ("kind", "command", "detail", "outcome", "path")
    observations = [Observation(**{k: str(o.get(k) or "") for k in fields}) for o in row["observations"]
                    if isinstance(o, dict) and o.get("kind")]
    store(conn, str(row["project_id"]), row.get("session_id") or "", observations)


def _session_end(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    from .store import sessions

    at = row.get("ended_at") if isinstance(row.get("ended_at"), str) else None
    sessions.end(conn, str(row["session_id"]), str(row["project_id"]), at=at)


# The `write` field of a deferred row -> what applies it (inside the drain's transaction).
REPLAY: dict[str, Callable[[sqlite3.Connection, dict[str, Any]], None]] = {
    "snapshot": _snapshot,
    "capture": _capture,
    "session_end": _session_end,
}


def replay(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    """Apply one deferred write; KeyError for a kind this version does not know (the drain skips the row)."""
    REPLAY[row["write"]](conn, row)
