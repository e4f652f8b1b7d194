"""Hybrid retrieval: keyword ranking (agentctx.retrieval.search) fused with vector similarity; keyword-only when vectors can't.

The default fusion is an equal-weight sum of min-max normalised scores over one candidate set: the keyword pool plus
the dense nearest, every candidate scored by its own cosine (a keyword candidate outside the dense top-k has a known
similarity, not a zero). Equal weights favour neither ranker without fitting a weight; min-max maps each list's
worst candidate to 0 and its best to 1, which keeps how far apart the candidates are, unlike ranks (plain RRF gives
the weaker ranker an equal vote on every rank, which measured below keyword alone; Bruch et al., "An Analysis of
Fusion Functions for Hybrid Retrieval", TOIS 2023). Dense hits lend the session-neighbour share keyword hits lend.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Sequence

from ..base.models import SearchHit, SearchResult
from . import search as keyword

if TYPE_CHECKING:
    import numpy as np

    from ..base.models import Record
    from .vectors.embedder import Embedder

# method: "cc" (convex combination) | "rrf" | "keyword" | "dense"; alpha: the keyword share of a cc score;
# k: the RRF constant; neighbours: the share of a dense hit's score lent to its session neighbours (as keyword does).
# norm: "minmax" (each list's worst candidate maps to 0, its best to 1) | "max" (divide by the best).
# exact: every keyword candidate gets its own cosine (else only the dense top-k have one, the rest count 0).
# prf, beta: dense pseudo-relevance feedback seeded by keyword (Rocchio in embedding space: the query vector plus
# beta x the mean of the `prf` best keyword hits' vectors; Li et al., "To Interpolate or not to Interpolate: PRF,
# Dense and Sparse Retrievers", SIGIR 2022). Off (0) by default: measured no better than the plain query once fused.
# session: the share of a candidate's fused score taken from its session's best candidate (cluster-based smoothing,
# sessions as the clusters: Liu & Croft, "Cluster-Based Retrieval Using Language Models", SIGIR 2004); records
# without a session keep their own score. Off (0) by default: on LoCoMo never below the default, above it by more
# than noise in only a few settings (docs/benchmarks.md), and it cannot move stores without sessions.
Fusion = namedtuple("Fusion", "method alpha k neighbours norm exact prf beta session",
                    defaults=("minmax", True, 0, 1.0, 0.0))
DEFAULT = Fusion("cc", 0.5, 60, keyword.NEIGHBOUR_WEIGHT, "minmax", True)
# The earlier default (keyword-heavy, max-normalised, only dense top-k candidates scored): a benchmark row.
KEYWORD_HEAVY = Fusion("cc", 0.7, 60, keyword.NEIGHBOUR_WEIGHT, "max", False)
RRF = Fusion("rrf", 0.5, 60, 0.0, "minmax", False)
# Each side contributes this many candidates per requested hit (at least POOL_MIN).
POOL_FACTOR = 4
POOL_MIN = 40
# An interactive search (`agentctx search`, a fresh process each time) lists what is relevant, not every candidate:
# when some keyword hits carry the query's telling words (relevance >= search.TELLING) only those are kept (else
# the partial matches are, rather than nothing); the model (0.5-3 s to import and load) is loaded only when fewer
# than LAZY_MIN keyword hits are relevant; and a fused hit is listed only while its score is at least CUT of the
# best one (a dense-only hit has no keyword relevance to hold it to).
INTERACTIVE_FLOOR = keyword.TELLING
LAZY_MIN = 3
CUT = 0.5


def status(conn: sqlite3.Connection, embedder: Embedder | None = None) -> tuple[Embedder | None, str | None]:
    """(the embedder, None) when vectors can serve; (None, why not) when this store has vectors that cannot be
    used; (None, None) when it has none (never set up: plain keyword search is its full rung, not a degradation).
    Cheap checks come first, so a store without vectors never imports the model runtime; the shared model loads
    once per process."""
    if embedder is not None:
        return embedder, None
    from ..store import vectors as store

    if not store.has_table(conn) or not store.stats(conn):
        return None, None
    try:
        from .vectors import Unavailable
        from .vectors.embedder import shared
    except ImportError as exc:  # pragma: no cover - the package ships with agentctx; only a broken install lands here
        return None, f"vectors package missing ({exc})"
    try:
        return shared(), None
    except Unavailable as exc:
        return None, exc.reason


def enabled() -> bool:
    """Whether the user wants vectors at all (config `embeddings`): off is a choice, not a degradation."""
    from ..base import config

    return bool(config.load().get("embeddings", True))


def search(conn: sqlite3.Connection, query: str, project_id: str, *, types: Sequence[str] = (), limit: int = 10,
           history: bool = False, scope: str | None = None, floor: float = keyword.DEFAULT_FLOOR,
           now: datetime | None = None, embedder: Embedder | None = None, fusion: Fusion = DEFAULT,
           relevant: float = 0.0, lazy: int = 0, cut: float = 0.0) -> SearchResult:
    """`agentctx.retrieval.search.search` plus vectors. When the store has vectors they cannot serve (no extra, no model, a
    model that fails, none of the model's dimension) the keyword result comes back marked
    `degraded="keyword-only: <reason>"`; a store never embedded (or `embeddings` off) gets plain keyword results.

    With `relevant`, keyword hits below that relevance are dropped when any reach it (`relevant_first`); with
    `lazy`, the model is used only when fewer than `lazy` keyword hits reach it (else the keyword result is the
    answer); with `cut`, fused hits below that share of the best score are dropped, and hits found only by the
    dense side are kept by that rule instead of the keyword floor (they have no keyword relevance)."""
    now = now or datetime.now(timezone.utc)
    pool = max(limit * POOL_FACTOR, POOL_MIN)
    base = keyword.search(conn, query, project_id, types=types, limit=pool, history=history, scope=scope,
                          floor=floor, now=now)
    if relevant:
        base = base._replace(hits=relevant_first(base.hits, relevant))
    strong = sum(1 for h in base.hits if h.relevance >= relevant)
    if fusion.method == "keyword" or (embedder is None and not enabled()) or (lazy and strong >= lazy):
        return base._replace(hits=base.hits[:limit])
    embedder, why = status(conn, embedder)
    if embedder is None and why is None:
        return base._replace(hits=base.hits[:limit])
    dense: list[tuple[str, float]] = []
    if embedder is not None:
        try:
            dense = _dense(conn, embedder, query, project_id, types, history, scope, pool,
                           [h.record.id for h in base.hits] if fusion.exact else [],
                           [h.record.id for h in base.hits[:fusion.prf]], fusion.beta)
        except Exception as exc:  # a model that breaks mid-run must not break search
            why = f"vector search failed: {type(exc).__name__}: {str(exc)[:120]}"
        else:
            if not dense and _no_vectors(conn, embedder):
                why = f"no stored vectors for {embedder.name} ({embedder.dims} dims): run `agentctx embed`"
    if why is not None:
        marker = base.degraded or f"keyword-only: {why}"
        return base._replace(hits=tuple(h._replace(degraded=marker) for h in base.hits[:limit]), degraded=marker)
    # When keyword fell down the ladder (like-search, pinned-only) the fusion still runs and keeps its marker.
    hits = _fuse(conn, base.hits, dense, project_id, types, scope, history, fusion, 0.0 if cut else floor, now, limit)
    if cut and hits:
        best = hits[0].score
        hits = [h for h in hits if h.score >= cut * best]
    return SearchResult(tuple(hits[:limit]), base.degraded, base.terms)


def relevant_first(hits: Sequence[SearchHit], floor: float) -> tuple[SearchHit, ...]:
    """The hits with relevance >= `floor` when there are any; else all of them (partial matches beat nothing)."""
    strong = tuple(h for h in hits if h.relevance >= floor)
    return strong or tuple(hits)


def _no_vectors(conn: sqlite3.Connection, embedder: Embedder) -> bool:
    from ..store import vectors as store

    return not any(model == embedder.name and dims == embedder.dims for model, dims, _ in store.stats(conn))


def _dense(conn: sqlite3.Connection, embedder: Embedder, query: str, project_id: str, types: Sequence[str],
           history: bool, scope: str | None, pool: int, also: Sequence[str], seeds: Sequence[str] = (),
           beta: float = 1.0) -> list[tuple[str, float]]:
    """The `pool` nearest records, then the cosine of each record in `also` (keyword candidates) not among them.
    With `seeds` (the best keyword hits) the query vector moves towards their mean first: still one scan."""
    import numpy as np

    from ..store import vectors as store
    from .vectors.search import nearest

    q = _unit(np.asarray(embedder.embed_query(query), dtype=np.float32))
    feedback = [_unit(row) for row in _rows(store.vectors_of(conn, embedder.name, seeds), embedder.dims).values()]
    if feedback:
        q = _unit(q + beta * np.mean(feedback, axis=0))
    found = nearest(conn, embedder.name, embedder.dims, q, project_id, types=types, history=history,
                    scope=scope, limit=pool)
    seen = {rid for rid, _ in found}
    rest = _rows(store.vectors_of(conn, embedder.name, [rid for rid in also if rid not in seen]), embedder.dims)
    found.extend((rid, float(_unit(row) @ q)) for rid, row in rest.items())
    return found


def _rows(blobs: dict[str, bytes], dims: int) -> dict[str, "np.ndarray"]:
    """Stored blobs as vectors, skipping any of another dimension (not in this model's space)."""
    import numpy as np

    rows = {rid: np.frombuffer(blob, dtype="<f4") for rid, blob in blobs.items()}
    return {rid: row for rid, row in rows.items() if len(row) == dims}


def _unit(vector: "np.ndarray") -> "np.ndarray":
    import numpy as np

    return vector / (float(np.linalg.norm(vector)) or 1.0)


def _normalise(scores: dict[str, float], norm: str) -> dict[str, float]:
    """Scores onto 0..1. A record outside a list counts as 0 there, as low as that list's worst candidate."""
    if not scores:
        return {}
    high = max(scores.values())
    low = min(scores.values()) if norm == "minmax" and len(scores) > 1 else 0.0
    span = (high - low) or 1.0
    return {rid: (value - low) / span for rid, value in scores.items()}


def _fuse(conn: sqlite3.Connection, kw_hits: Sequence[SearchHit], dense: list[tuple[str, float]], project_id: str,
          types: Sequence[str], scope: str | None, history: bool, fusion: Fusion, floor: float,
          now: datetime, limit: int) -> list[SearchHit]:
    from ..store import retrieval
    from ..store import vectors as store

    found: dict[str, Record] = {h.record.id: h.record for h in kw_hits}
    relevance = {h.record.id: h.relevance for h in kw_hits}
    missing = [rid for rid, _ in dense if rid not in found]
    found.update(store.records_by_id(conn, missing))
    dense = [(rid, sim) for rid, sim in dense if rid in found]
    # Keyword scores carry the record prior (type, confidence, pin, recency): take it out, fuse, put it back once.
    kw = {h.record.id: h.score / (keyword.prior(h.record, now) or 1.0) for h in kw_hits}
    dn = {rid: max(sim, 0.0) for rid, sim in dense}
    if fusion.neighbours and dense and not history:
        # The dense hits that would be shown lend (keyword lends from its best 2 x limit): the cosines of weaker ones
        # sit close together, and their shares would outweigh the hits themselves.
        best = sorted(dense, key=lambda item: (-item[1], item[0]))[:limit]
        top = [found[rid] for rid, _ in best if found[rid].session_id]
        lent: dict[str, float] = {}
        for rid, (before, after) in retrieval.session_neighbours(conn, top, project_id).items():
            for neighbour in (before, after):
                if neighbour is None or not keyword._allowed(neighbour, types, scope, project_id):
                    continue
                found.setdefault(neighbour.id, neighbour)
                lent[neighbour.id] = lent.get(neighbour.id, 0.0) + fusion.neighbours * dn[rid]
        for rid, extra in lent.items():
            dn[rid] = dn.get(rid, 0.0) + extra
    if fusion.method == "dense":
        fused = dn
    elif fusion.method == "rrf":
        fused = {}
        for ranked in (sorted(kw, key=lambda r: -kw[r]), sorted(dn, key=lambda r: -dn[r])):
            for i, rid in enumerate(ranked):
                fused[rid] = fused.get(rid, 0.0) + 1.0 / (fusion.k + i + 1)
    else:
        kw_n, dn_n = _normalise(kw, fusion.norm), _normalise(dn, fusion.norm)
        fused = {rid: fusion.alpha * kw_n.get(rid, 0.0) + (1 - fusion.alpha) * dn_n.get(rid, 0.0)
                 for rid in set(kw) | set(dn)}
    if fusion.session:
        fused = _session_smoothed(fused, found, fusion.session)
    hits = []
    for rid, value in fused.items():
        record = found[rid]
        rel = relevance.get(rid, 0.0)
        if value <= 0 or (floor and rel < floor):
            continue
        hits.append(SearchHit(record, value * keyword.prior(record, now), rel))
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return hits


def _session_smoothed(fused: dict[str, float], found: dict[str, Record], share: float) -> dict[str, float]:
    """Each candidate's score moved `share` of the way towards its session's best candidate score: a turn of the
    session the query is about outranks an equally scored turn of an unrelated one. Sessionless records unchanged."""
    best: dict[str, float] = {}
    for rid, value in fused.items():
        session = found[rid].session_id
        if session:
            best[session] = max(best.get(session, 0.0), value)
    return {rid: (1 - share) * value + share * best[found[rid].session_id] if found[rid].session_id else value
            for rid, value in fused.items()}
