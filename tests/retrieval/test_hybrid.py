"""Hybrid retrieval: fusion with a fake embedder, and keyword-only (marked) whenever vectors cannot serve."""

from __future__ import annotations

import importlib.abc
import sys

import pytest

from agentctx.store import db
from agentctx.retrieval import hybrid
from agentctx.retrieval import search as keyword
from agentctx.base.models import NewRecord
from agentctx.store import records

P = "p" * 64


@pytest.fixture
def conn(tmp_path):
    c = db.connect(tmp_path / "agentctx.db", create=True)
    yield c
    c.close()


def _add(conn, title, body):
    return records.insert(conn, NewRecord(type="decision", title=title, body=body, project_id=P,
                                          confidence="explicit"))[0]


def _fake(**kw):
    pytest.importorskip("numpy")
    from tests.retrieval.vectors.conftest import FakeEmbedder

    return FakeEmbedder(**kw)


def test_vectors_find_what_keywords_miss(conn):
    fake = _fake(synonyms={"postgres": "database", "sqlite": "database"})
    from agentctx.retrieval.vectors import backfill

    target = _add(conn, "Store state in SQLite", "One file, no server.")
    _add(conn, "Use gRPC between services", "Protobuf contracts.")
    backfill.run(conn, fake)
    assert keyword.search(conn, "postgres", P).hits == ()
    result = hybrid.search(conn, "postgres", P, embedder=fake)
    assert result.degraded is None and result.hits[0].record.id == target.id


def test_fusion_keeps_keyword_order_when_vectors_agree(conn):
    fake = _fake()
    from agentctx.retrieval.vectors import backfill

    a = _add(conn, "Retry uploads with exponential backoff", "Backoff caps at 30 s.")
    _add(conn, "Upload size limit", "Uploads over 10 MB are rejected.")
    backfill.run(conn, fake)
    for fusion in (hybrid.DEFAULT, hybrid.RRF):
        assert hybrid.search(conn, "exponential backoff for retries", P, embedder=fake,
                             fusion=fusion).hits[0].record.id == a.id


def test_unembedded_store_is_plain_keyword(conn):
    _add(conn, "Use SQLite", "One file.")
    result = hybrid.search(conn, "sqlite", P)
    assert result.degraded is None and [h.record.title for h in result.hits] == ["Use SQLite"]


