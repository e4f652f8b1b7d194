"""Re-scrubbing stored records after the secret rules change: the one place record text is rewritten in place."""

from __future__ import annotations

import sqlite3
from typing import Callable

from ..db import atomic


def rescrub(conn: sqlite3.Connection, scrub: Callable[[str], str], *, fts: bool) -> int:
    """Apply `scrub` to every record's title and body, rewriting those it changes; returns how many changed.

    A secret must leave the file, not only the rows: freed pages are zeroed (`secure_delete`), the FTS index is
    merged so no old segment keeps its tokens, and the WAL is checkpointed and truncated."""
    changed = []
    for rowid, title, body in conn.execute("SELECT rowid, title, body FROM records"):
        new_title, new_body = scrub(title), scrub(body)
        if (new_title, new_body) != (title, body):
            changed.append((new_title, new_body, rowid))
    if not changed:
        return 0
    conn.execute("PRAGMA secure_delete = ON")
    with atomic(conn):
        conn.executemany("UPDATE records SET title = ?, body = ? WHERE rowid = ?", changed)
        if fts:
            conn.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return len(changed)
