"""Records marked "before" (SPEC §4.11): an edit one governs is stopped once in a session where it has not reached the
model, with the record as the reason. A mark on a superseded record applies to its current head; '*' marks the
whole project."""

from __future__ import annotations

import sqlite3

from ..base.ids import now_iso
from .db import atomic

PROJECT = "*"  # the record id that marks every anchored record of the project


def set_mark(conn: sqlite3.Connection, project_id: str, record_id: str, on: bool) -> bool:
    """Mark (or unmark) one record, or the project with PROJECT; True when something changed."""
    with atomic(conn):
        if on:
            cur = conn.execute("INSERT OR IGNORE INTO before_marks (project_id, record_id, marked_at) VALUES (?, ?, ?)",
                               (project_id, record_id, now_iso()))
        else:
            cur = conn.execute("DELETE FROM before_marks WHERE project_id = ? AND record_id = ?",
                               (project_id, record_id))
    changed = cur.rowcount > 0
    if changed:
        from .records import _changed

        _changed(conn, project_id)  # the anchor map carries the marks
    return changed


def _head(conn: sqlite3.Connection, record_id: str) -> str:
    """The current record a chain of supersessions from `record_id` leads to (bounded)."""
    seen = {record_id}
    rid = record_id
    for _ in range(64):
        row = conn.execute("SELECT superseded_by FROM records WHERE id = ?", (rid,)).fetchone()
        if not row or not row[0] or row[0] in seen:
            return rid
        rid = row[0]
        seen.add(rid)
    return rid


def marks(conn: sqlite3.Connection, project_id: str) -> set[str]:
    """The marked ids of the project, each as its current head (PROJECT among them when the project is marked)."""
    rows = conn.execute("SELECT record_id FROM before_marks WHERE project_id = ?", (project_id,)).fetchall()
    return {r[0] if r[0] == PROJECT else _head(conn, r[0]) for r in rows}
