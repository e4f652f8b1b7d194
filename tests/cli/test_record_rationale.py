"""`record --rationale` and `ctx_record`'s rationale, and the expansion pass started for a record written by hand
(issue 42 items 7, 8: `agentctx record --rationale …` was an unknown option; records were found by their own words)."""

from __future__ import annotations

import json

import pytest

from agentctx.memory.history import chain
from agentctx.store import records


@pytest.fixture
def spawned(fake_expansion_start):
    return fake_expansion_start  # FAKE (tests/conftest.py): what would have been started, never started


def test_record_takes_a_rationale_as_supersede_does(in_p, spawned):
    made = in_p("record", "--type", "decision", "--title", "Ruff replaces flake8 in CI", "--body",
                "CI runs `ruff check` instead of flake8.", "--rationale", "one tool, 30x faster on the monorepo")
    assert made.rc == 0, made.err
    rid = made.out.strip()
    stored = records.get(_conn(in_p), rid)
    assert stored.body == "CI runs `ruff check` instead of flake8.\n\nRationale: one tool, 30x faster on the monorepo"


def _conn(in_p):
    from agentctx.base import paths
    from agentctx.store import db

    return db.connect(paths.db_path())


def test_without_a_backend_record_says_in_one_line_how_to_be_found(in_p, spawned, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # no `claude` CLI either
    made = in_p("record", "--type", "convention", "--title", "Rule docs live in docs/rules", "--body",
                "Each rule has docs/rules/<code>.md.")
    assert made.rc == 0 and spawned == []
    (line,) = made.err.splitlines()
    assert "found only by its own words" in line and "--question" in line and "--alias" in line
    asked = in_p("record", "--type", "convention", "--title", "Fixtures in tests/fixtures", "--body", "Always.",
                 "--question", "where do test fixtures go?")
    assert asked.err == "" and spawned == []


def test_with_a_backend_record_starts_the_expansion_pass_in_the_background(in_p, spawned, tmp_path, monkeypatch):
    claude = tmp_path / "bin" / "claude"
    claude.parent.mkdir()
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", str(claude.parent))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    made = in_p("record", "--type", "decision", "--title", "Pin the pyflakes version", "--body", "pyflakes==3.2.0.")
    assert made.rc == 0 and made.err == ""
    ((argv, cwd),) = spawned
    assert argv[-3:-1] == ["expand", "--limit"] and "-C" in argv and cwd == argv[argv.index("-C") + 1]
    in_p("record", "--type", "handover", "--title", "Handover", "--body", "Working on rules.")  # never expanded
    assert len(spawned) == 1
