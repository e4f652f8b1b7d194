"""Ranked retrieval: FTS5 candidates, BM25F scoring, session neighbours, a prior, a relevance floor, the ladder."""

import sqlite3
from collections import Counter
from datetime import datetime, timezone
from collections.abc import Sequence  # loaded by sqlite3 already: free at run time

from . import rank, text
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
CANDIDATE_FACTOR = 4
POOL_MIN = 20
# A term in more than this share of the store (and more than COMMON_MIN records) does not generate candidates.
COMMON_SHARE = 0.05
COMMON_MIN = 50
MATCH_ROWS = 600
# Terms found in at least this many records have their counts kept by consolidation (store.retrieval.term_stats).
TERM_STATS_MIN = 100
MAX_TERMS = 64
# Records written one after another in a session share context (a question and its answer, a decision and
# its follow-up): each of the best hits lends this share of its score to its session neighbours.
NEIGHBOUR_WEIGHT = 0.5
DEFAULT_FLOOR = 0.0
# UserPromptSubmit injects only what clears this relevance: an unrelated prompt should inject nothing. Set where
# at most 10% of ordinary unrelated requests inject anything (bench/injection.py; docs/benchmarks.md).
PROMPT_FLOOR = 1.0
# The LIKE rung knows only the share of query terms a record contains: a floor means at most this share there.
LIKE_SHARE_MAX = 0.6


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


def search(conn: sqlite3.Connection, query: str, project_id: str, *, types: Sequence[str] = (), limit: int = 10,
           history: bool = False, scope: str | None = None, floor: float = DEFAULT_FLOOR,
           now: datetime | None = None) -> SearchResult:
    """The best `limit` records for `query` visible from `project_id`.

    Rung 1: FTS5 BM25 on stemmed, stopword-free terms, reranked by type, confidence, pin and recency; hits
    whose relevance (specificity of the shared words) is under `floor` are dropped. Rung 4: LIKE when FTS5 is missing or broken.
    Rung 5: pinned records when everything else fails. Never raises on query syntax.
    """
    now = now or datetime.now(timezone.utc)
    tokens = text.content_tokens(query)
    terms = list(dict.fromkeys(tokens))[:MAX_TERMS]
    if not terms:
        return SearchResult(terms=())
    try:
        if has_fts(conn):
            return _fts_search(conn, terms, tokens, project_id, types, limit, history, scope, floor, now)
    except sqlite3.DatabaseError:
        pass  # a damaged or missing index: fall down the ladder
    try:
        return _like_search(conn, terms, project_id, types, limit, history, scope, floor, now)
    except sqlite3.Error:
        pass
    try:
        pinned = retrieval.pinned(conn, project_id, limit=limit)
    except sqlite3.Error:
        pinned = []
    # Pinned records carry no evidence of relevance: a caller that asks for a floor (the prompt hook) gets none.
    hits = () if floor > 0 else tuple(SearchHit(r, prior(r, now), 0.0, "pinned-only") for r in pinned)
    return SearchResult(hits, "pinned-only", tuple(terms))


