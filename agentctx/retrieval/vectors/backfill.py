"""The embedding backfill: pending records in batches, each committed, so it is resumable and time-bounded."""

from __future__ import annotations

import sqlite3
import time
from collections import namedtuple
from typing import TYPE_CHECKING, Callable

from ...store import vectors as store
from .embedder import document_text
from .search import to_blob

if TYPE_CHECKING:
    from .embedder import Embedder

DEFAULT_BATCH = 32
# What one consolidation run may spend embedding; the rest waits for the next run (or `agentctx embed`).
CONSOLIDATE_BUDGET_S = 20.0

# embedded: vectors written; remaining: records still pending; seconds: wall time; dropped: other models' rows.
Report = namedtuple("Report", "embedded remaining seconds dropped")


def run(conn: sqlite3.Connection, embedder: Embedder, *, batch: int = DEFAULT_BATCH, budget_s: float | None = None,
        progress: Callable[[int, int], None] | None = None) -> Report:
    """Embed pending records until none remain or `budget_s` has passed (checked between batches)."""
    start = time.monotonic()
    dropped = store.drop_other_models(conn, embedder.name)
    total = store.pending_count(conn, embedder.name, embedder.dims)
    done = 0
    if progress:
        progress(0, total)
    while True:
        if budget_s is not None and time.monotonic() - start >= budget_s:
            break
        rows = store.pending(conn, embedder.name, embedder.dims, batch)
        if not rows:
            break
        matrix = embedder.embed([document_text(title, body) for _, title, body in rows])
        done += store.put(conn, embedder.name, embedder.dims, [(rid, to_blob(v)) for (rid, _, _), v in zip(rows, matrix)])
        if progress:
            progress(done, max(total, done))
    remaining = store.pending_count(conn, embedder.name, embedder.dims)
    return Report(done, remaining, time.monotonic() - start, dropped)
