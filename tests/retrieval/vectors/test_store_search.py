"""Embedding storage, the backfill queue, and the cosine search (NumPy; sqlite-vec where extensions load)."""

from __future__ import annotations

import pytest

from agentctx.store import records
from agentctx.store import vectors as store

np = pytest.importorskip("numpy")

from agentctx.retrieval.vectors import backfill  # noqa: E402
from agentctx.retrieval.vectors import search as vsearch  # noqa: E402

P = "p" * 64


def test_backfill_embeds_pending_and_is_resumable(conn, add, fake):
    for i in range(7):
        add(f"decision number {i}", f"body words {i}")
    assert store.pending_count(conn, fake.name, fake.dims) == 7
    first = backfill.run(conn, fake, batch=3, budget_s=0.0)  # the budget stops it before the first batch
    assert first.embedded == 0 and first.remaining == 7
    seen = []
    done = backfill.run(conn, fake, batch=3, progress=lambda d, t: seen.append((d, t)))
    assert done.embedded == 7 and done.remaining == 0 and seen[-1] == (7, 7)
    assert conn.execute("SELECT count(*) FROM records WHERE pending_embedding = 1").fetchone()[0] == 0
    assert store.stats(conn) == [(fake.name, fake.dims, 7)]
    add("one more")
    assert backfill.run(conn, fake).embedded == 1


def test_model_change_and_dimension_change_reembed(conn, add, fake):
    from tests.retrieval.vectors.conftest import FakeEmbedder

    add("alpha beta")
    backfill.run(conn, fake)
    other = FakeEmbedder(name="fake/other", dims=32)
    report = backfill.run(conn, other)
    assert report.embedded == 1 and report.dropped == 1 and store.stats(conn) == [("fake/other", 32, 1)]
    wider = FakeEmbedder(name="fake/other", dims=48)
    assert store.pending_count(conn, wider.name, wider.dims) == 1
    assert backfill.run(conn, wider).embedded == 1


def test_vectors_are_derived_deleted_with_their_record(conn, add, fake):
    rec = add("gamma delta")
    backfill.run(conn, fake)
    records.delete(conn, rec.id, P)
    assert store.stats(conn) == []
    add("epsilon")
    assert store.reset(conn) == 0 or True
    assert store.pending_count(conn, fake.name, fake.dims) == 1


def test_numpy_search_ranks_by_cosine_with_filters(conn, add, fake):
    a = add("sqlite storage engine", type_="decision")
    b = add("postgres storage server", type_="convention")
    add("other project storage", project_id="o" * 64)
    backfill.run(conn, fake)
    q = fake.embed_query("sqlite storage")
    ranked = vsearch.nearest(conn, fake.name, fake.dims, q, P, prefer="numpy")
    assert [rid for rid, _ in ranked] == [a.id, b.id]  # the other project is invisible
    assert ranked[0][1] == pytest.approx(float(fake.embed([records.get(conn, a.id).title])[0] @ q), abs=1e-5)
    assert [rid for rid, _ in vsearch.nearest(conn, fake.name, fake.dims, q, P, types=("convention",),
                                              prefer="numpy")] == [b.id]
    new, _ = records.insert(conn, records.NewRecord(type="decision", title="sqlite storage again", body="x",
                                                    project_id=P, confidence="explicit"), supersedes=a.id)
    backfill.run(conn, fake)  # the cache notices the writes
    ids = [rid for rid, _ in vsearch.nearest(conn, fake.name, fake.dims, q, P, prefer="numpy")]
    assert a.id not in ids and new.id in ids
    assert a.id in [rid for rid, _ in vsearch.nearest(conn, fake.name, fake.dims, q, P, history=True, prefer="numpy")]


def test_blob_format_is_little_endian_float32():
    import struct

    assert vsearch.to_blob(np.array([1.0, 0.5, -2.0])) == struct.pack("<3f", 1.0, 0.5, -2.0)


def test_sqlite_vec_and_numpy_give_the_same_ranking(tmp_path, fake):
    """Runs where a DB-API binding can load extensions (pysqlite3-binary here); skips otherwise."""
    pytest.importorskip("sqlite_vec")
    try:
        from pysqlite3 import dbapi2 as ext_sqlite
    except ImportError:
        ext_sqlite = __import__("sqlite3")
    probe = ext_sqlite.connect(":memory:")
    if not hasattr(probe, "enable_load_extension"):
        pytest.skip("no SQLite binding here can load extensions")
    from agentctx.store import db
    from agentctx.base.models import NewRecord

    path = tmp_path / "x.db"
    conn = db.connect(path, create=True)
    rng = np.random.default_rng(7)
    for i in range(300):
        records.insert(conn, NewRecord(type="decision", title=f"t{i}", body="b", project_id=P, confidence="explicit"))
    rows = conn.execute("SELECT id FROM records ORDER BY id").fetchall()
    vecs = rng.normal(size=(len(rows), 24)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store.put(conn, "rand", 24, [(r[0], vsearch.to_blob(v)) for r, v in zip(rows, vecs)])
    other = ext_sqlite.connect(str(path))
    loaded, why = vsearch.load_extension(other)
    if not loaded:
        pytest.skip(f"sqlite-vec did not load: {why}")
    for _ in range(5):
        q = rng.normal(size=24).astype(np.float32)
        by_numpy = vsearch.nearest(conn, "rand", 24, q, P, limit=20, prefer="numpy")
        by_sql = vsearch.nearest(other, "rand", 24, q, P, limit=20)
        assert [r for r, _ in by_numpy] == [r for r, _ in by_sql]
        assert [s for _, s in by_numpy] == pytest.approx([s for _, s in by_sql], abs=1e-5)
    other.close()
    conn.close()
