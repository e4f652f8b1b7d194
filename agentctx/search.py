"""Ranked retrieval: FTS5 BM25 over stemmed terms, a rerank, a relevance floor, and the degradation ladder."""

from __future__ import annotations

import math
import sqlite3
from datetime import datetime, timezone
from typing import Sequence

from . import text
from .db import has_fts
from .ids import parse_iso
from .models import Record, SearchHit, SearchResult
from .store import retrieval

# Type weights: decisions and conventions are what an agent most needs to keep honouring.
TYPE_WEIGHT = {"decision": 1.2, "convention": 1.1, "handover": 1.0, "preference": 1.0,
               "profile": 0.9, "discovery": 0.85, "bugfix": 0.85}
# Inferred records are hypotheses (SPEC §3.3): they rank below what the developer stated or what recurred.
CONFIDENCE_WEIGHT = {"explicit": 1.0, "reinforced": 1.0, "inferred": 0.75}
PIN_WEIGHT = 1.5
# Days for the recency factor to fall halfway to its floor; None = the type does not age.
HALF_LIFE_DAYS = {"decision": None, "convention": None, "profile": None, "preference": 180.0,
                  "discovery": 60.0, "bugfix": 60.0, "handover": 14.0}
RECENCY_FLOOR = 0.5
# FTS5's BM25 constant: one term can contribute at most idf * (k1 + 1).
K1 = 1.2
CANDIDATE_FACTOR = 4
DEFAULT_FLOOR = 0.0
# UserPromptSubmit injects only what clears this relevance: an unrelated prompt should inject nothing.
PROMPT_FLOOR = 0.15


def recency(record: Record, now: datetime) -> float:
    half_life = HALF_LIFE_DAYS.get(record.type)
    if half_life is None:
        return 1.0
    try:
        age_days = max(0.0, (now - parse_iso(record.recorded_at)).total_seconds() / 86400)
    except ValueError:
        return 1.0
    return RECENCY_FLOOR + (1 - RECENCY_FLOOR) * 0.5 ** (age_days / half_life)


def prior(record: Record, now: datetime) -> float:
    """The query-independent multiplier of a record's score."""
    weight = TYPE_WEIGHT.get(record.type, 1.0) * CONFIDENCE_WEIGHT.get(record.confidence, 1.0)
    if record.pinned:
        weight *= PIN_WEIGHT
    return weight * recency(record, now)


def idf(n_docs: int, df: int) -> float:
    """FTS5's idf, floored the same way so a term in most documents still counts a little."""
    value = math.log((n_docs - df + 0.5) / (df + 0.5)) if n_docs else 0.0
    return max(value, 1e-6)


def max_bm25(conn: sqlite3.Connection, terms: Sequence[str]) -> float:
    """An upper bound of the BM25 a document can reach for these terms (title-weighted), to normalise relevance."""
    stems = text.stems(list(terms))
    dfs = retrieval.doc_freqs(conn, stems)
    n = retrieval.doc_count(conn)
    return sum(idf(n, dfs.get(s, 0)) for s in dict.fromkeys(stems)) * (K1 + 1) * retrieval.TITLE_WEIGHT


def search(conn: sqlite3.Connection, query: str, project_id: str, *, types: Sequence[str] = (), limit: int = 10,
           history: bool = False, scope: str | None = None, floor: float = DEFAULT_FLOOR,
           now: datetime | None = None) -> SearchResult:
    """The best `limit` records for `query` visible from `project_id`.

    Rung 1: FTS5 BM25 on stemmed, stopword-free terms, reranked by type, confidence, pin and recency; hits
    whose normalised relevance is under `floor` are dropped. Rung 4: LIKE when FTS5 is missing or broken.
    Rung 5: pinned records when everything else fails. Never raises on query syntax.
    """
    now = now or datetime.now(timezone.utc)
    terms = text.content_terms(query)
    if not terms:
        return SearchResult(terms=())
    try:
        if has_fts(conn):
            return _fts_search(conn, terms, project_id, types, limit, history, scope, floor, now)
    except sqlite3.OperationalError:
        pass  # a damaged or missing index: fall down the ladder
    try:
        return _like_search(conn, terms, project_id, types, limit, history, scope, now)
    except sqlite3.Error:
        pass
    try:
        pinned = retrieval.pinned(conn, project_id, limit=limit)
    except sqlite3.Error:
        pinned = []
    hits = tuple(SearchHit(r, prior(r, now), 0.0, "pinned-only") for r in pinned)
    return SearchResult(hits, "pinned-only", tuple(terms))


def _fts_search(conn: sqlite3.Connection, terms: list[str], project_id: str, types: Sequence[str], limit: int,
                history: bool, scope: str | None, floor: float, now: datetime) -> SearchResult:
    rows = retrieval.fts(conn, text.or_query(terms), project_id, types=types, history=history, scope=scope,
                         limit=max(limit * CANDIDATE_FACTOR, 20))
    if not rows:
        return SearchResult(terms=tuple(terms))
    bound = max_bm25(conn, terms) or 1.0
    hits = []
    for record, bm25 in rows:
        relevance = min(1.0, bm25 / bound)
        if relevance < floor:
            continue
        hits.append(SearchHit(record, bm25 * prior(record, now), relevance))
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return SearchResult(tuple(hits[:limit]), None, tuple(terms))


def _like_search(conn: sqlite3.Connection, terms: list[str], project_id: str, types: Sequence[str], limit: int,
                 history: bool, scope: str | None, now: datetime) -> SearchResult:
    rows = retrieval.like(conn, terms, project_id, types=types, history=history, scope=scope,
                          limit=max(limit * CANDIDATE_FACTOR, 20))
    hits = [SearchHit(r, n / len(terms) * prior(r, now), n / len(terms), "like-search") for r, n in rows]
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return SearchResult(tuple(hits[:limit]), "like-search", tuple(terms))
