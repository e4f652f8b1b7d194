"""Shared fixtures: every test runs with its own HOME, AGENTCTX_HOME and TMPDIR."""

from __future__ import annotations

import io
import json
import sys

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.store import records


def pytest_collection_modifyitems(config, items):
    """Tests marked `slow` run only when the -m expression names them (`python -m pytest -m slow`)."""
    if "slow" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with `python -m pytest -m slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


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
    monkeypatch.delenv("COPILOT_HOME", raising=False)  # Copilot CLI's user directory follows HOME in tests
    return home


@pytest.fixture(autouse=True)
def fake_expansion_start(monkeypatch):
    """FAKE: the background expansion pass a record written by hand starts (extract/later.py) is recorded, never
    started: with a backend on, every `record` of a test would start one racing the test's own pass."""
    from agentctx.extract import later

    started: list[tuple[list[str], object]] = []
    monkeypatch.setattr(later, "start", lambda argv, cwd: started.append((argv, cwd)) or 4242)
    return started


# A git repository, an initialised store, records in it, and a hook run in-process: shared by the hooks, capture,
# claude and consolidate tests (directories with fixtures of the same names define their own).
@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/repo.git\n', encoding="utf-8")
    return root


@pytest.fixture
def conn(repo):
    c = db.connect(paths.db_path(), create=True)
    yield c
    c.close()


@pytest.fixture
def add(conn, repo):
    pid = detect(repo).id

    def _add(title, body, type_="decision", confidence="explicit", **kw):
        return records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id=pid,
                                              confidence=confidence, **kw))[0]
    return _add


@pytest.fixture
def hook(monkeypatch, capsys):
    from agentctx.hooks import run

    def _hook(event, payload):
        raw = payload if isinstance(payload, str) else json.dumps(payload)
        monkeypatch.setattr(sys, "stdin", io.StringIO(raw))
        assert run([event]) == 0
        out = capsys.readouterr()
        assert out.err == ""
        return json.loads(out.out) if out.out.strip() else None
    return _hook


@pytest.fixture
def invisible():
    """Write a `_global` row scoped project behind the API's back (the API refuses it: nobody could see it)."""

    def _invisible(conn, title, body):
        rid = "01INVISIBLE" + f"{abs(hash(title)) % 10**15:015d}"
        conn.execute("INSERT INTO records (id, project_id, type, title, body, scope, valid_from, recorded_at, source) "
                     "VALUES (?, '_global', 'decision', ?, ?, 'project', '2026-01-01', '2026-01-01', 'import')",
                     (rid, title, body))
        return records.get(conn, rid)
    return _invisible
