"""Provenance of records read from the agents' own memory files (agent, file, line, content hash, last seen), and the
derived set of records each agent already loads itself."""

# The prompt hook reads the skip set on every prompt: no `typing` or `__future__` on this module's import path.
import sqlite3

from ..base.models import GLOBAL_PROJECT, record_type
from .db import atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

Line = record_type("Line", "id project_id record_id agent path line hash loaded first_seen last_seen gone_at")
_COLUMNS = "id, project_id, record_id, agent, path, line, hash, loaded, first_seen, last_seen, gone_at"


def live(conn: sqlite3.Connection, project_ids: "Iterable[str]") -> list:
    """The lines still in their files, of these namespaces, oldest first."""
    ids = list(project_ids)
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT {_COLUMNS} FROM agent_memory WHERE gone_at IS NULL AND project_id IN ({marks}) "
                        "ORDER BY id", ids)
    return [Line(*r) for r in rows]


def add(conn: sqlite3.Connection, project_id: str, record_id: str, agent: str, path: str, line: int, hash_: str,
        loaded: bool, now: str) -> None:
    with atomic(conn):
        conn.execute("INSERT INTO agent_memory (project_id, record_id, agent, path, line, hash, loaded, first_seen, "
                     "last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (project_id, record_id, agent, path, line, hash_, int(loaded), now, now))


def seen(conn: sqlite3.Connection, updates: "list[tuple[int, int, bool]]", now: str) -> None:
    """(row id, line, loaded): still there, perhaps moved; last_seen set to `now`."""
    if not updates:
        return
    with atomic(conn):
        conn.executemany("UPDATE agent_memory SET line = ?, loaded = ?, last_seen = ? WHERE id = ?",
                         [(line, int(loaded), now, rid) for rid, line, loaded in updates])


def gone(conn: sqlite3.Connection, row_ids: "list[int]", now: str) -> None:
    if row_ids:
        with atomic(conn):
            conn.executemany("UPDATE agent_memory SET gone_at = ? WHERE id = ? AND gone_at IS NULL",
                             [(now, rid) for rid in row_ids])


def others_live(conn: sqlite3.Connection, record_id: str, row_id: int) -> int:
    """How many other lines still in their files stand for the record."""
    return conn.execute("SELECT count(*) FROM agent_memory WHERE record_id = ? AND id != ? AND gone_at IS NULL",
                        (record_id, row_id)).fetchone()[0]


def set_skip(conn: sqlite3.Connection, project_id: str, skip: "dict[str, dict[str, str]]") -> None:
    """Rewrite the project's skip set (and, with it, the personal facts' one): agent -> {record id: why}."""
    with atomic(conn):
        conn.execute("DELETE FROM agent_memory_skip WHERE project_id = ?", (project_id,))
        conn.executemany("INSERT OR REPLACE INTO agent_memory_skip (project_id, agent, record_id, why) "
                         "VALUES (?, ?, ?, ?)",
                         [(project_id, agent, rid, why) for agent, ids in skip.items() for rid, why in ids.items()])


def skip_ids(conn: sqlite3.Connection, project_id: str, agent: str) -> "set[str]":
    """The records `agent` loads itself in this project (its own memory holds them): not injected again there."""
    try:
        rows = conn.execute("SELECT record_id FROM agent_memory_skip WHERE project_id = ? AND agent = ?",
                            (project_id, agent))
        return {r[0] for r in rows}
    except sqlite3.OperationalError:  # a store from before migration 16, opened read-only
        return set()


def skip_rows(conn: sqlite3.Connection, project_id: str) -> "list[tuple[str, str, str]]":
    """(agent, record id, why) of the project's skip set."""
    return [tuple(r) for r in conn.execute(
        "SELECT agent, record_id, why FROM agent_memory_skip WHERE project_id = ? ORDER BY agent, record_id",
        (project_id,))]


def summary(conn: sqlite3.Connection, project_id: str) -> "dict[str, dict[str, int]]":
    """Per agent: lines still in its files (this project's and personal ones), records they stand for that are
    current, and of those the ones the user confirmed."""
    out: "dict[str, dict[str, int]]" = {}
    rows = conn.execute(
        "SELECT m.agent, count(*), count(DISTINCT CASE WHEN r.superseded_at IS NULL THEN r.id END), "
        "count(DISTINCT CASE WHEN r.superseded_at IS NULL AND r.confidence = 'explicit' THEN r.id END) "
        "FROM agent_memory m JOIN records r ON r.id = m.record_id "
        "WHERE m.gone_at IS NULL AND m.project_id IN (?, ?) GROUP BY m.agent", (project_id, GLOBAL_PROJECT))
    for agent, lines, current, confirmed in rows:
        out[agent] = {"lines": lines, "records": current, "confirmed": confirmed}
    return out


def current_titles(conn: sqlite3.Connection, project_id: str, types: "tuple[str, ...]",
                   limit: int) -> "list[tuple[str, str]]":
    """(id, title) of the current records the project sees (its own and global ones) of these types, newest first."""
    marks = ",".join("?" * len(types))
    return [tuple(r) for r in conn.execute(
        f"SELECT id, title FROM records WHERE superseded_at IS NULL AND type IN ({marks}) AND (project_id = ? OR "
        "(project_id = ? AND scope = 'global')) ORDER BY recorded_at DESC, id DESC LIMIT ?",
        (*types, project_id, GLOBAL_PROJECT, limit))]


def provenance(conn: sqlite3.Connection, record_id: str) -> list:
    """Every line, present or gone, that a record came from."""
    return [Line(*r) for r in conn.execute(f"SELECT {_COLUMNS} FROM agent_memory WHERE record_id = ? ORDER BY id",
                                           (record_id,))]
