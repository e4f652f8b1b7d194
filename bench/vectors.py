"""Vector search latency at 10K and 100K records (NumPy, cached and cold; sqlite-vec when it loads) and backfill
throughput of the real offline model.

    python bench/vectors.py [--sizes 10000,100000] [--model DIR] [--repeat 30] [--cli-records 10000]

Also times `agentctx search` as a whole process (what a person waits for) on a store of --cli-records records that
all have vectors of the configured model: a query whose keyword hits are relevant (the model is not loaded), a
query with no keyword hit (the model loads), the same with `--all` (every search fuses, the model always loads) and
the interpreter floor, interleaved, as medians and ratios to the floor.

Ends with one line: numpy_10k_ms=… numpy_100k_ms=… cold_10k_ms=… sqlite_vec_10k_ms=… embed_per_s=… cli_*_ms=…
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from agentctx.store import db  # noqa: E402
from agentctx.base.ids import now_iso, ulid  # noqa: E402
from agentctx.store import vectors as store  # noqa: E402
from agentctx.retrieval.vectors import search as vsearch  # noqa: E402

P = "bench"
DIMS = 384
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"


def build(path: Path, n: int) -> None:
    conn = db.connect(path, create=True)
    rng = np.random.default_rng(1)
    now = now_iso()
    with db.atomic(conn):
        for start in range(0, n, 5000):
            rows, vecs = [], []
            for _ in range(min(5000, n - start)):
                rid = ulid()
                rows.append((rid, P, "decision", "t", "b", now, now, "import"))
            m = rng.normal(size=(len(rows), DIMS)).astype(np.float32)
            m /= np.linalg.norm(m, axis=1, keepdims=True)
            conn.executemany("INSERT INTO records (id, project_id, type, title, body, valid_from, recorded_at, source, "
                             "pending_embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)", rows)
            conn.executemany("INSERT INTO embeddings VALUES (?, 'rand', ?, ?)",
                             [(r[0], DIMS, vsearch.to_blob(v)) for r, v in zip(rows, m)])
    conn.close()


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


WORDS = ("cache storage sqlite index token budget session prompt hook digest record schema migration parser router "
         "handler queue worker retry timeout config logging metric trace deploy build test lint format auth login "
         "user account payment invoice order cart search ranking vector embed model api client server").split()


def cli_search(n: int, model: Path, repeat: int) -> dict[str, float]:
    """`agentctx search` latency on an n-record store whose every record has a vector of the configured model."""
    import json
    import random
    import subprocess

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        repo = home / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/bench/cli.git\n')
        env = {**os.environ, "HOME": str(home), "AGENTCTX_HOME": str(home / ".agentctx"),
               "PYTHONPYCACHEPREFIX": str(home / "pyc")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["AGENTCTX_HOME"] = env["AGENTCTX_HOME"]
        from agentctx.base import config
        from agentctx.base.project import detect

        config.write({"embeddingModel": "sentence-transformers/all-MiniLM-L6-v2", "embeddingModelPath": str(model)})
        pid = detect(str(repo)).id
        conn = db.connect(db.paths.db_path(), create=True)
        rng, nrng, now = random.Random(3), np.random.default_rng(3), now_iso()
        with db.atomic(conn):
            for start in range(0, n, 5000):
                rows = []
                for i in range(start, min(n, start + 5000)):
                    title = " ".join(rng.choices(WORDS, k=6)).capitalize()
                    rows.append((ulid(), pid, "decision", title, " ".join(rng.choices(WORDS, k=60)), now, now, "cli"))
                m = nrng.normal(size=(len(rows), DIMS)).astype(np.float32)
                m /= np.linalg.norm(m, axis=1, keepdims=True)
                conn.executemany("INSERT INTO records (id, project_id, type, title, body, valid_from, recorded_at, "
                                 "source, pending_embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)", rows)
                conn.executemany("INSERT INTO embeddings VALUES (?, 'sentence-transformers/all-MiniLM-L6-v2', ?, ?)",
                                 [(r[0], DIMS, vsearch.to_blob(v)) for r, v in zip(rows, m)])
        conn.close()
        py = sys.executable
        base = [py, "-m", "agentctx", "-C", str(repo), "search"]
        commands = {
            "floor": [py, "-I", "-c", "import sqlite3, json"],
            "cli_keyword_hits": base + ["sqlite", "migration", "timeout"],
            "cli_no_keyword_hit": base + ["postgres", "replica", "lag"],
            "cli_all": base + ["sqlite", "migration", "timeout", "--all"],
        }
        samples: dict[str, list[float]] = {name: [] for name in commands}
        shown: dict[str, int] = {}
        for i in range(repeat + 1):
            for name, argv in commands.items():
                t0 = time.perf_counter()
                done = subprocess.run(argv + (["--json"] if name != "floor" else []), env=env, cwd=str(ROOT.parent),
                                      capture_output=True, text=True)
                if i:  # one warm-up round
                    samples[name].append((time.perf_counter() - t0) * 1000)
                if name != "floor" and done.returncode == 0:
                    shown[name] = len(json.loads(done.stdout))
        for name, values in samples.items():
            out[f"{name}_ms"] = statistics.median(values)
            if name != "floor":
                out[f"{name}_ratio"] = statistics.median(v / f for v, f in zip(values, samples["floor"]))
        for name, count in shown.items():
            print(f"{name}: {out[name + '_ms']:.0f} ms ({out[name + '_ratio']:.1f}x floor), {count} results")
        out["cli_floor_ms"] = out.pop("floor_ms")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--model", type=Path, default=Path(os.environ.get("AGENTCTX_TEST_MODEL_DIR") or DEFAULT_MODEL))
    ap.add_argument("--cli-records", type=int, default=10_000, help="store size for the `agentctx search` rows (0: skip)")
    ap.add_argument("--cli-repeat", type=int, default=7)
    args = ap.parse_args()
    out: dict[str, float] = {}
    rng = np.random.default_rng(2)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENTCTX_HOME"] = tmp
        for n in [int(s) for s in args.sizes.split(",")]:
            path = Path(tmp) / f"v{n}.db"
            build(path, n)
            conn = db.connect(path)
            q = rng.normal(size=DIMS).astype(np.float32)
            tag = f"{n // 1000}k"
            out[f"cold_{tag}_ms"] = median_ms(lambda: (vsearch._cache.clear(),
                                                       vsearch.nearest(conn, "rand", DIMS, q, P, limit=40, prefer="numpy")),
                                              max(3, args.repeat // 10))
            out[f"numpy_{tag}_ms"] = median_ms(lambda: vsearch.nearest(conn, "rand", DIMS, q, P, limit=40,
                                                                       prefer="numpy"), args.repeat)
            try:
                from pysqlite3 import dbapi2 as ext
            except ImportError:
                import sqlite3 as ext
            other = ext.connect(str(path)) if hasattr(ext.connect(":memory:"), "enable_load_extension") else None
            if other is not None and vsearch.load_extension(other)[0]:
                out[f"sqlite_vec_{tag}_ms"] = median_ms(lambda: vsearch.nearest(other, "rand", DIMS, q, P, limit=40),
                                                        max(3, args.repeat // 5))
            print(f"{n:>7} records: " + ", ".join(f"{k}={v:.2f}" for k, v in out.items() if k.endswith(tag + "_ms")))
            conn.close()
        if (args.model / "model.onnx").exists():
            from agentctx.retrieval.vectors.embedder import FastEmbedEmbedder, ModelSpec

            e = FastEmbedEmbedder(ModelSpec("sentence-transformers/all-MiniLM-L6-v2", str(args.model)))
            for label, text in (("short", "We decided to keep all memory in one SQLite file. " * 2),
                                ("long", "We decided to keep all memory in one SQLite file in WAL mode. " * 30)):
                for batch in (8, 32):
                    texts = [text] * 256
                    t0 = time.perf_counter()
                    for i in range(0, len(texts), batch):
                        e.embed(texts[i:i + batch])
                    rate = len(texts) / (time.perf_counter() - t0)
                    out[f"embed_{label}_b{batch}_per_s"] = rate
                    print(f"backfill throughput ({label} records, batch {batch}): {rate:.0f} records/s")
    if args.cli_records and (args.model / "model.onnx").exists():
        out.update(cli_search(args.cli_records, args.model, args.cli_repeat))
    print(" ".join(f"{k}={v:.2f}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
