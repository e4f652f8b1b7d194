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


SECRET_TEST = """
def test_key(stash):
    assert stash.value("llm", "auth", {"key": "sk-ant-api03-" + "K" * 40}) is not None
"""


def test_the_fixture_scrubs_secrets_unless_told_to_keep_them(pytester: pytest.Pytester):
    """Recordings are meant to be committed: a key a test handles is not written to one (issue 26, item 6)."""
    pytester.makepyfile(test_secret=SECRET_TEST)
    plugin = ["-p", "no:cacheprovider"]
    pytester.runpytest(*plugin, "--stash-record-mode=once", "--stash-dir=scrubbed").assert_outcomes(passed=1)
    text = (pytester.path / "scrubbed" / "test_secret" / "test_key.json").read_text()
    assert "KKKKKKKKKK" not in text and "sk-ant-api03-" not in text
    pytester.runpytest(*plugin, "--stash-record-mode=once", "--stash-dir=kept", "--stash-keep-secrets") \
        .assert_outcomes(passed=1)
    assert "K" * 40 in (pytester.path / "kept" / "test_secret" / "test_key.json").read_text()


def test_create_stash_scrubs_by_default_and_opts_out_explicitly():
    from agentctx.stash import create_stash

    key = "sk-ant-api03-" + "Q" * 40
    scrubbed = create_stash()
    scrubbed.value("llm", "k", key)
    assert key not in scrubbed.save()
    verbatim = create_stash(scrub_secrets=False)
    verbatim.value("llm", "k", key)
    assert key in verbatim.save()
