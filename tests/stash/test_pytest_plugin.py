"""Tests for the pytest plugin, run in an isolated pytester session."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

TEST_FILE = """
def test_calls(stash):
    assert stash.intercept("llm", "plan", lambda: {"n": 1}) == {"n": 1}

def test_fails(stash):
    stash.value("llm", "x", 1)
    assert False
"""


def test_fixture_records_then_replays(pytester: pytest.Pytester):
    pytester.makepyfile(test_example=TEST_FILE)
    plugin = ["-p", "no:cacheprovider"]
    result = pytester.runpytest(*plugin, "--stash-record-mode=once", "--stash-dir=recs")
    result.assert_outcomes(passed=1, failed=1)
    recs = pytester.path / "recs" / "test_example"
    assert (recs / "test_calls.json").exists()
    assert not (recs / "test_fails.json").exists()
    replay = pytester.runpytest(*plugin, "--stash-dir=recs", "-k", "test_calls")
    replay.assert_outcomes(passed=1)
    missing = pytester.runpytest(*plugin, "--stash-dir=other", "-k", "test_calls")
    missing.assert_outcomes(errors=1)
    missing.stdout.fnmatch_lines(["*ERR_NOT_FOUND: no recording at *record it once with `pytest --stash-record-mode=once`*"])
    assert "record_mode='once'" not in missing.stdout.str()
