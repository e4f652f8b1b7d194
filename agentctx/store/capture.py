"""SQL for deterministic capture and consolidation: session records, open stubs, score decay, duplicate scan."""

from __future__ import annotations

import json
import sqlite3
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

from ..base.models import Record
from . import COLUMNS, CURRENT, to_record
from .db import atomic


def session_record_ids(conn: sqlite3.Connection, project_id: str, session_id: str) -> list[str]:
    """Current records a session produced in this project (the ones its files are linked to)."""
    # "+project_id": without statistics the planner would walk the project's whole index instead of the session's.
    rows = conn.execute(f"SELECT id FROM records WHERE session_id = ? AND +project_id = ? AND {CURRENT}",
                        (session_id, project_id))
    return [r[0] for r in rows]


def injected_ids(conn: sqlite3.Connection, project_id: str, session_id: str) -> list[str]:
    """Current records of the project the ledger says were injected into a session (digest and prompts)."""
    ids: list[str] = []
    for (raw,) in conn.execute("SELECT record_ids FROM injections WHERE session_id = ?", (session_id,)):
        try:
            ids.extend(i for i in json.loads(raw) if isinstance(i, str))
        except (ValueError, TypeError):
            continue
    return current_of(conn, project_id, ids)


def current_of(conn: sqlite3.Connection, project_id: str, ids: "Iterable[str]") -> list[str]:
    """Those of `ids` that are current records of the project's own namespace, in the given order."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return []
    marks = ", ".join("?" * len(wanted))
    found = {r[0] for r in conn.execute(f"SELECT id FROM records WHERE id IN ({marks}) AND project_id = ? AND "
                                        f"{CURRENT}", (*wanted, project_id))}
    return [i for i in wanted if i in found]


def current_by_title(conn: sqlite3.Connection, project_id: str, type_: str, title: str) -> Record | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND type = ? AND title = ? AND {CURRENT} "
                       "ORDER BY +recorded_at DESC LIMIT 1", (project_id, type_, title)).fetchone()  # use the title index
    return to_record(row) if row else None


def open_stubs_of(conn: sqlite3.Connection, project_id: str, title_prefix: str, body_prefix: str) -> list[Record]:
    """Current captured bugfix stubs of a project whose title and body start with the given texts, oldest first."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND type = 'bugfix' AND "
                        "source = 'hook_observation' AND substr(title, 1, ?) = ? AND substr(body, 1, ?) = ? AND "
                        f"{CURRENT} ORDER BY recorded_at, id",
                        (project_id, len(title_prefix), title_prefix, len(body_prefix), body_prefix))
    return [to_record(r) for r in rows]


def entity_ids(conn: sqlite3.Connection, record_id: str) -> list[str]:
    """The graph nodes (files, branches) a record is linked to."""
    return [r[0] for r in conn.execute("SELECT entity_id FROM record_entities WHERE record_id = ? ORDER BY entity_id",
                                       (record_id,))]


def link_all(conn: sqlite3.Connection, record_ids: Iterable[str], node_ids: Iterable[str]) -> None:
    pairs = [(r, n) for r in record_ids for n in node_ids]
    if pairs:
        with atomic(conn):
            conn.executemany("INSERT OR IGNORE INTO record_entities (record_id, entity_id) VALUES (?, ?)", pairs)


def session_handover(conn: sqlite3.Connection, project_id: str, session_id: str) -> Record | None:
    """The handover this session wrote, if it is still the current one."""
    row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND type = 'handover' AND session_id = ? "
                       f"AND {CURRENT} LIMIT 1", (project_id, session_id)).fetchone()
    return to_record(row) if row else None


def promote_reinforced(conn: sqlite3.Connection, threshold: int) -> int:
    """inferred -> reinforced once a record was seen in `threshold` sessions: its own and `reinforce_count` others
    (SPEC §3.3); one-way."""
    where = f"confidence = 'inferred' AND reinforce_count + 1 >= ? AND {CURRENT}"
    with atomic(conn):
        touched = [r[0] for r in conn.execute(f"SELECT DISTINCT project_id FROM records WHERE {where}", (threshold,))]
        cur = conn.execute(f"UPDATE records SET confidence = 'reinforced' WHERE {where}", (threshold,))
    from .records import _changed

    for project_id in touched:
        _changed(conn, project_id)
    return cur.rowcount


def decay_inputs(conn: sqlite3.Connection, project_id: str | None) -> list[tuple[str, str, str, int, float]]:
    """(id, type, recorded_at, pinned, score) of current records, of one project or all."""
    sql = f"SELECT id, type, recorded_at, pinned, score FROM records WHERE {CURRENT}"
    args: tuple[object, ...] = ()
    if project_id is not None:
        sql += " AND project_id IN (?, '_global')"
        args = (project_id,)
    return [tuple(r) for r in conn.execute(sql, args)]  # type: ignore[misc]


def set_scores(conn: sqlite3.Connection, scores: list[tuple[float, str]]) -> None:
    if scores:
        with atomic(conn):
            conn.executemany("UPDATE records SET score = ? WHERE id = ?", scores)


def duplicate_groups(conn: sqlite3.Connection, project_id: str) -> list[list[Record]]:
    """Current records of a namespace that say the same thing (type, title, body equal ignoring case and spacing)."""
    rows = [to_record(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id IN (?, '_global') AND {CURRENT} ORDER BY recorded_at, id",
        (project_id,))]
    groups: dict[tuple[str, str, str, str], list[Record]] = {}
    for r in rows:
        key = (r.project_id, r.type, " ".join(r.title.lower().split()), " ".join(r.body.lower().split()))
        groups.setdefault(key, []).append(r)
    return [g for g in groups.values() if len(g) > 1]


def fold_duplicate(conn: sqlite3.Connection, keep: Record, dup: Record, now: str) -> None:
    """Mark `dup` superseded by the older `keep` (nothing is deleted) and count it as a sighting of `keep`."""
    with atomic(conn):
        conn.execute("UPDATE records SET superseded_at = ?, superseded_by = ? WHERE id = ? AND superseded_at IS NULL",
                     (now, keep.id, dup.id))
        if dup.session_id != keep.session_id:
            conn.execute("UPDATE records SET reinforce_count = reinforce_count + 1 WHERE id = ?", (keep.id,))
    from .records import _changed

    _changed(conn, dup.project_id)


def project_ids(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT project_id FROM records WHERE project_id != '_global'")]


def rebuild_fts(conn: sqlite3.Connection) -> None:
    with atomic(conn):
        conn.execute("INSERT INTO records_fts(records_fts) VALUES ('rebuild')")
