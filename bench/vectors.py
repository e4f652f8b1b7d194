"""Vector search latency at 10K and 100K records (NumPy, cached and cold; sqlite-vec when it loads) and backfill
throughput of the real offline model.

    python bench/vectors.py [--sizes 10000,100000] [--model DIR] [--repeat 30]

Ends with one line: numpy_10k_ms=… numpy_100k_ms=… cold_10k_ms=… sqlite_vec_10k_ms=… embed_per_s=…
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

from agentctx import db  # noqa: E402
from agentctx.ids import now_iso, ulid  # noqa: E402
from agentctx.store import vectors as store  # noqa: E402
from agentctx.vectors import search as vsearch  # noqa: E402

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--model", type=Path, default=Path(os.environ.get("AGENTCTX_TEST_MODEL_DIR") or DEFAULT_MODEL))
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
            from agentctx.vectors.embedder import FastEmbedEmbedder, ModelSpec

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
    print(" ".join(f"{k}={v:.2f}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
