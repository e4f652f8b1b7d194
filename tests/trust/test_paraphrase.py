"""trust.paraphrase on real CLAUDE.md lines (public repositories, cited) against records that restate them,
contradict them or add to them."""

from __future__ import annotations

import pytest

from agentctx.trust.paraphrase import says, statement

# github.com/NicholasGrundl/tokentoss, CLAUDE.md (a line with its heading, as `sync` reads it).
TOKENTOSS_PYTEST = "Testing: Always use pytest — do not use unittest directly"
TOKENTOSS_UV = "Running Commands: Always use `uv run` to execute commands (not `python` or `python3` directly)."
TOKENTOSS_INTEGRATION = ("Testing: Integration tests are marked with `@pytest.mark.integration`; run them with "
                         "`uv run pytest -m integration`")
# github.com/njbbaer/simulacra, CLAUDE.md.
SIMULACRA_TYPES = "Guidelines: Do not use type annotations."
# The issue's own case (agentctx issue 34): a CLAUDE.md line and the record `sync` proposed anyway.
ISSUE = "Use pytest for all tests; never unittest."


@pytest.mark.parametrize("known, new", [
    (ISSUE, "Tests are written with pytest, not unittest"),
    (TOKENTOSS_PYTEST, "Tests are written with pytest, not unittest"),
    (TOKENTOSS_PYTEST, "pytest is the test runner; unittest is not used"),
    (TOKENTOSS_UV, "Run commands through uv run, never plain python"),
    (SIMULACRA_TYPES, "Never add type annotations"),
    (TOKENTOSS_INTEGRATION, "Integration tests are marked with pytest.mark.integration"),
])
def test_a_restatement_is_already_said(known, new):
    assert says(known, new)


@pytest.mark.parametrize("known, new", [
    # contradicts: the same words, the other way round
    (ISSUE, "Use unittest for tests, not pytest"),
    (TOKENTOSS_PYTEST, "Tests use unittest; do not use pytest"),
    (SIMULACRA_TYPES, "Add type annotations to every public function"),
    (TOKENTOSS_UV, "Run commands with plain python, not uv run"),
    # adds: words the line does not have
    (TOKENTOSS_PYTEST, "Use pytest with pytest-xdist for parallel runs"),
    (TOKENTOSS_INTEGRATION, "Integration tests need a running Postgres started with docker compose up db"),
    # a number the line does not have
    ("Tests run on Python 3.11 in CI", "Tests run on Python 3.12 in CI"),
    # too little to call it said
    (ISSUE, "pytest"),
])
def test_a_contradiction_or_an_addition_is_not(known, new):
    assert not says(known, new)


def test_negation_reaches_the_end_of_its_clause_only():
    s = statement("Use pytest, not unittest; mock with monkeypatch")
    assert "unittest" in s.negated and {"pytest", "monkeypatch"} <= s.affirmed and "monkeypatch" not in s.negated
