"""Ranked retrieval: candidates from FTS5 posting lists, BM25F scoring, session neighbours, a prior, a relevance
floor, the ladder.

Relevance is word specificity: a word is specific when it is rare in general software text (its idf in the
background corpus, agentctx/retrieval/background.txt).
"""

import math
import sqlite3
from collections import Counter
from datetime import datetime, timezone
from collections.abc import Sequence  # loaded by sqlite3 already: free at run time

from ..base import text
from ..base.ids import parse_iso
from ..base.models import Record, SearchHit, SearchResult, record_type
from ..store import retrieval
from ..store.db import has_fts

# BM25F parameters. Title matches count double: a title says what the record is about.
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
# A repository's rule file (source `rule_file`, SPEC §4.12) is found by what it is about: its title (path and
# description or heading) and the paths it governs, which count as title; its body, often a long page of generic
# words ("upgrade", "CI", "test"), counts this much. The prompt hook injects one only for a word of its head.
RULE_BODY_WEIGHT = 0.25
# How the record will be asked (its questions and aliases, written when it was stored): each field normalised by its
# own mean length, as BM25F does, so a record with many questions is not favoured for having them. Weighed above the
# title: a stored question is what someone asks, in their words. Measured with the gate refitted, cross-validated by
# repository (docs/benchmarks.md): 3/2 over 1/1 lifts held-out question hits 0.750 -> 0.781 at the same unrelated rate.
QUESTIONS_WEIGHT = 3.0
ALIASES_WEIGHT = 2.0
# idf counted twice, as in tf-idf cosine (once for the query, once for the record): one specific shared
# identifier outweighs several common words, which long prompts are full of.
IDF_EXPONENT = 2.0
# A stem the query repeats matters more to the asker (a long prompt says its subject more than once).
QTF_EXPONENT = 1.0
MIN_SHARED = 2
# Specificity below which a shared word does not count towards MIN_SHARED ("add", "make", "run", "file").
TELLING = 0.1  # about: a word found in fewer than half of all software documents

# Type weights: decisions and conventions are what an agent most needs to keep honouring.
TYPE_WEIGHT = {"decision": 1.2, "convention": 1.1, "handover": 1.0, "preference": 1.0,
               "profile": 0.9, "discovery": 0.85, "bugfix": 0.85}
# Inferred records are hypotheses (SPEC §3.3): they rank below what the developer stated or what recurred.
CONFIDENCE_WEIGHT = {"explicit": 1.0, "reinforced": 1.0, "team": 0.9, "inferred": 0.75}
PIN_WEIGHT = 1.5
# Days for the recency factor to fall halfway to its floor; None = the type does not age.
HALF_LIFE_DAYS = {"decision": None, "convention": None, "profile": None, "preference": 180.0,
                  "discovery": 60.0, "bugfix": 60.0, "handover": 14.0}
