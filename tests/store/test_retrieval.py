"""FTS candidates: the filter-later path and the join path choose the same records in the same order."""

from __future__ import annotations

import random

from agentctx.store import records, retrieval

from .conftest import P, Q

WORDS = "cache storage sqlite index token budget session prompt hook digest parser router queue".split()


def _fill(conn, new, *, other_share: float, superseded_share: float) -> None:
    rng = random.Random(3)
    for i in range(240):
        project = Q if rng.random() < other_share else P
        title = " ".join(rng.choices(WORDS, k=4))
        body = " ".join(rng.choices(WORDS, k=30))
        record, _ = records.insert(conn, new(type_="discovery", title=f"{title} {i}", body=body, project_id=project))
        if rng.random() < superseded_share:
            records.supersede(conn, record.id, record.project_id, body=body + " revised")


def _join_path(conn, match, limit, **kw):
    """The join path alone: the filter-later path disabled."""
    original = retrieval._one_namespace
    retrieval._one_namespace = lambda conn, project_id: False
    try:
        return retrieval.fts(conn, match, P, limit=limit, **kw)
    finally:
        retrieval._one_namespace = original


def _same(conn, *, expect_one_namespace: bool) -> None:
    assert retrieval._one_namespace(conn, P) is expect_one_namespace
    for query in ("cache", "sqlite OR token", "hook OR digest OR parser", "router"):
        for limit in (1, 5, 12, 48):
            for kw in ({}, {"history": True}, {"scope": "project"}):
                fast = retrieval.fts(conn, query, P, limit=limit, **kw)
                assert fast == _join_path(conn, query, limit, **kw)
                assert len(fast) <= limit


def test_one_namespace_store_gives_the_join_paths_results(conn, new):
    _fill(conn, new, other_share=0.0, superseded_share=0.1)
    _same(conn, expect_one_namespace=True)


def test_mostly_superseded_store_falls_back_to_the_join(conn, new):
    _fill(conn, new, other_share=0.0, superseded_share=0.9)
    _same(conn, expect_one_namespace=True)


def test_other_projects_take_the_join_path(conn, new):
    _fill(conn, new, other_share=0.5, superseded_share=0.1)
    _same(conn, expect_one_namespace=False)
    assert retrieval._one_namespace(conn, Q) is False


def test_global_records_do_not_count_as_another_namespace(conn, new):
    records.insert(conn, new(type_="preference", title="Tabs", body="Tabs over spaces", scope="global"))
    records.insert(conn, new(title="Use SQLite", body="One file"))
    assert retrieval._one_namespace(conn, P) is True
    records.insert(conn, new(title="Use SQLite", body="One file", project_id=Q))
    assert retrieval._one_namespace(conn, P) is False


def test_term_stats_hold_the_common_terms_and_search_reads_them(tmp_path):
    from agentctx import db, search
    from agentctx.models import NewRecord
    from agentctx.store import records, retrieval

    conn = db.connect(tmp_path / "s.db", create=True)
    for i in range(30):
        records.insert(conn, NewRecord("decision", f"Cache rule {i}", f"cache entries expire {'rarely' if i == 7 else 'often'}",
                                       "p" * 64, confidence="explicit"))
    assert retrieval.cached_doc_freqs(conn, ["cach"]) == {}  # never computed: search counts instead
    before = [h.record.id for h in search.search(conn, "cache expire rarely", "p" * 64).hits]
    assert retrieval.refresh_term_stats(conn, 10) >= 2
    stats = retrieval.cached_doc_freqs(conn, ["cach", "expir", "rare"])
    assert stats == {"cach": 30, "expir": 30}  # "rarely" is in one record: not a common term
    assert [h.record.id for h in search.search(conn, "cache expire rarely", "p" * 64).hits] == before