class _Blocker(importlib.abc.MetaPathFinder):
    """Makes the [vectors] extra look uninstalled."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "fastembed", "sqlite_vec", "onnxruntime"):
            raise ImportError(f"No module named {name!r}", name=name)
        return None


def test_missing_extra_degrades_to_marked_keyword_search(conn, monkeypatch):
    rec = _add(conn, "Use SQLite", "One file.")
    conn.execute("INSERT INTO embeddings VALUES (?, 'BAAI/bge-small-en-v1.5', 384, zeroblob(1536))", (rec.id,))
    for name in [m for m in sys.modules if m.split(".")[0] in ("numpy", "fastembed", "sqlite_vec", "onnxruntime")]:
        monkeypatch.delitem(sys.modules, name)
    for name in [m for m in sys.modules if m.startswith("agentctx.retrieval.vectors")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_Blocker(), *sys.meta_path])
    result = hybrid.search(conn, "sqlite", P)
    assert [h.record.id for h in result.hits] == [rec.id]
    assert result.degraded.startswith("keyword-only:") and "not installed" in result.degraded
    assert all(h.degraded == result.degraded for h in result.hits)


def test_broken_model_degrades_and_keeps_ladder_marker(conn, monkeypatch, tmp_path):
    from agentctx.base import config

    rec = _add(conn, "Use SQLite", "One file.")
    conn.execute("INSERT INTO embeddings VALUES (?, 'm', 384, zeroblob(1536))", (rec.id,))
    config.set_value("embeddingModelPath", str(tmp_path / "nowhere"))
    result = hybrid.search(conn, "sqlite", P)
    assert result.hits and result.degraded.startswith("keyword-only:")
    config.set_value("embeddings", "false")
    assert hybrid.search(conn, "sqlite", P).degraded is None  # off is a choice, not a degradation


def test_dimension_mismatch_is_marked(conn):
    fake = _fake(dims=16)
    rec = _add(conn, "Use SQLite", "One file.")
    conn.execute("INSERT INTO embeddings VALUES (?, ?, 8, zeroblob(32))", (rec.id, fake.name))
    result = hybrid.search(conn, "sqlite", P, embedder=fake)
    assert result.hits and "no stored vectors" in result.degraded and "agentctx embed" in result.degraded


def test_keyword_candidates_outside_the_dense_top_get_their_own_cosine(conn):
    fake = _fake()
    from agentctx.retrieval.vectors import backfill
    from agentctx.retrieval.vectors.embedder import document_text

    near = _add(conn, "Retry uploads with backoff", "Backoff caps at 30 s.")
    far = _add(conn, "Upload size limit", "Uploads over 10 MB are rejected.")
    backfill.run(conn, fake)
    query = "retry uploads with backoff"
    found = dict(hybrid._dense(conn, fake, query, P, (), False, None, 1, [near.id, far.id]))
    assert set(found) == {near.id, far.id}  # the nearest one, plus the keyword candidate it pushed out
    expected = float(fake.embed_query(query) @ fake.embed([document_text(far.title, far.body)])[0])
    assert found[far.id] == pytest.approx(expected, abs=1e-5)


def test_dense_feedback_moves_the_query_towards_the_keyword_seeds(conn):
    fake = _fake(dims=256)
    from agentctx.retrieval.vectors import backfill
    from agentctx.retrieval.vectors.embedder import document_text

    seed = _add(conn, "Retry uploads with backoff", "Jitter spreads the retries.")
    other = _add(conn, "Upload size limit", "Uploads over 10 MB are rejected.")
    backfill.run(conn, fake)
    query = "retry uploads"
    plain = dict(hybrid._dense(conn, fake, query, P, (), False, None, 2, []))
    fed = dict(hybrid._dense(conn, fake, query, P, (), False, None, 2, [], [seed.id], 1.0))
    assert fed[seed.id] > plain[seed.id] and fed[other.id] < plain[other.id]
    # Rocchio with beta 1: the unit query plus the seed's unit vector, renormalised.
    q, d = fake.embed_query(query), fake.embed([document_text(seed.title, seed.body)])[0]
    expected = (q + d) / float(((q + d) ** 2).sum() ** 0.5)
    assert fed[seed.id] == pytest.approx(float(expected @ d), abs=1e-5)
    result = hybrid.search(conn, query, P, embedder=fake, fusion=hybrid.DEFAULT._replace(prf=1))
    assert result.hits[0].record.id == seed.id


def test_session_smoothing_lifts_the_turns_of_the_best_session(conn):
    fake = _fake(dims=256)
    from agentctx.retrieval.vectors import backfill

    def turn(text, session):
        return records.insert(conn, NewRecord(type="decision", title=text, body=text, project_id=P,
                                              confidence="explicit", session_id=session))[0]

    elsewhere = turn("Downloads use backoff too", "s2")
    best = turn("Retry uploads with exponential backoff", "s1")
    turn("Logs rotate daily", "s1")  # keeps the next turn out of the best hit's neighbour share
    same = turn("Downloads use backoff too", "s1")
    loose = _add(conn, "Uploads over 10 MB are rejected", "Size limit.")  # no session: smoothing leaves it alone
    backfill.run(conn, fake)
    query = "exponential backoff for upload retries"
    plain = {h.record.id: h.score for h in hybrid.search(conn, query, P, embedder=fake).hits}
    smooth = {h.record.id: h.score for h in hybrid.search(conn, query, P, embedder=fake,
                                                           fusion=hybrid.DEFAULT._replace(session=0.5)).hits}
    assert plain[same.id] == pytest.approx(plain[elsewhere.id]) and smooth[same.id] > smooth[elsewhere.id]
    assert smooth[best.id] == pytest.approx(plain[best.id]) and smooth[loose.id] == pytest.approx(plain[loose.id])
    # Halfway towards the session's best candidate; a session's best keeps its own score.
    assert smooth[same.id] == pytest.approx((plain[same.id] + plain[best.id]) / 2)


# --- interactive search (issue 13 item 11): relevance floor, lazy model, cut -------------------------------------------

def test_relevant_hits_hide_generic_matches_and_partial_matches_beat_nothing(conn):
    good = _add(conn, "SQLite storage in WAL mode", "The store is one SQLite file with a busy timeout.")
    _add(conn, "Fix the login button", "Fix the button so the form can be submitted.")
    result = hybrid.search(conn, "fix the sqlite storage", P, relevant=hybrid.INTERACTIVE_FLOOR)
    assert [h.record.id for h in result.hits] == [good.id]
    both = hybrid.search(conn, "fix the sqlite storage", P)
    assert len(both.hits) == 2  # without the floor, the generic "fix" match is listed too
    only_partial = hybrid.search(conn, "sqlite button", P, relevant=hybrid.INTERACTIVE_FLOOR)
    assert len(only_partial.hits) == 2  # no record has both words: the partial matches, not nothing


class _CountingStatus:
    """A fake `hybrid.status`: counts model loads and serves a fake embedder."""

    def __init__(self, embedder):
        self.embedder, self.calls = embedder, 0

    def __call__(self, conn, embedder=None):
        self.calls += 1
        return self.embedder, None


def test_the_model_loads_only_when_keyword_results_need_it(conn, monkeypatch):
    fake = _fake(synonyms={"postgres": "database", "sqlite": "database"})
    from agentctx.retrieval.vectors import backfill

    for i in range(4):
        _add(conn, f"Cache invalidation rule {i}", f"Invalidate the cache entries of tenant {i} on deploy.")
    target = _add(conn, "Store state in SQLite", "One file, no server.")
    backfill.run(conn, fake)
    counting = _CountingStatus(fake)
    monkeypatch.setattr(hybrid, "status", counting)
    kw = dict(relevant=hybrid.INTERACTIVE_FLOOR, lazy=hybrid.LAZY_MIN, cut=hybrid.CUT)
    enough = hybrid.search(conn, "cache invalidation on deploy", P, **kw)
    assert counting.calls == 0 and len(enough.hits) == 4 and enough.degraded is None
    needed = hybrid.search(conn, "postgres", P, **kw)
    assert counting.calls == 1 and needed.hits[0].record.id == target.id

def test_the_cut_drops_what_is_a_sliver_of_the_best_score(conn):
    fake = _fake(synonyms={"postgres": "database", "sqlite": "database"})
    from agentctx.retrieval.vectors import backfill

    strong = _add(conn, "Backup the database nightly", "Copy the database file to S3.")
    medium = _add(conn, "Store state in SQLite", "One file.")
    weak = _add(conn, "Tenant notes", "database " + " ".join(f"word{i}" for i in range(30)))
    _add(conn, "Cache invalidation rule", "Invalidate cache entries on deploy.")
    backfill.run(conn, fake)
    everything = hybrid.search(conn, "postgres", P, embedder=fake)
    assert weak.id in [h.record.id for h in everything.hits]
    listed = hybrid.search(conn, "postgres", P, embedder=fake, relevant=hybrid.INTERACTIVE_FLOOR,
                           lazy=hybrid.LAZY_MIN, cut=hybrid.CUT)
    assert [h.record.id for h in listed.hits] == [strong.id, medium.id]