def _fts_search(conn: sqlite3.Connection, terms: list[str], tokens: list[str], project_id: str,
                types: Sequence[str], limit: int, history: bool, scope: str | None, floor: float,
                now: datetime) -> SearchResult:
    all_stems = text.stems(tokens)
    stems = list(dict.fromkeys(all_stems))
    n_docs, avg_title, avg_body = retrieval.averages(conn)
    word_of: dict[str, str] = {}
    stem_of: dict[str, str] = {}
    for token, stem in zip(tokens, all_stems):
        word_of.setdefault(stem, token)
        stem_of.setdefault(token, stem)
    # Common terms come from the statistics consolidation keeps; the others are counted (cheap: they are rare).
    df = retrieval.cached_doc_freqs(conn, stems)
    uncounted = {s: w for s, w in word_of.items() if s not in df}
    df.update(retrieval.doc_freqs_capped(conn, uncounted, max(MATCH_ROWS, int(COMMON_SHARE * n_docs))))
    corpus = rank.Corpus.build(n_docs, avg_title, avg_body, df, Counter(all_stems))
    # Candidates come from FTS5 on the query's selective terms; the ranking is ours (BM25F over all terms).
    rows = retrieval.fts(conn, text.or_query(_candidate_terms(terms, [stem_of[t] for t in terms], df, n_docs)), project_id,
                         types=types, history=history, scope=scope, limit=max(limit * CANDIDATE_FACTOR, POOL_MIN))
    if not rows:
        return SearchResult(terms=tuple(terms))
    found = {record.id: record for record, _ in rows}
    own = _score_all(list(found.values()), stems, corpus)
    bonus: dict[str, float] = {}
    if NEIGHBOUR_WEIGHT and not history:
        top = sorted(own, key=lambda rid: -own[rid][0])[: limit * 2]
        extra: list[Record] = []
        with_session = [found[rid] for rid in top if found[rid].session_id]
        for rid, (before, after) in retrieval.session_neighbours(conn, with_session, project_id).items():
            for neighbour in (before, after):
                if neighbour is None or not _allowed(neighbour, types, scope, project_id):
                    continue
                if neighbour.id not in found:
                    found[neighbour.id] = neighbour
                    extra.append(neighbour)
                bonus[neighbour.id] = bonus.get(neighbour.id, 0.0) + NEIGHBOUR_WEIGHT * own[rid][0]
        own.update(_score_all(extra, stems, corpus))
    hits = []
    specific = rank.specificity(stems)
    for rid, (query_score, matched) in own.items():
        total = query_score + bonus.get(rid, 0.0)
        relevance = rank.relevance(matched, len(stems), specific)
        if total <= 0 or relevance < floor:
            continue
        record = found[rid]
        hits.append(SearchHit(record, total * prior(record, now), relevance))
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return SearchResult(tuple(hits[:limit]), None, tuple(terms))


def _candidate_terms(terms: list[str], term_stems: list[str], df: dict[str, int], n_docs: int) -> list[str]:
    """The terms worth asking FTS5 for, rarest first, until they would match about MATCH_ROWS records.

    FTS5 must compute BM25 for every row a term matches; common terms match thousands of rows while adding almost
    nothing to any score, so they count in the scoring but do not generate candidates.
    """
    by_rarity = sorted(zip(terms, term_stems), key=lambda ts: df.get(ts[1], 0))
    chosen: list[str] = []
    rows = 0
    for term, stem in by_rarity:
        n = df.get(stem, 0)
        if chosen and (rows + n > MATCH_ROWS or n > max(COMMON_SHARE * n_docs, COMMON_MIN)):
            break
        chosen.append(term)
        rows += n
    return chosen


def _score_all(records_: list[Record], stems: list[str], corpus: rank.Corpus) -> "dict[str, tuple[float, dict[str, float]]]":
    analyzed = text.analyze([(r.title, r.body) for r in records_], stems)
    return {r.id: rank.bm25f(doc, stems, corpus) for r, doc in zip(records_, analyzed)}


def _allowed(record: Record, types: Sequence[str], scope: str | None, project_id: str) -> bool:
    if types and record.type not in types:
        return False
    if scope == "global":
        return record.project_id == "_global"
    if scope == "project":
        return record.project_id == project_id
    return True


def _like_search(conn: sqlite3.Connection, terms: list[str], project_id: str, types: Sequence[str], limit: int,
                 history: bool, scope: str | None, floor: float, now: datetime) -> SearchResult:
    rows = retrieval.like(conn, terms, project_id, types=types, history=history, scope=scope,
                          limit=max(limit * CANDIDATE_FACTOR, 20))
    # Without the index there are no word statistics: relevance is the share of query terms a record contains.
    share_floor = min(floor, LIKE_SHARE_MAX)
    hits = [SearchHit(r, n / len(terms) * prior(r, now), n / len(terms), "like-search") for r, n in rows
            if n / len(terms) >= share_floor]
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return SearchResult(tuple(hits[:limit]), "like-search", tuple(terms))
