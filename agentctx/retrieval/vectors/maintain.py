"""Vector upkeep in consolidation: a time-bounded backfill, then near-duplicates reinforced or proposed, never deleted."""

from __future__ import annotations

import os
import sqlite3
import time
from collections import namedtuple
from typing import TYPE_CHECKING

from ...base import paths, safeio
from ...store import vectors as store
from . import Unavailable, backfill

if TYPE_CHECKING:
    from .embedder import Embedder

# Cosine at or above which two records of the same type say the same thing. Paraphrases of one sentence score
# 0.85-0.95 with MiniLM and bge-small; two different decisions of one project (shared vocabulary, same subject)
# rarely pass 0.9. 0.92 errs towards missing a duplicate: a missed one costs a line, a false one a wrong merge.
NEAR_DUPLICATE = 0.92
LINK = "derives_from"
# After a failed download, consolidation waits this long before trying the network again (no-network machines
# would otherwise spend ~39 s of hub retries on every run).
RETRY_DOWNLOAD_S = 24 * 3600
CHUNK = 1024

# newer, older: record ids; similarity: cosine; action: "reinforced" | "propose-supersede" | "same-session"
NearDuplicate = namedtuple("NearDuplicate", "newer older similarity action")


def _stamp() -> str:
    return os.path.join(str(paths.models_dir()), ".download-failed")


def load(download: bool) -> "Embedder":
    """The configured embedder; with `download`, fetch a missing model first (rate-limited after a failure)."""
    from .embedder import FastEmbedEmbedder, shared, spec

    try:
        return shared()
    except Unavailable as exc:
        if not download or "did not load" not in exc.reason or spec().path:
            raise
        try:
            if time.time() - os.path.getmtime(_stamp()) < RETRY_DOWNLOAD_S:
                raise
        except OSError:
            pass
        try:
            return FastEmbedEmbedder(spec(), download=True)
        except Unavailable:
            paths.ensure_private_dir(paths.models_dir())
            fd = safeio.create_private(_stamp())
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) + "\n")
            raise


def near_duplicates(conn: sqlite3.Connection, embedder: "Embedder", project_id: str,
                    threshold: float = NEAR_DUPLICATE) -> list[NearDuplicate]:
    """Same-type pairs of current records at or above `threshold`, not handled before; each handled once."""
    import numpy as np

    rows = store.current_with_vectors(conn, embedder.name, project_id)
    rows = [(r, blob) for r, blob in rows if len(blob) == 4 * embedder.dims and r.type not in ("handover", "profile")]
    if len(rows) < 2:
        return []
    matrix = np.frombuffer(b"".join(b for _, b in rows), dtype="<f4").reshape(len(rows), embedder.dims)
    done = store.linked_pairs(conn, project_id, LINK)
    found = []
    for start in range(0, len(rows), CHUNK):  # chunked, so memory stays O(CHUNK x n) at any store size
        sims = matrix[start:start + CHUNK] @ matrix.T
        for i, j in zip(*np.nonzero(sims >= threshold)):
            newer, older = rows[start + i][0], rows[j][0]
            if older.id >= newer.id or newer.type != older.type or (newer.id, older.id) in done:
                continue  # ULIDs sort by creation: each unordered pair once, newer -> older
            if newer.confidence != "inferred":
                action = "propose-supersede"
            elif newer.session_id and newer.session_id == older.session_id:
                action = "same-session"  # a sighting counts only from another session (SPEC §3.3)
            else:
                action = "reinforced"
            found.append(NearDuplicate(newer.id, older.id, float(sims[i, j]), action))
    return found


def apply(conn: sqlite3.Connection, pairs: list[NearDuplicate], threshold: int) -> None:
    """An inferred newer copy is one more sighting of the older record; an established one is left to the user."""
    from ...store import graph, records

    for pair in pairs:
        if pair.action == "reinforced":
            records.reinforce(conn, pair.older, threshold=threshold)
        graph.add_edge(conn, pair.newer, pair.older, LINK, weight=round(pair.similarity, 4))


def run(conn: sqlite3.Connection, project_id: str, *, reinforce_threshold: int,
        budget_s: float = backfill.CONSOLIDATE_BUDGET_S, download: bool = False) -> dict[str, object]:
    """Consolidation's vector step; raises Unavailable when vectors cannot run (the caller reports why)."""
    embedder = load(download)
    report = backfill.run(conn, embedder, budget_s=budget_s)
    pairs = near_duplicates(conn, embedder, project_id)
    apply(conn, pairs, reinforce_threshold)
    from . import static

    return {"model": embedder.name, "embedded": report.embedded, "pending": report.remaining,
            "seconds": round(report.seconds, 2),
            "near_duplicates": [p._asdict() for p in pairs],
            "static": static.update_records(conn, embedder.name)}
