"""Retrieval queries: FTS5 BM25 candidates, the LIKE fallback, pinned records, and term statistics."""

import sqlite3
from collections.abc import Iterable, Sequence  # loaded by sqlite3 already: free at run time

from ..models import Record
from ..text import varints
from . import COLUMNS, CURRENT, VISIBLE, to_record

# Title matches count more than body matches: titles are what a record is about.
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
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


# How many of the best-ranked matches the filter-later path looks at before falling back, in multiples of `limit`.
FTS_POOL = 4


def fts(conn: sqlite3.Connection, match: str, project_id: str, *, types: Sequence[str] = (), history: bool = False,
        scope: str | None = None, limit: int = 50) -> list[tuple[Record, float]]:
    """Records matching the FTS5 expression, best BM25 first, as (record, bm25) with bm25 > 0 meaning better."""
    where, args = _filters(project_id, types, history, scope)
    if not types and scope != "global" and _one_namespace(conn, project_id):
        # Rank the index alone and filter only the best rows: joining every matching row to `records` just to
        # filter it costs more than ranking them all (~2 µs a row, thousands of rows). When the store holds no
        # other project's current records, the winners are nearly always the first `limit`; with other projects
        # the join is cheaper (BM25 runs only on the rows it keeps). Ties go by rowid on both paths.
        found = _fts_then_filter(conn, match, where, args, limit)
        if found is not None:
            return found
    # Rank row ids only, then fetch the winners: a sorter holding whole records (bodies included) for every
    # matching row is what made large stores slow.
    sql = (
        f"WITH best AS (SELECT r.rowid AS rid, bm25(records_fts, {TITLE_WEIGHT}, {BODY_WEIGHT}) AS rank "
        f"FROM records_fts JOIN records r ON r.rowid = records_fts.rowid "
        f"WHERE records_fts MATCH ? AND {where} ORDER BY rank, r.rowid LIMIT ?) "
        f"SELECT {_R_COLUMNS}, -best.rank FROM best JOIN records r ON r.rowid = best.rid ORDER BY best.rank, best.rid"
    )
    rows = conn.execute(sql, [match, *args, limit]).fetchall()
    return [(to_record(row), float(row[20])) for row in rows]


def _one_namespace(conn: sqlite3.Connection, project_id: str) -> bool:
    """Whether every current record belongs to `project_id` or the global namespace: index seeks, no scan."""
    low = conn.execute("SELECT min(project_id) FROM records WHERE superseded_at IS NULL").fetchone()[0]
    if low is None:
        return True
    allowed = (project_id, "_global")
    while low in allowed:  # at most twice: the next project id above each allowed one
        low = conn.execute("SELECT min(project_id) FROM records WHERE superseded_at IS NULL AND project_id > ?",
                           (low,)).fetchone()[0]
        if low is None:
            return True
    return False


def _fts_then_filter(conn: sqlite3.Connection, match: str, where: str, args: list[object],
                     limit: int) -> list[tuple[Record, float]] | None:
    """The best `limit` rows passing `where` among the FTS_POOL * limit best matches; None when too few pass."""
    pool = FTS_POOL * limit
    ranked = conn.execute(
        f"SELECT rowid, bm25(records_fts, {TITLE_WEIGHT}, {BODY_WEIGHT}) AS bm FROM records_fts "
        "WHERE records_fts MATCH ? ORDER BY bm, rowid LIMIT ?", (match, pool)).fetchall()
    out: list[tuple[Record, float]] = []
    for batch in (ranked[:limit], ranked[limit:]):
        if not batch:
            break
        rows = {row[20]: row for row in conn.execute(
            f"SELECT {_R_COLUMNS}, r.rowid FROM records r WHERE r.rowid IN ({','.join('?' * len(batch))}) AND {where}",
            [rid for rid, _ in batch] + args)}
        out.extend((to_record(rows[rid]), -bm) for rid, bm in batch if rid in rows)
        if len(out) >= limit:
            return out[:limit]
    return out if len(ranked) < pool else None  # every match seen, or too few of the best pass the filters


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
    return [(to_record(row), int(row[20])) for row in rows]


def pinned(conn: sqlite3.Connection, project_id: str, *, limit: int = 50) -> list[Record]:
    """Rung 5: the pinned current records of the project (and global ones)."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE pinned = 1 AND {CURRENT} AND {VISIBLE} ORDER BY recorded_at DESC LIMIT ?",
        (project_id, limit),
    )
    return [to_record(r) for r in rows]


def averages(conn: sqlite3.Connection) -> tuple[int, float, float]:
    """(rows, mean title tokens, mean body tokens) from FTS5's own averages record (id 1): no scan needed."""
    row = conn.execute("SELECT block FROM records_fts_data WHERE id = 1").fetchone()
    values = varints(bytes(row[0])) if row and row[0] else []
    if len(values) < 3 or values[0] == 0:
        return 0, 0.0, 0.0
    return values[0], values[1] / values[0], values[2] / values[0]


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


def doc_freqs_capped(conn: sqlite3.Connection, terms: dict[str, str], cap: int) -> dict[str, int]:
    """How many records contain each term, counted up to `cap` + 1 (stem -> count; `terms` maps stem -> a word).

    fts5vocab computes a term's count by walking its whole posting list, which for a common word in a large store
    costs milliseconds on a cold cache; counting matches with a LIMIT stops early, and past the cap the exact
    number hardly changes a score.
    """
    out: dict[str, int] = {}
    for stem, word in terms.items():
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM records_fts WHERE records_fts MATCH ? LIMIT ?)",
            ('"' + word.replace('"', '""') + '"', cap + 1),
        ).fetchone()
        out[stem] = int(row[0])
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
    from ..db import atomic

    with atomic(conn):
        conn.execute("DELETE FROM term_stats")
        cur = conn.execute("INSERT INTO term_stats (term, df) SELECT term, doc FROM records_fts_vocab WHERE doc >= ?",
                            (min_df,))
    return cur.rowcount
