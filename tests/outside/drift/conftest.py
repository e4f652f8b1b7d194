"""Drift fixtures: a git repository, an initialised store, and a record helper."""

from __future__ import annotations

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.claude import setup
from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.store import records


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = https://github.com/acme/app.git\n', encoding="utf-8")
    return root


@pytest.fixture
def project(repo):
    return detect(repo)


@pytest.fixture
def conn():
    setup.initialize()
    c = db.connect(paths.db_path())
    yield c
    c.close()


@pytest.fixture
def add(conn, project):
    def add(title, body="", type="decision", confidence="explicit", supersedes=None):
        new = NewRecord(type, title, body or title, project.id, confidence=confidence)
        return records.insert(conn, new, supersedes=supersedes)[0]

    return add
