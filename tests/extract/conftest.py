"""Fixtures for extraction tests: a store, a project directory, a growing transcript."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The helper modules beside this file (unique names, so no clash with other test directories' modules).
sys.path.insert(0, str(Path(__file__).parent))

from agentctx.store import db  # noqa: E402
from agentctx.base.project import detect  # noqa: E402
from transcript_builder import TranscriptWriter  # noqa: E402


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    return root


@pytest.fixture
def conn(project_dir: Path):
    connection = db.connect(create=True)
    yield connection
    connection.close()


@pytest.fixture
def pid(project_dir: Path) -> str:
    return detect(str(project_dir)).id


@pytest.fixture
def writer(tmp_path: Path, project_dir: Path) -> TranscriptWriter:
    return TranscriptWriter(tmp_path / "s1.jsonl", "s1", str(project_dir))
