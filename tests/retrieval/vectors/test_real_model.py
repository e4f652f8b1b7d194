"""The integration path with the real offline MiniLM model: config, `agentctx embed`, hybrid search, doctor."""

from __future__ import annotations

import json
import os

import pytest

from agentctx import cli
from agentctx.base import config
from agentctx.store import db
from agentctx.retrieval.vectors.embedder import FastEmbedEmbedder, ModelSpec

NAME = "sentence-transformers/all-MiniLM-L6-v2"


def test_model_loads_offline_and_embeds_unit_vectors(model_dir):
    import numpy as np

    e = FastEmbedEmbedder(ModelSpec(NAME, model_dir))
    assert e.dims == 384
    m = e.embed(["We store records in SQLite.", "The cat sat on the mat."])
    assert m.shape == (2, 384) and np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-4)
    q = e.embed_query("which database holds the records?")
    assert float(m[0] @ q) > float(m[1] @ q) + 0.2


def test_a_large_batch_runs_in_small_runs_and_keeps_its_order(model_dir):
    # bench/retrieval.py --hybrid --adr backfilled 64 ADR decisions (up to 2,000 characters) in one ONNX run and
    # peaked at 4 GB; the embedder now hands the model RUN_ROWS texts at a time, sorted by length.
    import numpy as np

    from agentctx.retrieval.vectors import embedder

    e = FastEmbedEmbedder(ModelSpec(NAME, model_dir))
    texts = ["Use Kafka for domain events.", "Kafka, three brokers, one topic per aggregate; consumers replay. " * 25,
             "The cat sat on the mat.", "Sessions live in Redis so a restart of one app server loses none. " * 8,
             "We store records in SQLite."]
    runs: list[int] = []
    real = e._model.embed

    def counting(docs, batch_size):
        runs.append(batch_size)
        return real(docs, batch_size=batch_size)

    e._model.embed = counting
    m = e.embed(texts)
    assert runs == [embedder.RUN_ROWS] and embedder.RUN_ROWS < len(texts)
    alone = np.vstack([e.embed([t])[0] for t in texts])
    assert m.shape == (5, 384)
    # Each row is its own text's vector (int8 dynamic quantisation moves them a little with the batch).
    assert np.all((m * alone).sum(axis=1) > 0.98)
    assert np.argmax(m @ alone.T, axis=1).tolist() == [0, 1, 2, 3, 4]


def test_unknown_name_in_a_local_folder_registers_a_custom_model(model_dir):
    e = FastEmbedEmbedder(ModelSpec("local/minilm-int8", model_dir))
    assert e.dims == 384 and e.embed_query("x").shape == (384,)


def test_cli_embed_then_hybrid_search_then_doctor(model_dir, tmp_path, monkeypatch, capsys):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/a/b.git\n')
    monkeypatch.chdir(project)
    assert cli.main(["init"]) == 0
    config.set_value("embeddingModel", NAME)
    config.set_value("embeddingModelPath", model_dir)
    bodies = {
        "Persist state in SQLite": "All memory lives in one SQLite file in WAL mode; no server process.",
        "Retry flaky uploads": "Uploads retry with exponential backoff, capped at thirty seconds.",
        "Feature flags via env": "Feature toggles are read from environment variables at start-up.",
    }
    for title, body in bodies.items():
        assert cli.main(["record", "--type", "decision", "--title", title, "--body", body]) == 0
    capsys.readouterr()
    assert cli.main(["embed", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["embedded"] == 3 and report["remaining"] == 0 and report["dims"] == 384
    from agentctx.retrieval import relevance

    if not relevance.reads_meaning():  # the shipped gate reads no semantic feature: nothing is built (SPEC §7.4)
        assert "skipped" in report["static"]
    # No shared word with the record, nor another name of one (agentctx/retrieval/expansion.py: "database" would find
    # SQLite): keyword search finds nothing, hybrid finds it by meaning.
    assert cli.main(["search", "--keyword-only", "--json", "which", "embedded", "engine", "keeps", "everything"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert cli.main(["search", "--json", "which", "embedded", "engine", "keeps", "everything"]) == 0
    captured = capsys.readouterr()
    hits = json.loads(captured.out)
    assert hits[0]["title"] == "Persist state in SQLite" and "degraded" not in hits[0]
    assert cli.main(["doctor", "--json"]) in (0, 1)
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert checks["vectors"]["status"] == "ok" and "384 dims" in checks["vectors"]["detail"]


def test_consolidation_flags_a_near_duplicate_without_deleting(model_dir, tmp_path):
    from agentctx.base.models import NewRecord
    from agentctx.store import records
    from agentctx.retrieval.vectors import backfill, maintain

    conn = db.connect(tmp_path / "a.db", create=True)
    pid = "p" * 64
    old, _ = records.insert(conn, NewRecord(type="convention", title="Run tests with pytest -q",
                                            body="Run the test suite with pytest -q.", project_id=pid))
    new, _ = records.insert(conn, NewRecord(type="convention", title="Run tests with pytest -q",
                                            body="Run the test suite using pytest -q.", project_id=pid))
    records.insert(conn, NewRecord(type="convention", title="Format with black",
                                   body="Code is formatted with black before commit.", project_id=pid))
    e = FastEmbedEmbedder(ModelSpec(NAME, model_dir))
    backfill.run(conn, e)
    pairs = maintain.near_duplicates(conn, e, pid)
    assert [(p.newer, p.older, p.action) for p in pairs] == [(new.id, old.id, "reinforced")]
    maintain.apply(conn, pairs, threshold=3)
    assert records.get(conn, old.id).reinforce_count == 1 and records.get(conn, new.id) is not None
    assert maintain.near_duplicates(conn, e, pid) == []  # handled once, not on every run
    conn.close()


@pytest.mark.slow
def test_the_static_token_table_builds_from_the_real_model_and_the_gate_reads_it(model_dir, conn, add, monkeypatch):
    """The model2vec build (SPEC §7.4) with the real model: every WordPiece token once, 64 dimensions, then the
    records' vectors; ~30 s on two cores."""
    from agentctx.base import paths
    from agentctx.retrieval import meaning, relevance
    from agentctx.retrieval.vectors import static

    from tests.retrieval.vectors.conftest import P as project_id

    add("Persist state in SQLite", "All memory lives in one SQLite file in WAL mode; no server process.")
    add("Retry flaky uploads", "Uploads retry with exponential backoff, capped at thirty seconds.")
    monkeypatch.setattr(relevance, "reads_meaning", lambda: True)
    embedder = FastEmbedEmbedder(ModelSpec(NAME, model_dir))
    report = static.refresh(conn, embedder)
    assert report["table"]["tokens"] > 29_000 and report["table"]["dims"] == 64
    assert report["records"]["records"] >= 2 and report["table"]["bytes"] < 3_000_000
    meaning.reset()
    weighed = relevance.decide(conn, "should state persist in one SQLite file?", project_id)
    assert weighed and "semantic" in weighed[0].features
    assert os.stat(meaning.table_path(NAME)).st_mode & 0o077 == 0
