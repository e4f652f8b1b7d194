"""Embedding SQL: the derived float32 BLOB table, the backfill queue, visible vectors, sqlite-vec's cosine scan."""

from __future__ import annotations

import sqlite3
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Sequence

from . import COLUMNS, N_COLUMNS, to_record
from .db import atomic
from .retrieval import _filters

if TYPE_CHECKING:
    from ..base.models import Record


def has_table(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'").fetchone()
    return row is not None


def pending(conn: sqlite3.Connection, model: str, dims: int, limit: int) -> list[tuple[str, str, str]]:
    """(id, title, body) of records with no usable vector for `model`: flagged, missing, or of other dimensions.

    Current records first, newest first: those are the ones searches return.
    """
    rows = conn.execute(
        "SELECT r.id, r.title, r.body FROM records r "
        "LEFT JOIN embeddings e ON e.record_id = r.id AND e.model = ? "
        "WHERE e.record_id IS NULL OR e.dims != ? OR r.pending_embedding = 1 "
        "ORDER BY (r.superseded_at IS NULL) DESC, r.id DESC LIMIT ?",
        (model, dims, limit),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def pending_count(conn: sqlite3.Connection, model: str, dims: int) -> int:
    row = conn.execute(
        "SELECT count(*) FROM records r LEFT JOIN embeddings e ON e.record_id = r.id AND e.model = ? "
        "WHERE e.record_id IS NULL OR e.dims != ? OR r.pending_embedding = 1",
        (model, dims),
    ).fetchone()
    return int(row[0])


def put(conn: sqlite3.Connection, model: str, dims: int, items: Sequence[tuple[str, bytes]]) -> int:
    """Store one batch of vectors and clear their records' pending flag, in one transaction (a resumable step)."""
    if not items:
        return 0
    with atomic(conn):
        # A record deleted while its batch was being embedded is skipped, not an integrity error.
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings (record_id, model, dims, vector) "
            "SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM records WHERE id = ?)",
            [(rid, model, dims, blob, rid) for rid, blob in items],
        )
        conn.executemany("UPDATE records SET pending_embedding = 0 WHERE id = ? AND pending_embedding != 0",
                         [(rid,) for rid, _ in items])
    return len(items)


def drop_other_models(conn: sqlite3.Connection, model: str) -> int:
    """Vectors of any other model are in another space and useless to search: drop them (they are derived)."""
    with atomic(conn):
        return conn.execute("DELETE FROM embeddings WHERE model != ?", (model,)).rowcount


def reset(conn: sqlite3.Connection) -> int:
    """Forget every vector and flag every record for embedding (`agentctx embed --rebuild`)."""
    with atomic(conn):
        dropped = conn.execute("DELETE FROM embeddings").rowcount
        conn.execute("UPDATE records SET pending_embedding = 1 WHERE pending_embedding != 1")
    return dropped


def stats(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """(model, dims, rows) per stored model and dimension."""
    rows = conn.execute("SELECT model, dims, count(*) FROM embeddings GROUP BY model, dims ORDER BY count(*) DESC")
    return [(r[0], int(r[1]), int(r[2])) for r in rows]


def record_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM records").fetchone()[0])


def visible(conn: sqlite3.Connection, model: str, dims: int, project_id: str, *, types: Sequence[str] = (),
            history: bool = False, scope: str | None = None) -> list[tuple[str, bytes]]:
    """(record id, vector BLOB) of every record the search may return, for the NumPy scan."""
    where, args = _filters(project_id, types, history, scope)
    rows = conn.execute(
        f"SELECT e.record_id, e.vector FROM embeddings e JOIN records r ON r.id = e.record_id "
        f"WHERE e.model = ? AND e.dims = ? AND {where}",
        [model, dims, *args],
    )
    return [(r[0], r[1]) for r in rows]


def nearest(conn: sqlite3.Connection, model: str, dims: int, query: bytes, project_id: str, *,
            types: Sequence[str] = (), history: bool = False, scope: str | None = None,
            limit: int = 50) -> list[tuple[str, float]]:
    """(record id, cosine similarity), best first, computed in SQL by sqlite-vec (the extension must be loaded)."""
    where, args = _filters(project_id, types, history, scope)
    rows = conn.execute(
        f"SELECT e.record_id, vec_distance_cosine(e.vector, ?) AS d FROM embeddings e "
        f"JOIN records r ON r.id = e.record_id WHERE e.model = ? AND e.dims = ? AND {where} "
        f"ORDER BY d, e.record_id LIMIT ?",
        [query, model, dims, *args, limit],
    )
    return [(r[0], 1.0 - float(r[1])) for r in rows]


def vectors_of(conn: sqlite3.Connection, model: str, ids: Iterable[str]) -> dict[str, bytes]:
    id_list = list(dict.fromkeys(ids))
    out: dict[str, bytes] = {}
    for i in range(0, len(id_list), 500):
        chunk = id_list[i:i + 500]
        rows = conn.execute(f"SELECT record_id, vector FROM embeddings WHERE model = ? AND record_id IN "
                            f"({','.join('?' * len(chunk))})", [model, *chunk])
        out.update((r[0], r[1]) for r in rows)
    return out


def records_by_id(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, Record]:
    id_list = list(dict.fromkeys(ids))
    out: dict[str, Record] = {}
    for i in range(0, len(id_list), 500):
        chunk = id_list[i:i + 500]
        rows = conn.execute(f"SELECT {COLUMNS} FROM records WHERE id IN ({','.join('?' * len(chunk))})", chunk)
        for row in rows:
            record = to_record(row)
            out[record.id] = record
    return out


def current_with_vectors(conn: sqlite3.Connection, model: str, project_id: str) -> list[tuple[Record, bytes]]:
    """The project's own current records with their vectors (the near-duplicate scan of consolidation)."""
    rows = conn.execute(
        f"SELECT {', '.join('r.' + c.strip() for c in COLUMNS.split(','))}, e.vector FROM records r "
        f"JOIN embeddings e ON e.record_id = r.id AND e.model = ? "
        f"WHERE r.project_id = ? AND r.superseded_at IS NULL ORDER BY r.id",
        (model, project_id),
    )
    return [(to_record(row), row[N_COLUMNS]) for row in rows]


def linked_pairs(conn: sqlite3.Connection, project_id: str, rel_type: str) -> set[tuple[str, str]]:
    """(from, to) of the project's record edges of one kind: near-duplicate pairs consolidation already handled."""
    rows = conn.execute(
        "SELECT e.from_id, e.to_id FROM edges e JOIN records r ON r.id = e.from_id "
        "WHERE e.rel_type = ? AND r.project_id = ?", (rel_type, project_id))
    return {(r[0], r[1]) for r in rows}
