"""Fixtures for the hook tests: a git repository, an initialised store, and a way to run a hook in-process."""

from __future__ import annotations

import io
import json
import sys

import pytest

from agentctx import db, paths
from agentctx.models import NewRecord
from agentctx.project import detect
from agentctx.store import records


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


@pytest.fixture(autouse=True)
def private_tmpdir(tmp_path, monkeypatch):
    """Dedup files live in the temp dir: give each test its own."""
    import tempfile

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
