"""Retrieval queries: posting lists of query terms, candidates in rank order, the LIKE fallback, pinned records,
term statistics."""

import sqlite3
from collections.abc import Sequence  # loaded by sqlite3 already: free at run time

from ..base.models import Record
from ..base.text import varints
from . import COLUMNS, CURRENT, N_COLUMNS, VISIBLE, to_record

_R_COLUMNS = ", ".join(f"r.{c.strip()}" for c in COLUMNS.split(","))
_R_VISIBLE = VISIBLE.replace("project_id", "r.project_id").replace("r.r.", "r.")


def _filters(project_id: str | None, types: Sequence[str], history: bool, scope: str | None) -> tuple[str, list[object]]:
    clauses: list[str] = []
    args: list[object] = []
    if scope == "global":
        clauses.append("r.project_id = '_global' AND r.scope = 'global'")
    elif scope == "project":
        clauses.append("r.project_id = ?")
        args.append(project_id)
    else:
        clauses.append(_R_VISIBLE)
        args.append(project_id)
    if not history:
        clauses.append("r.superseded_at IS NULL")
    if types:
        clauses.append(f"r.type IN ({','.join('?' * len(types))})")
        args.extend(types)
    return " AND ".join(clauses), args


def in_order(conn: sqlite3.Connection, rowids: Sequence[int], project_id: str, *, types: Sequence[str] = (),
             history: bool = False, scope: str | None = None, limit: int = 50) -> list[Record]:
    """The first `limit` records among `rowids` (in that order) that are visible, current unless `history`, and of
    the requested types and scope. The best rows are read whole at once: in a store of one project that is all.
    When too few of them pass (other projects' records, history), the rest are filtered by id first, then only the
    rows needed are read: three queries at most, however many rows other projects hold."""
    where, args = _filters(project_id, types, history, scope)
    head = list(rowids[:max(limit, 32)])
    out = _read_in_order(conn, head, where, args)
    if len(out) >= limit or len(head) == len(rowids):
        return out[:limit]
    rest = rowids[len(head):]
    passing: set[int] = set()
    for i in range(0, len(rest), 900):  # under SQLite's smallest limit on bound parameters
        chunk = list(rest[i:i + 900])
        passing.update(rid for (rid,) in conn.execute(
            f"SELECT r.rowid FROM records r WHERE r.rowid IN ({','.join('?' * len(chunk))}) AND {where}",
            [*chunk, *args]))
    wanted = [rid for rid in rest if rid in passing][:limit - len(out)]
    return out + _read_in_order(conn, wanted, where, args)


def _read_in_order(conn: sqlite3.Connection, rowids: list[int], where: str, args: list[object]) -> list[Record]:
    if not rowids:
        return []
    rows = {row[N_COLUMNS]: row for row in conn.execute(
        f"SELECT {_R_COLUMNS}, r.rowid FROM records r WHERE r.rowid IN ({','.join('?' * len(rowids))}) AND {where}",
        [*rowids, *args])}
    return [to_record(rows[rid]) for rid in rowids if rid in rows]


