"""The digest's reads (newest current records, best established decisions) are ordered index scans: right order,
and work that does not grow with the store (the digest is rebuilt after every write)."""

from __future__ import annotations

import random

from agentctx.base import ids
from agentctx.store import records

P = "p" * 64
COLUMNS = records.COLUMNS


def _seed(conn, n, *, rng):
    """n current records of project P: mixed types, confidences, pins and scores, several sharing a timestamp."""
    rows = []
    for i in range(n):
        stamp = f"2026-0{1 + i % 9}-{10 + i % 17}T10:00:00.000Z"  # collisions: the id must break ties
        rows.append((ids.ulid(), P, rng.choice(("decision", "convention", "bugfix", "discovery")), f"Record {i}",
                     "body", rng.choice(("explicit", "reinforced", "inferred")), stamp, stamp, "cli",
                     int(rng.random() < 0.05), rng.choice((0.5, 1.0, 1.0, 1.5, round(rng.random(), 3)))))
    with conn:
        conn.executemany("INSERT INTO records (id, project_id, type, title, body, confidence, valid_from, recorded_at,"
                         " source, pinned, score) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)


def _steps(conn, fn):
    """SQLite virtual-machine steps (in units of 100) a call costs: a measure of rows visited, not of time."""
    count = [0]

    def tick():
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 100)
    try:
        fn()
    finally:
        conn.set_progress_handler(None, 100)
    return count[0]


def test_established_orders_pinned_then_score_then_type_order_then_newest(conn):
    _seed(conn, 600, rng=random.Random(3))
    types = ("convention", "decision")
    reference = [row[0] for row in conn.execute(
        "SELECT id FROM records WHERE project_id = ? AND superseded_at IS NULL AND confidence != 'inferred' "
        "AND type IN ('convention', 'decision') ORDER BY pinned DESC, score DESC, "
        "CASE type WHEN 'convention' THEN 0 ELSE 1 END, recorded_at DESC, id DESC", (P,))]
    for limit in (1, 7, 20, 1000):
        assert [r.id for r in records.established(conn, P, types=types, limit=limit)] == reference[:limit]


def test_the_digests_reads_do_not_grow_with_the_store(conn):
    def cost():
        return (_steps(conn, lambda: records.established(conn, P, types=("decision", "convention"), limit=20)),
                _steps(conn, lambda: records.current(conn, P, own_only=True, limit=100)),
                _steps(conn, lambda: records.current(conn, P, types=["handover"], own_only=True, limit=1)))

    rng = random.Random(5)
    _seed(conn, 300, rng=rng)
    small = cost()
    _seed(conn, 6000, rng=rng)
    large = cost()
    # Sorting every current record (before migration 7) costs ~20x more steps here; an ordered scan, about the same.
    assert all(big <= 2 * few + 5 for big, few in zip(large, small)), (small, large)
