"""Do two texts say the same thing: restatements do, a negation, another number or another value never."""

import pytest

from agentctx.trust import overlap

SAME = [
    ("Use pnpm, never npm", "Use pnpm\nUse pnpm, never npm."),
    ("Run tests with pytest -x before committing", "Before committing, run the tests with pytest -x"),
    ("The API client retries on timeouts with exponential backoff", "API client: retry on timeout, exponential backoff"),
    ("Sessions are stored in Redis so they survive a restart",
     "Store web sessions in Redis: they survive a restart of one app server"),
    ("Migrations go through Alembic, one revision per pull request.",
     "- migrations go through alembic, one revision per pull request"),
]
DIFFERENT = [
    ("Retries stop after 3 attempts", "Retries stop after 5 attempts", "numbers"),
    ("Cache entries expire after 15 minutes", "Cache entries do not expire after 15 minutes", "negation"),
    ("Cache entries expire after 15 minutes.", "Cache entries expire after 15 minutes, not in tests.", "negation"),
    ("Use `black` for formatting Python code", "Use `ruff` for formatting Python code", "values"),
    ("Deploy with the blue green strategy to the staging cluster on every merge",
     "Deploy with the canary strategy to the staging cluster on every merge", "values"),
    ("Timeouts are 2.5 s for the payments API", "Timeouts are 25 s for the payments API", "numbers"),
    ("We support Python 3.10 and newer", "We support Python 3.11 and newer", "numbers"),
]


@pytest.mark.parametrize("a,b", SAME)
def test_restatements_say_the_same_thing(a, b):
    same, sim, why = overlap.same_fact(a, b)
    assert same and why is None, (sim, why)


@pytest.mark.parametrize("a,b,why", DIFFERENT)
def test_similar_texts_that_differ_are_never_the_same(a, b, why):
    same, _sim, reason = overlap.same_fact(a, b)
    assert not same
    assert overlap.differ(a, b) == why


def test_unrelated_texts_are_not_close():
    same, sim, why = overlap.same_fact("Use SQLite for storage", "Deploy on Fridays is forbidden")
    assert not same and sim < 0.2 and why is None