def term_rows(conn: sqlite3.Connection, words: dict[str, str], cap: int) -> dict[str, list[int]]:
    """For each stem (-> one query word with that stem), the row ids of the index rows matching the word, newest
    first, at most `cap` + 1 of them: its posting list, which also gives its document frequency up to the cap.

    fts5vocab computes a term's count by walking its whole posting list, which for a common word in a large store
    costs milliseconds on a cold cache; a LIMIT stops early, and past the cap the exact number hardly changes a
    score. Index-wide: across namespaces and history.
    """
    out: dict[str, list[int]] = {}
    for stem, word in words.items():
        out[stem] = [rid for (rid,) in conn.execute(
            "SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            ('"' + word.replace('"', '""') + '"', cap + 1))]
    return out


def any_rows(conn: sqlite3.Connection, words: Sequence[str], cap: int) -> list[int]:
    """The row ids of the index rows matching any of `words`, newest first, at most `cap` + 1 (one query)."""
    if not words:
        return []
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    return [rid for (rid,) in conn.execute(
        "SELECT rowid FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid DESC LIMIT ?", (match, cap + 1))]


def like(conn: sqlite3.Connection, terms: Sequence[str], project_id: str, *, types: Sequence[str] = (),
         history: bool = False, scope: str | None = None, limit: int = 50) -> list[tuple[Record, int]]:
    """Rung 4: records containing any term (LIKE), with the number of distinct terms each contains."""
    if not terms:
        return []
    where, args = _filters(project_id, types, history, scope)
    hits = " + ".join(["((r.title || ' ' || r.body) LIKE ? ESCAPE '\\')"] * len(terms))
    patterns = ["%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for t in terms]
    sql = (
        f"SELECT {_R_COLUMNS}, ({hits}) AS n FROM records r WHERE {where} AND n > 0 "
        f"ORDER BY n DESC, r.pinned DESC, r.recorded_at DESC LIMIT ?"
    )
    rows = conn.execute(sql, [*patterns, *args, limit]).fetchall()
    return [(to_record(row), int(row[N_COLUMNS])) for row in rows]


def pinned(conn: sqlite3.Connection, project_id: str, *, limit: int = 50) -> list[Record]:
    """Rung 5: the pinned current records of the project (and global ones)."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE pinned = 1 AND {CURRENT} AND {VISIBLE} ORDER BY recorded_at DESC LIMIT ?",
        (project_id, limit),
    )
    return [to_record(r) for r in rows]


def averages(conn: sqlite3.Connection) -> tuple[int, float, float, float, float]:
    """(rows, mean tokens of title, body, questions, aliases) from FTS5's own averages record (id 1): no scan
    needed. An index of two columns (a store not yet migrated) has no questions or aliases: zeros."""
    row = conn.execute("SELECT block FROM records_fts_data WHERE id = 1").fetchone()
    values = varints(bytes(row[0])) if row and row[0] else []
    if len(values) < 3 or values[0] == 0:
        return 0, 0.0, 0.0, 0.0, 0.0
    n = values[0]
    rest = [v / n for v in values[1:5]] + [0.0] * (5 - len(values))
    return n, rest[0], rest[1], rest[2], rest[3]


def session_neighbours(conn: sqlite3.Connection, records_: Sequence[Record],
                       project_id: str) -> dict[str, tuple[Record | None, Record | None]]:
    """For each record with a session: the current records just before and just after it in that session."""
    out: dict[str, tuple[Record | None, Record | None]] = {}
    prev_sql = (f"SELECT {COLUMNS} FROM records WHERE session_id = ? AND id < ? AND {CURRENT} AND {VISIBLE} "
                "ORDER BY id DESC LIMIT 1")
    next_sql = (f"SELECT {COLUMNS} FROM records WHERE session_id = ? AND id > ? AND {CURRENT} AND {VISIBLE} "
                "ORDER BY id LIMIT 1")
    for record in records_:
        if not record.session_id:
            continue
        before = conn.execute(prev_sql, (record.session_id, record.id, project_id)).fetchone()
        after = conn.execute(next_sql, (record.session_id, record.id, project_id)).fetchone()
        out[record.id] = (to_record(before) if before else None, to_record(after) if after else None)
    return out


def cached_doc_freqs(conn: sqlite3.Connection, stems: Sequence[str]) -> dict[str, int]:
    """Document frequencies of the common terms among `stems`, from term_stats (empty if never computed)."""
    stem_list = sorted(set(stems))
    if not stem_list:
        return {}
    try:
        rows = conn.execute(f"SELECT term, df FROM term_stats WHERE term IN ({','.join('?' * len(stem_list))})",
                            stem_list)
        return {term: int(df) for term, df in rows}
    except sqlite3.OperationalError:  # an older schema without the table: count instead
        return {}


def refresh_term_stats(conn: sqlite3.Connection, min_df: int) -> int:
    """Recompute term_stats: every indexed term found in at least `min_df` records (one full vocabulary scan)."""
    from .db import atomic

    with atomic(conn):
        conn.execute("DELETE FROM term_stats")
        cur = conn.execute("INSERT INTO term_stats (term, df) SELECT term, doc FROM records_fts_vocab WHERE doc >= ?",
                            (min_df,))
    return cur.rowcount
