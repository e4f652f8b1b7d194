"""The entity graph: nodes (files, branches, ...), typed edges, record links, and related-record walks."""

from __future__ import annotations

import sqlite3
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

from ..base.errors import ValidationError
from ..base.ids import ulid
from ..base.models import NODE_KINDS, REL_TYPES, Record
from . import COLUMNS, to_record
from .db import atomic

MAX_DEPTH = 6


def upsert_node(conn: sqlite3.Connection, project_id: str, kind: str, name: str) -> str:
    """The id of the (project, kind, name) node, created if new."""
    if kind not in NODE_KINDS:
        raise ValidationError("invalid_field", field="kind", problem=f"must be one of {', '.join(NODE_KINDS)}")
    with atomic(conn):
        conn.execute("INSERT OR IGNORE INTO nodes (id, project_id, kind, name) VALUES (?, ?, ?, ?)",
                     (ulid(), project_id, kind, name))
        row = conn.execute("SELECT id FROM nodes WHERE project_id = ? AND kind = ? AND name = ?",
                           (project_id, kind, name)).fetchone()
    return str(row[0])


def find_node(conn: sqlite3.Connection, project_id: str, kind: str, name: str) -> str | None:
    row = conn.execute("SELECT id FROM nodes WHERE project_id = ? AND kind = ? AND name = ?",
                       (project_id, kind, name)).fetchone()
    return str(row[0]) if row else None


def add_edge(conn: sqlite3.Connection, from_id: str, to_id: str, rel_type: str, weight: float = 1.0) -> None:
    if rel_type not in REL_TYPES:
        raise ValidationError("invalid_field", field="rel_type", problem=f"must be one of {', '.join(REL_TYPES)}")
    with atomic(conn):
        conn.execute("INSERT OR IGNORE INTO edges (id, from_id, to_id, rel_type, weight) VALUES (?, ?, ?, ?, ?)",
                     (ulid(), from_id, to_id, rel_type, weight))


def link(conn: sqlite3.Connection, record_id: str, entity_ids: Iterable[str]) -> None:
    """Attach a record to entities (record_entities)."""
    with atomic(conn):
        conn.executemany("INSERT OR IGNORE INTO record_entities (record_id, entity_id) VALUES (?, ?)",
                         [(record_id, e) for e in entity_ids])


def related(conn: sqlite3.Connection, project_id: str, node_id: str, *, depth: int = 3, limit: int = 15) -> list[Record]:
    """Current records reachable from a node through record links and edges (either direction), nearest first.

    The walk is cycle-safe (UNION de-duplicates visited ids) and depth-guarded.
    """
    depth = max(1, min(depth, MAX_DEPTH))
    cols = ", ".join(f"r.{c.strip()}" for c in COLUMNS.split(","))
    sql = f"""
        WITH RECURSIVE walk(id, d) AS (
            SELECT ?, 0
            UNION
            SELECT CASE WHEN e.from_id = walk.id THEN e.to_id ELSE e.from_id END, walk.d + 1
              FROM edges e JOIN walk ON e.from_id = walk.id OR e.to_id = walk.id
             WHERE walk.d < ?
            UNION
            SELECT re.record_id, walk.d + 1 FROM record_entities re JOIN walk ON re.entity_id = walk.id
             WHERE walk.d < ?
            UNION
            SELECT re.entity_id, walk.d + 1 FROM record_entities re JOIN walk ON re.record_id = walk.id
             WHERE walk.d < ?
        ),
        best(id, d) AS (SELECT id, min(d) FROM walk GROUP BY id)
        SELECT {cols} FROM best JOIN records r ON r.id = best.id
         WHERE r.superseded_at IS NULL
           AND (r.project_id = ? OR (r.project_id = '_global' AND r.scope = 'global'))
         ORDER BY best.d, r.recorded_at DESC
         LIMIT ?
    """
    rows = conn.execute(sql, (node_id, depth, depth, depth, project_id, limit))
    return [to_record(row) for row in rows]


def record_ids_for_node(conn: sqlite3.Connection, node_id: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT record_id FROM record_entities WHERE entity_id = ?", (node_id,))}
