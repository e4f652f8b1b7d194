"""Vector fixtures: a store, a deterministic fake embedder (unit tests only), and the real offline model folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agentctx.store import db
from agentctx.base.models import NewRecord
from agentctx.store import records

P = "p" * 64
REPO = Path(__file__).resolve().parents[3]


class FakeEmbedder:
    """Test double: hashed bag of words, unit length. Shared words make vectors close, nothing more."""

    def __init__(self, name: str = "fake/bow", dims: int = 64, synonyms: dict[str, str] | None = None) -> None:
        self.name, self.dims, self.synonyms = name, dims, synonyms or {}
        self.calls = 0

    def _one(self, text: str):
        import numpy as np

        v = np.zeros(self.dims, dtype=np.float32)
        for word in text.lower().replace(".", " ").replace(",", " ").split():
            word = self.synonyms.get(word, word)
            v[int(hashlib.sha1(word.encode()).hexdigest(), 16) % self.dims] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed(self, texts):
        import numpy as np

        self.calls += 1
        return np.vstack([self._one(t) for t in texts]) if texts else np.zeros((0, self.dims), np.float32)

    def embed_query(self, text):
        return self._one(text)


@pytest.fixture
def conn(tmp_path):
    c = db.connect(tmp_path / "agentctx.db", create=True)
    yield c
    c.close()


@pytest.fixture
def add(conn):
    def make(title, body="", type_="decision", project_id=P, **kw):
        rec, _ = records.insert(conn, NewRecord(type=type_, title=title, body=body or title, project_id=project_id,
                                                confidence=kw.pop("confidence", "explicit"), **kw))
        return rec

    return make


@pytest.fixture
def fake():
    pytest.importorskip("numpy")
    return FakeEmbedder()


@pytest.fixture
def model_dir():
    """The real offline MiniLM folder: AGENTCTX_TEST_MODEL_DIR, else ../shared/models/...; skips when absent."""
    pytest.importorskip("fastembed")
    found = os.environ.get("AGENTCTX_TEST_MODEL_DIR") or str(REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8")
    if not (Path(found) / "model.onnx").exists():
        pytest.skip("no offline embedding model folder")
    return found
