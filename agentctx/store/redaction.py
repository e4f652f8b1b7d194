"""Re-scrubbing stored text after the secret rules change (records, and the prompts the dashboard shows): the one
place it is rewritten in place."""

from __future__ import annotations

import sqlite3
from typing import Callable

from .db import atomic


def rescrub(conn: sqlite3.Connection, scrub: Callable[[str], str], *, fts: bool) -> int:
    """Apply `scrub` to every record's title, body, questions and aliases, every kept prompt and every outcome of a
    model call (extraction_calls, expansion_attempts: a failure's text from the client or the `claude` CLI),
    rewriting those it changes; returns how many records changed.

    A secret must leave the file, not only the rows: freed pages are zeroed (`secure_delete`), the FTS index is
    merged so no old segment keeps its tokens, and the WAL is checkpointed and truncated."""
    changed = []
    for rowid, *old in conn.execute("SELECT rowid, title, body, questions, aliases FROM records"):
        new = [scrub(value) if value else value for value in old]
        if new != old:
            changed.append((*new, rowid))
    prompts = [(new, rowid) for rowid, text in conn.execute("SELECT rowid, text FROM prompts")
               if (new := scrub(text)) != text]
    outcomes = {table: [(new, rowid) for rowid, text in conn.execute(f"SELECT rowid, outcome FROM {table}")
                        if text and (new := scrub(text)) != text]
                for table in ("extraction_calls", "expansion_attempts")}
    if not changed and not prompts and not any(outcomes.values()):
        return 0
    conn.execute("PRAGMA secure_delete = ON")
    with atomic(conn):
        conn.executemany("UPDATE records SET title = ?, body = ?, questions = ?, aliases = ? WHERE rowid = ?", changed)
        conn.executemany("UPDATE prompts SET text = ? WHERE rowid = ?", prompts)
        for table, rows in outcomes.items():
            conn.executemany(f"UPDATE {table} SET outcome = ? WHERE rowid = ?", rows)
        if fts and changed:
            conn.execute("INSERT INTO records_fts(records_fts) VALUES ('optimize')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return len(changed)


# What `rescrub` covers: a new place in it runs the pass once more, over text stored before it was covered.
SCOPE = "records,prompts,outcomes"


def rescrub_store(conn: sqlite3.Connection) -> int | None:
    """Once per rule change: scrub every stored record again (records written before a rule existed keep no
    secret it now catches). Returns how many records changed, or None when the rules have not changed."""
    import os

    from ..base import paths
    from ..base.redact import rules_id, scrub_text
    from . import db

    stamp = os.path.join(paths.state_dir_str(), "redaction-rules")
    current = f"{rules_id()} {SCOPE}"
    try:
        with open(stamp, encoding="utf-8") as fh:
            if fh.read().strip() == current:
                return None
    except OSError:
        pass
    changed = rescrub(conn, scrub_text, fts=db.has_fts(conn))
    from ..base.userfiles import atomic_write

    paths.ensure_private_dir(paths.state_dir())
    atomic_write(stamp, current + "\n", mode=0o600)
    return changed
