"""Shared fixtures: every test runs with its own HOME, AGENTCTX_HOME and TMPDIR."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Point HOME, AGENTCTX_HOME and TMPDIR at fresh directories so no test touches the user's files."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTCTX_HOME", str(home / ".agentctx"))
    # Per-session dedup files live in the temp dir: give each test its own, or runs see each other's files.
    tmp = tmp_path / "tmpdir"
    tmp.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return home
