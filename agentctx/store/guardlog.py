"""Guard changes: who made, changed, lifted or carried a record's guard, and when (`history` shows them)."""

import sqlite3

from ..base.ids import now_iso

# The surfaces through which the user changes a guard (SPEC §4.11). Any other writer that supersedes a guarded record
# (an agent through MCP, extraction, a team or rule-file import) leaves the guard on the new head, scope unchanged.
USER_SOURCES = frozenset({"cli", "dashboard"})


def note(conn: sqlite3.Connection, record_id: str, by: str, guard: str, text: str = "", at: str | None = None) -> None:
    """One change, in the caller's transaction."""
    conn.execute("INSERT INTO guard_changes (record_id, at, by, guard, note) VALUES (?, ?, ?, ?, ?)",
                 (record_id, at or now_iso(), by, guard, text))


def changes(conn: sqlite3.Connection, record_ids: "list[str]") -> "dict[str, list[dict[str, str]]]":
    """Record id -> its guard changes, oldest first ({at, by, guard, note}; guard "" is a lift)."""
    out: dict[str, list[dict[str, str]]] = {}
    for start in range(0, len(record_ids), 500):
        chunk = record_ids[start:start + 500]
        rows = conn.execute(f"SELECT record_id, at, by, guard, note FROM guard_changes WHERE record_id IN "
                            f"({','.join('?' * len(chunk))}) ORDER BY id", chunk)
        for rid, at, by, guard, text in rows:
            out.setdefault(rid, []).append({"at": at, "by": by, "guard": guard, "note": text})
    return out