RECENCY_FLOOR = 0.5
# Candidates scored per search: 4 per requested hit, at least 32 (the prompt hook asks for 6). They are chosen by
# the idf of the selective terms they contain, which needs a wider pool than FTS5's bm25 order would to keep what
# scoring every matching row would show (measured in docs/benchmarks.md, Hooks).
CANDIDATE_FACTOR = 4
POOL_MIN = 32
# A term in more than this share of the store (and more than COMMON_MIN records) does not generate candidates.
COMMON_SHARE = 0.05
COMMON_MIN = 50
MATCH_ROWS = 600
# Terms found in at least this many records have their counts kept by consolidation (store.retrieval.term_stats).
TERM_STATS_MIN = 100
MAX_TERMS = 64
# Of those, the last distinct words of the query keep this many places (the end of a pasted log: its error).
TAIL_TERMS = 16
# Records written one after another in a session share context (a question and its answer, a decision and
# its follow-up): each of the best hits lends this share of its score to its session neighbours.
NEIGHBOUR_WEIGHT = 0.5
DEFAULT_FLOOR = 0.0
# The prompt hook's fixed relevance floor before the fitted gate (agentctx/retrieval/relevance.py) replaced it; kept as a
# strict floor for callers that want one, and as the "before" of docs/benchmarks.md.
PROMPT_FLOOR = 1.0
# The LIKE rung knows only the share of query terms a record contains: a floor means at most this share there.
LIKE_SHARE_MAX = 0.6
# Query expansion (agentctx/retrieval/expansion.py) for searches someone asked for: a record naming what a query word also
# names ("database": PostgreSQL) counts as holding the word. Up to this many distinct query stems: a long text
# says what it means in its own words, and expanding it only adds chance matches. The prompt hook does not expand:
# measured, it let more unrelated prompts through its gate than it brought related ones (docs/benchmarks.md).
EXPAND_MAX_TERMS = 12


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
           now: datetime | None = None, expand: bool = True) -> SearchResult:
    """The best `limit` records for `query` visible from `project_id`.

    Rung 1: FTS5 BM25 on stemmed, stopword-free terms (with `expand`, a short query's words also match the other
    names agentctx/retrieval/expansion.py knows for them), reranked by type, confidence, pin and recency; hits
    whose relevance (specificity of the shared words) is under `floor` are dropped. Rung 4: LIKE when FTS5 is missing or broken.
    Rung 5: pinned records when everything else fails. Never raises on query syntax.
    """
    now = now or datetime.now(timezone.utc)
    tokens = text.query_tokens(query)
    terms = _terms(tokens)
    if not terms:
        return SearchResult(terms=())
    try:
        if has_fts(conn):
            result = _fts_search(conn, terms, tokens, project_id, types, limit, history, scope, floor, now, expand)
            unsegmented = [t for t in terms if text.unsegmented(t)] if expand else []
            return _with_substrings(conn, result, unsegmented, project_id, types, limit, history, scope, floor,
                                    now) if unsegmented else result
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


def _terms(tokens: list[str]) -> list[str]:
    """The distinct tokens in first-seen order, at most MAX_TERMS: when there are more, the last TAIL_TERMS distinct
    ones are kept with the first ones (a long paste's many words would otherwise crowd out the words after it)."""
    distinct = list(dict.fromkeys(tokens))
    if len(distinct) <= MAX_TERMS:
        return distinct
    last = set(list(dict.fromkeys(reversed(tokens)))[:TAIL_TERMS])
    first = set([t for t in distinct if t not in last][:MAX_TERMS - len(last)])
    return [t for t in distinct if t in first or t in last]


