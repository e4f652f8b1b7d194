"""Many writer processes on one database file: nothing lost, no lock error escapes, the file stays sound."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import agentctx
from agentctx.store import db

PROCESSES = 8
WRITES = 500

WORKER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from agentctx.store import db
    from agentctx.base.models import NewRecord
    from agentctx.store import records

    path, worker, writes, go = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():  # start together, for the most contention
        time.sleep(0.005)
    conn = db.connect(path, create=True)
    project = "project-%d" % (worker % 2)
    for i in range(writes):
        kind = "handover" if i % 50 == 0 else "decision"  # keyed supersession races too
        records.insert(conn, NewRecord(kind, "w%d n%d" % (worker, i), "body %d of worker %d" % (i, worker), project))
    conn.close()
    print("done", worker)
""")


def run_workers(path: Path, tmp_path: Path, writes: int) -> float:
    go = tmp_path / "go"
    # The workers import the same agentctx as this process (a checkout or an installed copy).
    env = dict(os.environ, PYTHONPATH=str(Path(agentctx.__file__).resolve().parents[1]))
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(w), str(writes), str(go)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for w in range(PROCESSES)
    ]
    time.sleep(0.3)  # let every interpreter start before the gun
    started = time.perf_counter()
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        assert "locked" not in err and out.strip().startswith("done")
    return time.perf_counter() - started


def check_store(path: Path, expected: int) -> None:
    conn = db.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == expected
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO records_fts(records_fts, rank) VALUES ('integrity-check', 1)")
        assert conn.execute("SELECT count(*) FROM records_fts_docsize").fetchone()[0] == expected
        # Keyed supersession under contention still leaves exactly one current handover per project.
        per_project = conn.execute(
            "SELECT project_id, count(*) FROM records WHERE type = 'handover' AND superseded_at IS NULL GROUP BY project_id"
        ).fetchall()
        assert sorted(n for _, n in per_project) == [1, 1]
        assert len({r[0] for r in conn.execute("SELECT id FROM records")}) == expected
    finally:
        conn.close()


def test_eight_writers_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    db.connect(path, create=True).close()
    elapsed = run_workers(path, tmp_path, WRITES)
    check_store(path, PROCESSES * WRITES)
    print(f"{PROCESSES}x{WRITES} inserts in {elapsed:.1f}s")


def test_writers_racing_to_create_and_migrate_a_fresh_database(tmp_path):
    path = tmp_path / "fresh" / "agentctx.db"
    run_workers(path, tmp_path, 25)
    check_store(path, PROCESSES * 25)
