"""Store fixtures: a fresh database file per test and two project ids."""

from __future__ import annotations

import pytest

from agentctx.store import db
from agentctx.base.models import NewRecord

P = "p" * 64
Q = "q" * 64


@pytest.fixture
def db_file(tmp_path):
    return tmp_path / "store" / "agentctx.db"


@pytest.fixture
def conn(db_file):
    c = db.connect(db_file, create=True)
    yield c
    c.close()


@pytest.fixture
def new():
    """A NewRecord factory with sensible defaults for project P."""

    def make(type_="decision", title="Use SQLite", body="One file, no daemon.", project_id=P, **kw):
        return NewRecord(type=type_, title=title, body=body, project_id=project_id, **kw)

    return make