def _fts_search(conn: sqlite3.Connection, terms: list[str], tokens: list[str], project_id: str,
                types: Sequence[str], limit: int, history: bool, scope: str | None, floor: float,
                now: datetime, expand: bool = True) -> SearchResult:
    all_stems = text.stems(tokens)
    stems = list(dict.fromkeys(all_stems))
    n_docs, avg_title, avg_body, avg_questions, avg_aliases = retrieval.averages(conn)
    word_of: dict[str, str] = {}
    stem_of: dict[str, str] = {}
    for token, stem in zip(tokens, all_stems):
        word_of.setdefault(stem, token)
        stem_of.setdefault(token, stem)
    # Common terms' counts come from the statistics consolidation keeps; the others' posting lists are read (cheap:
    # they are rare, and capped), which counts them too.
    df = retrieval.cached_doc_freqs(conn, stems)
    cap = max(MATCH_ROWS, int(COMMON_SHARE * n_docs))
    postings = retrieval.term_rows(conn, {s: w for s, w in word_of.items() if s not in df}, cap)
    expanded: "dict[str, dict[str, str]]" = {}
    if expand and len(stems) <= EXPAND_MAX_TERMS:
        from . import expansion  # not on the prompt hook's path, which does not expand

        expanded = expansion.lookup(stems)
    other_rows = {q: retrieval.any_rows(conn, list(names.values()), cap) for q, names in expanded.items()}
    for q, rows in other_rows.items():
        if q in postings:  # the records holding the word or one of its other names: one posting list
            postings[q] = sorted(set(postings[q]).union(rows), reverse=True)[:cap + 1]
        else:  # a common word, counted by term_stats
            df[q] = min(n_docs, df.get(q, 0) + len(rows))
    df.update((s, len(rows)) for s, rows in postings.items())
    corpus = Corpus.build(n_docs, avg_title, avg_body, df, Counter(all_stems), avg_questions, avg_aliases)
    chosen = list(dict.fromkeys(stem_of[t] for t in _candidate_terms(terms, [stem_of[t] for t in terms], df, n_docs)))
    for stem, rows in retrieval.term_rows(conn, {s: word_of[s] for s in chosen if s not in postings}, cap).items():
        postings[stem] = sorted(set(rows).union(other_rows.get(stem, ())), reverse=True)
    # Candidates: the rows matching the selective terms, most idf-weighted selective terms first, newest first among
    # equals; the ranking is ours (BM25F over all terms). FTS5's own bm25() would cost ~2 µs per matching row.
    coverage: dict[int, float] = {}
    for stem in chosen:
        weight = corpus.weight.get(stem, 0.0)
        for rid in postings[stem]:
            coverage[rid] = coverage.get(rid, 0.0) + weight
    # Newest first, then (a stable sort) by coverage: C-level keys, no Python call per row.
    ranked = sorted(sorted(coverage, reverse=True), key=coverage.__getitem__, reverse=True)
    rows = retrieval.in_order(conn, ranked, project_id, types=types, history=history, scope=scope,
                              limit=max(limit * CANDIDATE_FACTOR, POOL_MIN))
    if not rows:
        return SearchResult(terms=tuple(terms), specific=specificity(stems),
                            frequency=(n_docs, {s: df.get(s, 0) for s in stems}))
    found = {record.id: record for record in rows}
    own = _score_all(list(found.values()), stems, corpus, expanded)
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
        own.update(_score_all(extra, stems, corpus, expanded))
    hits = []
    specific = specificity(stems)
    for rid, (query_score, matched, asked) in own.items():
        total = query_score + bonus.get(rid, 0.0)
        sure = relevance(matched, len(stems), specific)
        if total <= 0 or sure < floor:
            continue
        record = found[rid]
        hits.append(SearchHit(record, total * prior(record, now), sure, None, matched, asked))
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return SearchResult(tuple(hits[:limit]), None, tuple(terms), specific, (n_docs, {s: df.get(s, 0) for s in stems}))


def _candidate_terms(terms: list[str], term_stems: list[str], df: dict[str, int], n_docs: int) -> list[str]:
    """The terms whose matching rows become candidates, rarest first, until they would match about MATCH_ROWS rows.

    Common terms match thousands of rows while adding almost nothing to any score: they count in the scoring but
    do not generate candidates.
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


def _score_all(records_: list[Record], stems: list[str], corpus: "Corpus",
               expanded: "dict[str, dict[str, str]] | None" = None
               ) -> "dict[str, tuple[float, dict[str, float], dict[str, bool]]]":
    members = [m for names in (expanded or {}).values() for m in names]
    analyzed = text.analyze([(_head(r), r.body, "\n".join(r.questions), "\n".join(r.aliases)) for r in records_],
                            stems + members)
    if members:
        for doc in analyzed:
            _fold(doc, expanded)  # type: ignore[arg-type]
    return {r.id: bm25f(doc, stems, corpus, RULE_BODY_WEIGHT if r.source == "rule_file" else BODY_WEIGHT)
            for r, doc in zip(records_, analyzed)}


def _head(record: Record) -> str:
    """What a record is about, scored as its title: a rule file's record adds the paths it governs."""
    if record.source != "rule_file" or not record.anchors:
        return record.title
    return record.title + "\n" + " ".join(a.split(":", 1)[-1] for a in record.anchors)


def _fold(doc: "text.DocTerms", expanded: "dict[str, dict[str, str]]") -> None:
    """Count each other name a record uses as the query word it stands for, per column."""
    for column in (doc.title, doc.body, doc.questions, doc.aliases):
        if not column:
            continue
        found = {q: sum(column.get(m, 0) for m in names) for q, names in expanded.items()}
        for names in expanded.values():
            for m in names:
                column.pop(m, None)
        for q, n in found.items():
            if n:
                column[q] = column.get(q, 0) + n


def _allowed(record: Record, types: Sequence[str], scope: str | None, project_id: str) -> bool:
    if types and record.type not in types:
        return False
    if scope == "global":
        return record.project_id == "_global"
    if scope == "project":
        return record.project_id == project_id
    return True


