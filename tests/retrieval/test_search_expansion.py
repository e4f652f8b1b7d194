"""Search with query expansion: a record naming what a short query's word also names is found by that word, the
prompt hook and `forget` do not expand, long text is not expanded."""

from __future__ import annotations

import pytest

from agentctx.store import db
from agentctx.memory import review
from agentctx.retrieval import search
from agentctx.retrieval.relevance import decide
from agentctx.base.models import NewRecord
from agentctx.base.project import Project
from agentctx.store import records

P = "p" * 64


@pytest.fixture
def conn(tmp_path):
    c = db.connect(tmp_path / "s.db", create=True)
    for title, body in [
        ("Use PostgreSQL for orders", "Orders live in PostgreSQL 16, chosen for row locking on stock reservations."),
        ("Background jobs run on Celery", "Celery workers with RabbitMQ as the broker; retries with backoff."),
        ("Keep commits small", "One concern per commit, and a message that says why."),
        ("Vitest for the web app", "Component tests run with Vitest and Testing Library."),
    ]:
        records.insert(c, NewRecord("decision", title, body, P))
    yield c
    c.close()


def titles(result):
    return [h.record.title for h in result.hits]


def test_a_category_word_finds_the_record_naming_a_member(conn):
    assert titles(search.search(conn, "which database do we use?", P)) == ["Use PostgreSQL for orders"]
    assert titles(search.search(conn, "what message queue do we use", P))[0] == "Background jobs run on Celery"


def test_without_expansion_the_same_query_finds_nothing(conn):
    assert titles(search.search(conn, "which database do we use?", P, expand=False)) == []


def test_a_spelling_finds_the_other(conn):
    assert titles(search.search(conn, "postgres version", P)) == ["Use PostgreSQL for orders"]


def test_the_expanded_match_counts_as_the_word_in_that_column(conn):
    hit = search.search(conn, "database for orders", P).hits[0]
    assert hit.matched[text_stem("database")] == search.TITLE_WEIGHT  # PostgreSQL is in the title
    assert text_stem("postgresql") not in hit.matched  # the record holds the query's word, not a new one
    assert hit.relevance > search.search(conn, "database for orders", P, expand=False).hits[0].relevance


def test_a_word_the_record_holds_itself_still_counts_once_per_occurrence(conn):
    records.insert(conn, NewRecord("discovery", "Database backups", "The database is backed up nightly.", P))
    result = search.search(conn, "database backups", P)
    assert titles(result)[0] == "Database backups"


def test_long_text_is_not_expanded(conn):
    long = ("the nightly export keeps failing and I think the database connection pool is exhausted because "
            "every worker opens its own connection, can you look at the logs and the settings and suggest limits")
    assert len(set(search.text.content_tokens(long))) > search.EXPAND_MAX_TERMS
    assert titles(search.search(conn, long, P)) == titles(search.search(conn, long, P, expand=False))


def test_the_prompt_hook_does_not_expand(conn):
    assert [a.hit.record.title for a in decide(conn, "which database do we use?", P)] == []


def test_forget_lists_only_records_holding_the_words(conn, tmp_path):
    project = Project(P, "p", str(tmp_path), None)
    assert review.candidates(conn, project, "database", 10) == []


def text_stem(word):
    return search.text.stems([word])[0]
