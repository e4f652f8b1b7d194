"""Retrieval queries: posting lists, candidates in rank order under the visibility rules, term statistics."""

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


def _visible(conn, rowid, *, history=False, scope=None, types=()):
    """The reference rule, record by record: what in_order must keep."""
    row = conn.execute("SELECT project_id, scope, superseded_at, type FROM records WHERE rowid = ?", (rowid,)).fetchone()
    project_id, record_scope, superseded_at, type_ = row
    if superseded_at is not None and not history:
        return False
    if types and type_ not in types:
        return False
    if scope == "global":
        return project_id == "_global" and record_scope == "global"
    if scope == "project":
        return project_id == P
    return project_id == P or (project_id == "_global" and record_scope == "global")


def _check_in_order(conn):
    rng = random.Random(5)
    rowids = [r for (r,) in conn.execute("SELECT rowid FROM records")]
    for _ in range(20):
        ranked = rng.sample(rowids, len(rowids))
        for limit in (1, 5, 32, 200):
            for kw in ({}, {"history": True}, {"scope": "project"}, {"types": ("discovery",)}):
                got = [r.id for r in retrieval.in_order(conn, ranked, P, limit=limit, **kw)]
                want = [conn.execute("SELECT id FROM records WHERE rowid = ?", (rid,)).fetchone()[0]
                        for rid in ranked if _visible(conn, rid, **kw)][:limit]
                assert got == want


def test_in_order_keeps_the_rank_order_and_the_visibility_rules(conn, new):
    _fill(conn, new, other_share=0.0, superseded_share=0.1)
    _check_in_order(conn)


def test_in_order_reads_past_batches_of_invisible_rows(conn, new):
    _fill(conn, new, other_share=0.8, superseded_share=0.5)  # most rows belong to Q or are history
    _check_in_order(conn)


def test_in_order_shows_global_records_but_not_other_projects(conn, new):
    own = records.insert(conn, new(title="Use SQLite", body="One file"))[0]
    shared = records.insert(conn, new(type_="preference", title="Tabs", body="Tabs over spaces", scope="global"))[0]
    other = records.insert(conn, new(title="Use SQLite", body="One file", project_id=Q))[0]
    rowid = {rid: r for r, rid in conn.execute("SELECT rowid, id FROM records")}
    ranked = [rowid[other.id], rowid[shared.id], rowid[own.id]]
    assert [r.id for r in retrieval.in_order(conn, ranked, P)] == [shared.id, own.id]
    assert [r.id for r in retrieval.in_order(conn, ranked, P, scope="global")] == [shared.id]


def test_term_rows_are_posting_lists_newest_first_and_capped(conn, new):
    for i in range(12):
        records.insert(conn, new(title=f"Caching rule {i}", body="entries are cached" if i % 2 else "nothing here"))
    rows = retrieval.term_rows(conn, {"cach": "caching", "entri": "entries", "zzz": 'zz"z'}, cap=100)
    everything = [r for (r,) in conn.execute("SELECT rowid FROM records ORDER BY rowid DESC")]
    assert rows["cach"] == everything  # every title has "Caching": stems match inflections
    assert rows["entri"] == [r for r in everything if r % 2 == 0]  # rowids 2, 4, ... hold the odd i
    assert rows["zzz"] == []  # a quote in a term is a literal, not FTS5 syntax
    assert retrieval.term_rows(conn, {"cach": "cache"}, cap=4)["cach"] == everything[:5]  # cap + 1: "more than cap"


def test_term_stats_hold_the_common_terms_and_search_reads_them(tmp_path):
    from agentctx.store import db
    from agentctx.retrieval import search
    from agentctx.base.models import NewRecord
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


def test_in_order_filters_long_rankings_in_chunks(conn, new):
    for i in range(1000):
        records.insert(conn, new(title=f"Other project rule {i}", body="x", project_id=Q if i < 990 else P))
    ranked = [r for (r,) in conn.execute("SELECT rowid FROM records ORDER BY rowid")]  # P's rows come last
    got = retrieval.in_order(conn, ranked, P, limit=5)
    assert [r.title for r in got] == [f"Other project rule {i}" for i in range(990, 995)]
    assert retrieval.in_order(conn, ranked, P, limit=50) == retrieval.in_order(conn, ranked[::-1], P, limit=50)[::-1]


def test_session_neighbours_skip_history_and_other_projects(conn, new):
    def add(title, session, project=P):
        return records.insert(conn, new(title=title, body="b", project_id=project, session_id=session))[0]

    a, b = add("a", "s1"), add("b", "s1")
    hidden = add("hidden", "s1", project=Q)  # another project's record in the same session id
    old = add("old", "s1")
    records.supersede(conn, old.id, P, body="changed")  # its successor comes later, in no session
    c = add("c", "s1")
    lone = add("lone", "s2")
    got = retrieval.session_neighbours(conn, [a, b, c, lone, new_free := records.insert(conn, new(title="x"))[0]], P)
    assert new_free.id not in got  # no session: no neighbours
    name = {None: None, **{r.id: r.title for r in (a, b, c, lone, hidden)}}
    pairs = {name[k]: tuple(r.title if r else None for r in v) for k, v in got.items()}
    assert pairs == {"a": (None, "b"), "b": ("a", "c"), "c": ("b", None), "lone": (None, None)}