def _with_substrings(conn: sqlite3.Connection, result: SearchResult, runs: list[str], project_id: str,
                     types: Sequence[str], limit: int, history: bool, scope: str | None, floor: float,
                     now: datetime) -> SearchResult:
    """CJK, Thai and other scripts written without spaces: the index's tokenizer keeps a whole run of them as one
    word, so "日本語" never matches "日本語の設定". For searches someone asks for (not the prompt hook), such runs
    also match as substrings; those records are ranked like the LIKE rung, after the index's own hits."""
    have = {h.record.id for h in result.hits}
    rows = retrieval.like(conn, runs, project_id, types=types, history=history, scope=scope,
                          limit=max(limit * CANDIDATE_FACTOR, 20))
    extra = [SearchHit(r, n / len(runs) * prior(r, now), n / len(runs)) for r, n in rows
             if r.id not in have and n / len(runs) >= min(floor, LIKE_SHARE_MAX)]
    extra.sort(key=lambda h: (-h.score, h.record.id))
    return result._replace(hits=(tuple(result.hits) + tuple(extra))[:limit])


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


# Scoring: BM25F over title and body with squared, always-positive idf; relevance by specificity.

class Corpus(record_type("Corpus", "n_docs avg_title avg_body weight avg_questions avg_aliases", defaults=(0.0, 0.0))):
    """Index-wide statistics and the query: record count, average column lengths, and each query stem's weight
    (idf, scaled by how often the query repeats the stem)."""

    __slots__ = ()

    @classmethod
    def build(cls, n_docs: int, avg_title: float, avg_body: float, df: dict[str, int],
              qtf: dict[str, int] | None = None, avg_questions: float = 0.0, avg_aliases: float = 0.0) -> "Corpus":
        qtf = qtf or {}
        return cls(n_docs, avg_title, avg_body,
                   {s: idf(n_docs, d) * qtf.get(s, 1) ** QTF_EXPONENT for s, d in df.items()},
                   avg_questions, avg_aliases)


