"""The user's corrections: records written since a time (review), confirmation, and forgetting a whole chain."""

import sqlite3
from collections.abc import Iterable

from ..base.models import Record
from . import COLUMNS, CURRENT, VISIBLE, to_record
from .db import atomic
from .records import history, require


def written_since(conn: sqlite3.Connection, project_id: str, since: str | None, *,
                  skip: Iterable[str] = ()) -> list[Record]:
    """Current visible records recorded after `since` (all with None), inferred first, then newest first."""
    sql = f"SELECT {COLUMNS} FROM records WHERE {VISIBLE} AND {CURRENT}"
    args: list[object] = [project_id]
    if since:
        sql += " AND recorded_at > ?"
        args.append(since)
    sql += " ORDER BY confidence != 'inferred', recorded_at DESC, id DESC"
    skipped = set(skip)
    return [r for r in map(to_record, conn.execute(sql, args)) if r.id not in skipped]


def confirm(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    """The user confirms a current record: it becomes explicit (an inferred record is no longer a hypothesis)."""
    record = require(conn, record_id, project_id)
    if record.superseded_at is not None:
        from ..base.errors import ConflictError
        from .records import head

        raise ConflictError("already_superseded", id=record.id, superseded_by=record.superseded_by,
                            head=head(conn, record).id)
    with atomic(conn):
        conn.execute("UPDATE records SET confidence = 'explicit' WHERE id = ? AND confidence != 'explicit'",
                     (record.id,))
    return record.replace(confidence="explicit")


def forget(conn: sqlite3.Connection, record_id: str, project_id: str) -> list[Record]:
    """Delete a record together with its whole supersession chain (earlier and later versions), in one
    transaction; returns what was deleted, oldest first. Edges touching them go too; links and vectors cascade."""
    chain = history(conn, record_id, project_id)
    ids = [r.id for r in chain]
    while True:  # consolidation folds several copies into one: a version may have more than one predecessor
        marks = ",".join("?" * len(ids))
        more = [to_record(row) for row in conn.execute(
            f"SELECT {COLUMNS} FROM records WHERE superseded_by IN ({marks}) AND id NOT IN ({marks})", ids + ids)]
        if not more:
            break
        chain += more
        ids += [r.id for r in more]
    chain.sort(key=lambda r: (r.recorded_at, r.id))
    with atomic(conn):
        conn.execute(f"UPDATE records SET superseded_by = NULL WHERE id IN ({marks})", ids)
        conn.execute(f"DELETE FROM edges WHERE from_id IN ({marks}) OR to_id IN ({marks})", ids + ids)
        conn.execute(f"DELETE FROM records WHERE id IN ({marks})", ids)
    return chain


def visible_texts(conn: sqlite3.Connection, project_id: str) -> list[tuple[str, str, str]]:
    """(title, body, source) of every record the project can see, superseded ones included (import dedup)."""
    return list(conn.execute(f"SELECT title, body, source FROM records WHERE {VISIBLE}", (project_id,)))
