"""Search: stemmed BM25, the rerank, the relevance floor, history, scopes, isolation and the degradation ladder.

Scores are being re-tuned: these tests assert orderings and properties any sane ranking keeps, never values.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from agentctx.store import db
from agentctx.retrieval import search
from agentctx.base.models import NewRecord
from agentctx.store import records, retrieval

P = "p" * 64
Q = "q" * 64


@pytest.fixture
def conn(tmp_path):
    c = db.connect(tmp_path / "s.db", create=True)
    yield c
    c.close()


def add(conn, title, body="Some body text.", type_="decision", project_id=P, **kw):
    return records.insert(conn, NewRecord(type_, title, body, project_id, **kw))[0]


def titles(result):
    return [h.record.title for h in result.hits]


@pytest.fixture
def corpus(conn):
    add(conn, "Use gRPC for internal services", "Service-to-service calls go over gRPC with protobuf.")
    add(conn, "Auth tokens", "Rotate auth tokens every 24 hours; refresh tokens live 30 days.")
    add(conn, "Token bucket rate limiter", "The API gateway limits requests with a token bucket.")
    add(conn, "Prefer small commits", "Keep commits small and focused.", type_="preference")
    add(conn, "Run the test suite with pytest -q", "Tests live in tests/ and run in under a minute.",
        type_="convention")
    return conn


def test_exact_topic_match_only(corpus):
    result = search.search(corpus, "grpc services", P)
    assert titles(result) == ["Use gRPC for internal services"]
    assert result.degraded is None
    assert result.terms == ("grpc", "services")


def test_best_match_first(corpus):
    result = search.search(corpus, "auth tokens rotate", P)
    assert titles(result)[0] == "Auth tokens"
    assert "Token bucket rate limiter" in titles(result)  # a weaker match still appears, lower


def test_stemming_matches_other_word_forms(corpus):
    assert titles(search.search(corpus, "running tests", P))[0] == "Run the test suite with pytest -q"
    assert "Auth tokens" in titles(search.search(corpus, "rotating token", P))


def test_scores_descend_and_relevance_is_not_negative(corpus):
    hits = search.search(corpus, "tokens auth rate limiter commits", P).hits
    assert len(hits) >= 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.relevance >= 0.0 for h in hits)


def test_results_are_deterministic(corpus):
    first = search.search(corpus, "tokens", P)
    assert [h.record.id for h in first.hits] == [h.record.id for h in search.search(corpus, "tokens", P).hits]


@pytest.mark.parametrize("query", ["", "   ", "the and of with", "?!", "a b c"])
def test_blank_or_stopword_only_queries_return_nothing(corpus, query):
    result = search.search(corpus, query, P)
    assert result.hits == () and result.degraded is None


@pytest.mark.parametrize("query", [
    '"x" AND (NOT)', 'tokens AND (NOT)', 'NEAR(auth tokens, 2)', "auth*", "title:auth", "^auth", '"', "'", "''",
    "\\", "%_%", "tokens OR", "(((", "ünïcødé 数据库 🚀", "Übergrößenträger", "auth\x00tokens", "-auth +tokens",
    "a" * 5000, "tokens " * 300,
])
def test_query_syntax_never_crashes(corpus, query):
    result = search.search(corpus, query, P)
    assert result.degraded is None
    assert all(isinstance(h.score, float) for h in result.hits)


def test_unicode_records_are_found(conn):
    add(conn, "Café menü naïve", "Ünïcødé body about 数据库 storage")
    assert titles(search.search(conn, "cafe", P)) == ["Café menü naïve"]  # diacritics folded
    assert titles(search.search(conn, "数据库", P)) == ["Café menü naïve"]


def test_superseded_records_are_hidden_unless_history_is_asked(conn):
    old = add(conn, "Use REST everywhere", "HTTP JSON for every service.")
    _, new = records.supersede(conn, old.id, P, body="gRPC between services; REST only at the edge.")
    current = search.search(conn, "REST services", P)
    assert [h.record.id for h in current.hits] == [new.id]
    with_history = search.search(conn, "REST services", P, history=True)
    assert {h.record.id for h in with_history.hits} == {old.id, new.id}


def test_pinned_ranks_first_among_identical_records(conn):
    plain = add(conn, "Deploy with blue green", "Switch traffic after health checks.")
    pinned = add(conn, "Deploy with blue green", "Switch traffic after health checks.", pinned=True)
    assert [h.record.id for h in search.search(conn, "deploy blue green", P).hits] == [pinned.id, plain.id]
    records.set_pinned(conn, pinned.id, P, False)
    records.set_pinned(conn, plain.id, P, True)
    assert search.search(conn, "deploy blue green", P).hits[0].record.id == plain.id


@pytest.mark.parametrize("strong", ["explicit", "reinforced"])
def test_inferred_ranks_below_explicit_and_reinforced(conn, strong):
    weak = add(conn, "Cache invalidation by key", "Invalidate cache entries by key prefix.", confidence="inferred")
    sure = add(conn, "Cache invalidation by key", "Invalidate cache entries by key prefix.", confidence=strong)
    hits = search.search(conn, "cache invalidation", P).hits
    assert [h.record.id for h in hits] == [sure.id, weak.id]
    assert hits[0].relevance == pytest.approx(hits[1].relevance)  # the prior moves the score, not the relevance


def test_recent_ranks_above_old_for_decaying_types(conn):
    now = datetime.now(timezone.utc)
    fresh = add(conn, "Flaky websocket test", "Retry the websocket handshake.", type_="discovery")
    stale = add(conn, "Flaky websocket test", "Retry the websocket handshake.", type_="discovery")
    conn.execute("UPDATE records SET recorded_at = ? WHERE id = ?",
                 ((now - timedelta(days=365)).isoformat(), stale.id))
    hits = search.search(conn, "websocket test", P, now=now).hits
    assert [h.record.id for h in hits] == [fresh.id, stale.id]


def test_decisions_do_not_decay(conn):
    now = datetime.now(timezone.utc)
    a = add(conn, "Use Postgres", "For the main store.")
    b = add(conn, "Use Postgres", "For the main store.")
    conn.execute("UPDATE records SET recorded_at = ? WHERE id = ?", ((now - timedelta(days=900)).isoformat(), a.id))
    hits = search.search(conn, "postgres", P, now=now).hits
    assert hits[0].score == pytest.approx(hits[1].score)


def test_decision_outranks_discovery_with_the_same_text(conn):
    disc = add(conn, "Queue retries use backoff", "Exponential backoff up to 5 tries.", type_="discovery")
    dec = add(conn, "Queue retries use backoff", "Exponential backoff up to 5 tries.", type_="decision")
    assert [h.record.id for h in search.search(conn, "queue retries backoff", P).hits] == [dec.id, disc.id]


def test_title_match_outranks_body_only_match(conn):
    in_body = add(conn, "Storage notes", "We picked sqlite because it is one file.")
    in_title = add(conn, "SQLite for storage", "One file, no server.")
    assert search.search(conn, "sqlite", P).hits[0].record.id == in_title.id
    assert in_body.id in [h.record.id for h in search.search(conn, "sqlite", P).hits]


def test_more_matched_terms_rank_higher(conn):
    one = add(conn, "Logging format", "Use structured logging.")
    three = add(conn, "Logging format rotation", "Use structured logging with daily rotation and retention.")
    hits = search.search(conn, "logging rotation retention", P).hits
    assert hits[0].record.id == three.id and hits[-1].record.id == one.id
    assert hits[0].relevance > hits[-1].relevance


def test_relevance_floor_drops_weak_matches(corpus):
    everything = search.search(corpus, "auth tokens rotate", P)
    assert len(everything.hits) >= 2
    strongest = max(h.relevance for h in everything.hits)
    weakest = min(h.relevance for h in everything.hits)
    assert weakest < strongest
    floored = search.search(corpus, "auth tokens rotate", P, floor=(weakest + strongest) / 2)
    assert 1 <= len(floored.hits) < len(everything.hits)
    assert all(h.relevance >= (weakest + strongest) / 2 for h in floored.hits)
    assert search.search(corpus, "auth tokens rotate", P, floor=strongest + 0.01).hits == ()


def test_title_words_count_double_in_relevance():
    specific = {"grpc": 0.8, "servic": 0.3, "intern": 0.4}
    body_only = search.relevance({"grpc": search.BODY_WEIGHT, "servic": search.BODY_WEIGHT}, 3, specific)
    in_title = search.relevance({"grpc": search.TITLE_WEIGHT, "servic": search.BODY_WEIGHT}, 3, specific)
    assert body_only == pytest.approx(1.1) and in_title == pytest.approx(1.9)
    # Still two telling words at least: one word in the title is not enough, however specific.
    assert search.relevance({"grpc": search.TITLE_WEIGHT}, 3, specific) == 0.0


def test_a_whole_title_match_clears_the_prompt_floor(corpus):
    hit = search.search(corpus, "Use gRPC for internal services", P).hits[0]
    assert hit.relevance >= search.PROMPT_FLOOR


def test_unrelated_query_finds_nothing(corpus):
    assert search.search(corpus, "kubernetes helm chart", P, floor=search.PROMPT_FLOOR).hits == ()


def test_types_and_limit(corpus):
    assert titles(search.search(corpus, "tokens", P, types=["decision"], limit=1)) in (
        ["Auth tokens"], ["Token bucket rate limiter"])
    assert titles(search.search(corpus, "tests commits", P, types=["preference"])) == ["Prefer small commits"]
    assert len(search.search(corpus, "tokens", P, limit=1).hits) == 1


def test_projects_never_see_each_other(conn):
    add(conn, "Secret plan of P", "Only P may read this plan.")
    add(conn, "Secret plan of Q", "Only Q may read this plan.", project_id=Q)
    assert titles(search.search(conn, "secret plan", P)) == ["Secret plan of P"]
    assert titles(search.search(conn, "secret plan", Q)) == ["Secret plan of Q"]
    assert search.search(conn, "secret plan", "r" * 64).hits == ()


def test_scopes(conn, invisible):
    add(conn, "Editor tabs", "Project says tabs.")
    add(conn, "Editor tabs globally", "I like tabs everywhere.", type_="preference", scope="global")
    invisible(conn, "Editor tabs in _global", "Project-scoped row in the global namespace.")
    assert sorted(titles(search.search(conn, "editor tabs", P))) == ["Editor tabs", "Editor tabs globally"]
    assert titles(search.search(conn, "editor tabs", P, scope="project")) == ["Editor tabs"]
    assert titles(search.search(conn, "editor tabs", P, scope="global")) == ["Editor tabs globally"]
    assert titles(search.search(conn, "editor tabs", Q)) == ["Editor tabs globally"]


def test_hit_index_form_has_the_script_keys(corpus):
    row = search.search(corpus, "grpc", P).hits[0].to_index()
    assert {"id", "type", "title", "score"} <= set(row)
    assert "body" not in row


# --- degradation ladder ---------------------------------------------------------------------------------------------

def drop_fts(conn):
    for trigger in ("records_ai", "records_ad", "records_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE records_fts_vocab")
    conn.execute("DROP TABLE records_fts")


def test_rung4_like_search_without_the_fts_table(corpus):
    drop_fts(corpus)
    assert not db.has_fts(corpus)
    add(corpus, "Added after the index went away", "grpc mention")  # writes still work without FTS
    result = search.search(corpus, "grpc services", P)
    assert result.degraded == "like-search"
    assert all(h.degraded == "like-search" for h in result.hits)
    assert titles(result)[0] == "Use gRPC for internal services"
    assert "Added after the index went away" in titles(result)


def test_rung4_applies_the_prompt_floor_as_a_share_of_the_terms(corpus):
    drop_fts(corpus)
    # The prompt floor is in specificity units; on this rung it means at most LIKE_SHARE_MAX of the terms.
    two_of_three = search.search(corpus, "grpc internal kubernetes", P, floor=search.PROMPT_FLOOR)
    assert search.PROMPT_FLOOR > search.LIKE_SHARE_MAX and 1 / 3 < search.LIKE_SHARE_MAX <= 2 / 3
    assert titles(two_of_three)[0] == "Use gRPC for internal services"
    assert search.search(corpus, "grpc kubernetes helm", P, floor=search.PROMPT_FLOOR).hits == ()


def test_rung4_when_fts5_is_unavailable(corpus, monkeypatch):
    monkeypatch.setattr(search, "has_fts", lambda conn: False)
    result = search.search(corpus, "auth tokens", P)
    assert result.degraded == "like-search"
    assert titles(result)[0] == "Auth tokens"


def test_rung4_when_the_index_is_broken(corpus, monkeypatch):
    def broken(*args, **kwargs):
        raise sqlite3.OperationalError("fts5: corrupt structure")

    monkeypatch.setattr(retrieval, "term_rows", broken)
    assert search.search(corpus, "auth tokens", P).degraded == "like-search"


def test_rung4_keeps_isolation_history_scope_and_types(conn, monkeypatch):
    monkeypatch.setattr(search, "has_fts", lambda conn: False)
    old = add(conn, "Queue choice", "Use RabbitMQ for the queue.")
    _, new = records.supersede(conn, old.id, P, body="Use Redis streams for the queue.")
    add(conn, "Queue choice of Q", "Kafka queue.", project_id=Q)
    add(conn, "Queue preference", "Any queue is fine.", type_="preference", scope="global")
    result = search.search(conn, "queue", P)
    assert {h.record.title for h in result.hits} == {"Queue choice", "Queue preference"}
    assert new.id in [h.record.id for h in result.hits] and old.id not in [h.record.id for h in result.hits]
    assert old.id in [h.record.id for h in search.search(conn, "queue", P, history=True).hits]
    assert titles(search.search(conn, "queue", P, scope="global")) == ["Queue preference"]
    assert titles(search.search(conn, "queue", P, types=["preference"])) == ["Queue preference"]


def test_rung4_ranks_more_matched_terms_first(conn, monkeypatch):
    monkeypatch.setattr(search, "has_fts", lambda conn: False)
    add(conn, "Alpha", "alpha only")
    add(conn, "Alpha beta", "alpha and beta")
    assert titles(search.search(conn, "alpha beta", P))[0] == "Alpha beta"


@pytest.mark.parametrize("query", ['"x" AND (NOT)', "100%_done", "back\\slash", "ünï 数据"])
def test_rung4_query_syntax_never_crashes(corpus, monkeypatch, query):
    monkeypatch.setattr(search, "has_fts", lambda conn: False)
    search.search(corpus, query, P)


def test_rung5_pinned_only_when_everything_fails(conn, monkeypatch):
    pinned = add(conn, "Always run migrations first", "Before deploys.", pinned=True)
    add(conn, "Not pinned", "Ordinary record about migrations.")
    add(conn, "Foreign pinned", "Q's pinned record.", project_id=Q, pinned=True)
    old = add(conn, "Old pinned", "Superseded.", pinned=True)
    records.supersede(conn, old.id, P, body="Replacement, still pinned.")

    def fail(*args, **kwargs):
        raise sqlite3.OperationalError("everything is broken")

    monkeypatch.setattr(search, "has_fts", lambda conn: False)
    monkeypatch.setattr(retrieval, "like", fail)
    result = search.search(conn, "migrations", P)
    assert result.degraded == "pinned-only"
    ids = [h.record.id for h in result.hits]
    assert pinned.id in ids
    assert all(h.record.pinned and h.record.is_current and h.record.project_id == P for h in result.hits)
    assert all(h.degraded == "pinned-only" for h in result.hits)
    assert len(ids) == 2


def test_rung5_with_no_pins_is_empty_not_an_error(conn, monkeypatch):
    def fail(*args, **kwargs):
        raise sqlite3.OperationalError("no such table: records")

    monkeypatch.setattr(search, "has_fts", fail)
    monkeypatch.setattr(retrieval, "like", fail)
    monkeypatch.setattr(retrieval, "pinned", fail)
    result = search.search(conn, "anything", P)
    assert result.degraded == "pinned-only" and result.hits == ()


def test_a_corrupt_index_degrades_instead_of_raising(corpus, monkeypatch):
    def corrupt(*args, **kwargs):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(retrieval, "term_rows", corrupt)
    assert search.search(corpus, "auth tokens", P).degraded == "like-search"



def test_an_error_at_the_end_of_a_long_pasted_log_still_finds_its_record(conn):
    add(conn, "Money as integer cents", "Prices are stored as integer cents with an ISO 4217 currency column.",
        type_="convention")
    log = "Traceback (most recent call last):\n" + '  File "app.py", line 12, in handler\n    run()\n' * 3000
    result = search.search(conn, log + "ValueError: price must be integer cents", P)
    assert titles(result) == ["Money as integer cents"]


def test_the_last_words_of_a_long_query_keep_their_places_among_its_terms():
    head = [f"word{i}" for i in range(100)]
    terms = search._terms(head + ["word3", "valueerror", "cents"])
    assert len(terms) == search.MAX_TERMS and terms[-2:] == ["valueerror", "cents"]
    assert terms[:search.MAX_TERMS - search.TAIL_TERMS] == head[:search.MAX_TERMS - search.TAIL_TERMS]
    assert "word3" in terms  # seen early and again at the end: one place, first-seen order
    assert search._terms(["a1", "b2", "a1"]) == ["a1", "b2"]


def test_a_question_after_a_pasted_file_of_many_words_finds_its_record(conn):
    add(conn, "Money as integer cents", "Prices are stored as integer cents with an ISO 4217 currency column.",
        type_="convention")
    for i in range(40):
        add(conn, f"Unrelated note {i}", f"filler{i} text about component{i} and widget{i}", type_="discovery")
    code = " ".join(f"ident{i} = compute{i}(value{i})" for i in range(120))
    result = search.search(conn, code + "\nwhy does this reject a price of 12.5 cents?", P)
    assert titles(result)[:1] == ["Money as integer cents"]