def idf(n_docs: int, df: int) -> float:
    """Lucene's BM25 idf: always positive, so a term in most records still counts a little (small stores)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) ** IDF_EXPONENT


def bm25f(doc: "text.DocTerms", stems: list[str], corpus: Corpus,
          body_weight: float = BODY_WEIGHT) -> "tuple[float, dict[str, float], dict[str, bool]]":
    """(BM25F score, the query stems the record contains, each with the weight of the best field it is in, those of
    them in its questions or aliases: True when only there).

    Title and body share one length normalisation (as before the asked-as fields existed); questions and aliases
    each have their own, by their own mean length; the weighted, normalised counts saturate together. `body_weight`:
    RULE_BODY_WEIGHT for a rule file's record (its length normalised as any record's)."""
    avg = TITLE_WEIGHT * corpus.avg_title + BODY_WEIGHT * corpus.avg_body or 1.0
    length = TITLE_WEIGHT * doc.title_len + BODY_WEIGHT * doc.body_len
    norm = 1 - B + B * length / avg
    questions, aliases = doc.questions, doc.aliases
    q_norm = (1 - B + B * doc.questions_len / corpus.avg_questions) if questions and corpus.avg_questions else 1.0
    a_norm = (1 - B + B * doc.aliases_len / corpus.avg_aliases) if aliases and corpus.avg_aliases else 1.0
    total = 0.0
    matched: "dict[str, float]" = {}
    asked: "dict[str, bool]" = {}
    weights = corpus.weight
    for stem in stems:
        tf = (TITLE_WEIGHT * doc.title.get(stem, 0) + body_weight * doc.body.get(stem, 0)) / norm
        best = TITLE_WEIGHT if stem in doc.title else body_weight if stem in doc.body else 0.0
        if (questions or aliases) and (stem in questions or stem in aliases):
            tf += (QUESTIONS_WEIGHT * questions.get(stem, 0) / q_norm + ALIASES_WEIGHT * aliases.get(stem, 0) / a_norm)
            asked[stem] = not best
            best = best or (QUESTIONS_WEIGHT if stem in questions else ALIASES_WEIGHT)
        if tf:
            matched[stem] = best
            total += weights[stem] * tf * (K1 + 1) / (tf + K1)
    return total, matched, asked


def relevance(matched: "dict[str, float]", n_query: int, specific: dict[str, float]) -> float:
    """How surely a record is about the query: the specificity of the query words it shares, a word in the title
    counting TITLE_WEIGHT times (as in BM25F: a title says what the record is about).

    Generic words ("add", "fix", "run") are shared by unrelated text; words rare in general software text are
    not. A record must share at least two telling (not generic) words with the query, unless it has only one.
    """
    telling = [s for s in matched if specific.get(s, 1.0) >= TELLING]
    if len(telling) < min(MIN_SHARED, n_query):
        return 0.0
    return sum(specific.get(s, 1.0) * weight for s, weight in matched.items())


# Word specificity: background idf, from agentctx/retrieval/background.txt (built by tools/build_background.py): a header of
# "# documents N" and "# scale S" lines, then "stem<TAB>bucket" lines sorted by stem, bucket = round(S * ln(df)).
BACKGROUND_FILE = "background.txt"
_table: "tuple[bytes, float, float] | None" = None


def _load() -> "tuple[bytes, float, float]":
    """(the stem lines as one newline-framed bytes object, N, scale). A data file rather than a module: reading 53 KB
    costs a prompt hook far less than importing it; bytes, because decoding text with a few non-ASCII stems costs
    ~0.15 ms and UTF-8 sorts as the stems do; one object, because splitting 5,600 lines costs ~0.4 ms and a lookup
    ~10 µs."""
    global _table
    if _table is None:
        import os

        with open(os.path.join(os.path.dirname(__file__), BACKGROUND_FILE), "rb") as fh:
            data = fh.read()
        header: dict[bytes, bytes] = {}
        body = 0
        while data.startswith(b"#", body):
            end = data.index(b"\n", body)
            key, _, value = data[body + 1:end].strip().partition(b" ")
            header[key] = value
            body = end + 1
        _table = (b"\n" + data[body:].rstrip(b"\n") + b"\n", float(header[b"documents"]), float(header[b"scale"]))
    return _table


def _find(table: bytes, stem: str) -> int:
    """The bucket of `stem` in the sorted, newline-framed "stem<TAB>bucket" lines, or -1: a binary search on the
    bytes ("\t" sorts before every character a stem has, so the lines sort as their stems do)."""
    key = stem.encode("utf-8")
    lo, hi = 0, len(table) - 1  # both are framing newlines; the lines still in play lie between them
    while lo < hi:
        start = table.rfind(b"\n", lo, (lo + hi) // 2 + 1)  # the newline opening the line at the middle
        end = table.find(b"\n", start + 1)
        tab = table.find(b"\t", start + 1, end)
        word = table[start + 1:tab]
        if word == key:
            return int(table[tab + 1:end])
        if word < key:
            lo = end
        else:
            hi = start
    return -1


# Numbers of one and two digits are among the commonest tokens of software text (list items, versions, sizes:
# measured on tools/build_background.py's corpus, "1" in 82% of the documents, the median two-digit number in 24%),
# but the background file keeps no numbers, so they read as never seen: "2.5" in a question about a model matched a
# decision about Django 5.2 as if both said a rare word. Their background specificity instead; longer numbers (ports,
# status codes, years) stay as specific as unseen words.
NUMBER_SPECIFICITY = (0.05, 0.15)


def specificity(stems: list[str]) -> dict[str, float]:
    """Each stem's background idf, ln(N / (1 + df)), in units of a word never seen in the background (0..~1)."""
    table, n, scale = _load()
    top = math.log(n / 2)
    out: dict[str, float] = {}
    for stem in stems:
        if len(stem) <= len(NUMBER_SPECIFICITY) and stem.isdigit() and stem.isascii():
            out[stem] = NUMBER_SPECIFICITY[len(stem) - 1]
            continue
        bucket = _find(table, stem) if "\n" not in stem and "\t" not in stem else -1
        df = math.exp(bucket / scale) if bucket >= 0 else 1.0
        out[stem] = max(0.0, math.log(n / (1 + df))) / top
    return out
