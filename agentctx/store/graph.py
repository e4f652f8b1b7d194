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


def file_links(conn: sqlite3.Connection, project_id: str, node_id: str, *,
               superseded: bool = False) -> dict[str, int]:
    """The current records visible from the project that are linked to a file node (and the superseded ones too with
    `superseded`), each with how many file nodes it is linked to in all (a record shown in every session is linked
    to every file those sessions edited)."""
    current = "" if superseded else "AND r.superseded_at IS NULL"
    rows = conn.execute(
        f"""SELECT re.record_id,
                  (SELECT count(*) FROM record_entities x JOIN nodes n ON n.id = x.entity_id AND n.kind = 'file'
                    WHERE x.record_id = re.record_id)
             FROM record_entities re JOIN records r ON r.id = re.record_id
            WHERE re.entity_id = ? {current}
              AND (r.project_id = ? OR (r.project_id = '_global' AND r.scope = 'global'))""",
        (node_id, project_id))
    return {str(rid): int(n) for rid, n in rows}


def heads(conn: sqlite3.Connection, ids: "Iterable[str]") -> dict[str, str]:
    """{superseded record id: the current record at the end of its chain} for the ids among `ids` that were
    superseded by another record (a retired one, superseded by nothing, has no head and is left out)."""
    out: dict[str, str] = {}
    step = {}
    pending = sorted(set(ids))
    for _ in range(64):  # chains are short; a cycle (never written, but data is data) ends here
        if not pending:
            break
        nxt: list[str] = []
        for i in range(0, len(pending), 500):
            chunk = pending[i:i + 500]
            for rid, by, at in conn.execute(
                    f"SELECT id, superseded_by, superseded_at FROM records WHERE id IN ({','.join('?' * len(chunk))})",
                    chunk):
                step[str(rid)] = (str(by) if by else None, at is not None)
                if by and str(by) not in step:
                    nxt.append(str(by))
        pending = sorted(set(nxt))
    for rid in set(ids):
        cur, seen = rid, {rid}
        while cur in step and step[cur][1] and step[cur][0] and step[cur][0] not in seen:
            cur = step[cur][0]
            seen.add(cur)
        if cur != rid and cur in step and not step[cur][1]:
            out[rid] = cur
    return out


def edges_of(conn: sqlite3.Connection, ids: "Iterable[str]") -> list[tuple[str, str, str, float]]:
    """Every edge with an end in `ids`: (from, to, rel_type, weight)."""
    wanted = sorted(set(ids))
    out: list[tuple[str, str, str, float]] = []
    for i in range(0, len(wanted), 400):  # under SQLite's bound-parameter limit, both ends
        chunk = wanted[i:i + 400]
        marks = ",".join("?" * len(chunk))
        out += conn.execute(f"SELECT from_id, to_id, rel_type, weight FROM edges WHERE from_id IN ({marks}) "
                            f"OR to_id IN ({marks})", (*chunk, *chunk)).fetchall()
    return [(str(a), str(b), str(rel), float(w if w is not None else 1.0)) for a, b, rel, w in out]


def naming(conn: sqlite3.Connection, project_id: str, needles: "Iterable[str]", limit: int = 200, *,
           superseded: bool = False) -> list[Record]:
    """Current visible records whose title or body contains one of `needles` (case-sensitive, as paths are); the
    superseded versions too with `superseded`."""
    needles = [n for n in dict.fromkeys(needles) if n]
    if not needles:
        return []
    cols = ", ".join(f"r.{c.strip()}" for c in COLUMNS.split(","))
    test = " OR ".join("instr(r.title, ?) > 0 OR instr(r.body, ?) > 0" for _ in needles)
    current = "1" if superseded else "r.superseded_at IS NULL"
    rows = conn.execute(
        f"SELECT {cols} FROM records r WHERE {current} "
        f"AND (r.project_id = ? OR (r.project_id = '_global' AND r.scope = 'global')) AND ({test}) "
        f"ORDER BY r.recorded_at DESC LIMIT ?", (project_id, *[n for n in needles for _ in (0, 1)], limit))
    return [to_record(row) for row in rows]


def current_records(conn: sqlite3.Connection, project_id: str, ids: "Iterable[str]") -> dict[str, Record]:
    """The current records among `ids` visible from the project, by id."""
    wanted = sorted(set(ids))
    cols = ", ".join(f"r.{c.strip()}" for c in COLUMNS.split(","))
    found: dict[str, Record] = {}
    for i in range(0, len(wanted), 500):
        chunk = wanted[i:i + 500]
        rows = conn.execute(
            f"SELECT {cols} FROM records r WHERE r.id IN ({','.join('?' * len(chunk))}) AND r.superseded_at IS NULL "
            "AND (r.project_id = ? OR (r.project_id = '_global' AND r.scope = 'global'))", (*chunk, project_id))
        for row in rows:
            record = to_record(row)
            found[record.id] = record
    return found
