"""The expansion pass's SQL: records still without questions and aliases, and what each attempt on one did."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from ..base.ids import sha256_hex, to_iso
from ..base.models import Record
from . import COLUMNS, CURRENT, N_COLUMNS, VISIBLE, to_record
from .db import atomic


def stamp(title: str, body: str) -> str:
    """A fingerprint of the text an attempt saw: a record whose text changed since is tried again."""
    return sha256_hex(f"{title}\n{body}")[:16]


def due(conn: sqlite3.Connection, project_id: str | None, types: Sequence[str], *, limit: int,
        now: datetime) -> list[Record]:
    """Current records of `types` with neither questions nor aliases, newest first, visible from `project_id` (every
    namespace with None), leaving out those an earlier attempt on the same text says to leave for now."""
    if limit <= 0:
        return []
    where = f"{CURRENT} AND questions = '' AND aliases = '' AND type IN ({','.join('?' * len(types))})"
    args: list[object] = list(types)
    if project_id is not None:
        where += f" AND {VISIBLE}"
        args.append(project_id)
    sql = (f"SELECT {COLUMNS}, a.stamp, a.retry_at FROM records LEFT JOIN expansion_attempts a ON a.record_id = id "
           f"WHERE {where} ORDER BY recorded_at DESC, id DESC")
    when = to_iso(now)
    found: list[Record] = []
    # Filtered here, not in SQL: the fingerprint is a hash SQLite cannot compute. Rows are read lazily, so a pass
    # stops reading once it has `limit` records.
    for row in conn.execute(sql, args):
        record = to_record(row)
        seen, retry_at = row[N_COLUMNS], row[N_COLUMNS + 1]
        if seen is None or seen != stamp(record.title, record.body) or (retry_at is not None and retry_at <= when):
            found.append(record)
            if len(found) >= limit:
                break
    return found


def tried_since(conn: sqlite3.Connection, since: datetime) -> int:
    """Records sent to a model since `since` (every project: the daily bound is the user's, not a project's)."""
    return int(conn.execute("SELECT count(*) FROM expansion_attempts WHERE last_at >= ?",
                            (to_iso(since),)).fetchone()[0])


def mark(conn: sqlite3.Connection, outcomes: Iterable[tuple[Record, str | None]], *, now: datetime,
         retry_after: Sequence[timedelta]) -> None:
    """Remember each record's attempt: (record, None) for one that got its questions or aliases, (record, why) for
    a failure. The n-th failure on the same text is retried after `retry_after[n - 1]`; past the last one it is
    not retried (until its text changes)."""
    from ..base.redact import scrub_text

    when = to_iso(now)
    with atomic(conn):
        for record, failure in outcomes:
            failure = scrub_text(failure) if failure else failure  # a client's or the CLI's words
            fingerprint = stamp(record.title, record.body)
            row = conn.execute("SELECT stamp, attempts FROM expansion_attempts WHERE record_id = ?",
                               (record.id,)).fetchone()
            attempts = (int(row[1]) + 1) if row is not None and row[0] == fingerprint else 1
            if failure is None:
                retry_at, outcome = None, "ok"
            elif attempts <= len(retry_after):
                retry_at, outcome = to_iso(now + retry_after[attempts - 1]), failure[:200]
            else:
                retry_at, outcome = None, f"gave up: {failure}"[:200]
            conn.execute(
                "INSERT INTO expansion_attempts (record_id, stamp, attempts, last_at, retry_at, outcome) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(record_id) DO UPDATE SET stamp = excluded.stamp, "
                "attempts = excluded.attempts, last_at = excluded.last_at, retry_at = excluded.retry_at, "
                "outcome = excluded.outcome",
                (record.id, fingerprint, attempts, when, retry_at, outcome))


def attempt(conn: sqlite3.Connection, record_id: str) -> dict[str, object] | None:
    """The remembered attempt on one record (None if it was never sent)."""
    row = conn.execute("SELECT stamp, attempts, last_at, retry_at, outcome FROM expansion_attempts "
                       "WHERE record_id = ?", (record_id,)).fetchone()
    if row is None:
        return None
    return {"stamp": row[0], "attempts": int(row[1]), "last_at": row[2], "retry_at": row[3], "outcome": row[4]}


def prune(conn: sqlite3.Connection, before: datetime) -> int:
    """Forget attempts older than `before` on records that are gone or no longer current (kept until then: the
    daily bound counts them)."""
    with atomic(conn):
        return conn.execute(
            "DELETE FROM expansion_attempts WHERE last_at < ? AND record_id NOT IN "
            f"(SELECT id FROM records WHERE {CURRENT})", (to_iso(before),)).rowcount
