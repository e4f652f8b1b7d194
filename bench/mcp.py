"""MCP server figures: start-up to the first tools/list reply, and the warm ctx_search round trip at 10K records.

Usage: python bench/mcp.py [--records 10000] [--calls 300]
Baselines measured in the same run: the interpreter floor (`python -I -c "import sqlite3, json"`) for start-up,
and an in-process agentctx.retrieval.search.search() call for the round trip. Both servers are measured (`--sdk` only when
the `mcp` package is installed). Ends with one `name=value` summary line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("sqlite storage cache redis auth token jwt session grpc rest api schema migration test pytest fixture "
         "deploy docker kubernetes helm terraform logging metrics tracing retry timeout queue worker celery kafka "
         "payment invoice tenant user admin role permission frontend react tailwind build webpack vite lint ruff "
         "mypy typing config env secret vault backup restore index query join transaction lock wal fts search "
         "ranking embedding vector model prompt budget token digest hook branch commit review release version").split()
TYPES = ("decision", "convention", "preference", "discovery", "bugfix")
_SYL = "ba be bi bo bu ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru ta te ti to tu".split()


def vocabulary(dense: bool) -> tuple[list[str], list[float]]:
    """Words and sampling weights: `dense` = 150 words, uniform (worst case: every term in thousands of records);
    otherwise those 150 plus 4,000 made-up words under a Zipf law, closer to real notes."""
    if dense:
        return list(WORDS), [1.0] * len(WORDS)
    rnd = random.Random(3)
    made = {"".join(rnd.choices(_SYL, k=rnd.randint(2, 4))) for _ in range(6000)}
    words = list(WORDS) + sorted(made - set(WORDS))[:4000]
    rnd.shuffle(words)
    return words, [1.0 / (rank + 1) for rank in range(len(words))]


def populate(n: int, repo: Path, dense: bool) -> None:
    from agentctx.store import db
    from agentctx.base import paths
    from agentctx.claude import setup
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.store import records

    setup.initialize()
    pid = detect(repo).id
    rnd = random.Random(7)
    words, weights = vocabulary(dense)
    conn = db.connect(paths.db_path())
    with db.atomic(conn):
        for i in range(n):
            title = " ".join(rnd.choices(words, weights, k=5)).capitalize() + f" rule {i}"
            body = " ".join(rnd.choices(words, weights, k=40)) + "."
            records.insert(conn, NewRecord(rnd.choice(TYPES), title, body, pid, confidence="explicit"))
    conn.close()


def floor(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "import sqlite3, json"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def msg(id: int, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n"


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}


def start(repo: Path, sdk: bool) -> subprocess.Popen:
    args = [sys.executable, "-m", "agentctx", "mcp"] + (["--sdk"] if sdk else [])
    return subprocess.Popen(args, cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def request(proc: subprocess.Popen, id: int, method: str, params: dict) -> dict:
    proc.stdin.write(msg(id, method, params))
    proc.stdin.flush()
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == id:
            return reply


def startup(repo: Path, sdk: bool, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = start(repo, sdk)
        request(proc, 0, "initialize", INIT)
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        reply = request(proc, 1, "tools/list", {})
        times.append(time.perf_counter() - t0)
        assert len(reply["result"]["tools"]) == 7
        proc.stdin.close()
        proc.wait(timeout=30)
    return statistics.median(times) * 1000


DENSE = False


def queries(calls: int) -> list[str]:
    rnd = random.Random(11)
    words, weights = vocabulary(DENSE)
    return [" ".join(rnd.choices(words, weights, k=3)) for _ in range(calls)]


def round_trips(repo: Path, sdk: bool, calls: int) -> tuple[float, float, float]:
    proc = start(repo, sdk)
    request(proc, 0, "initialize", INIT)
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    for i, q in enumerate(queries(20)):  # warm: connection open, pages cached, stemmer built
        request(proc, 100 + i, "tools/call", {"name": "ctx_search", "arguments": {"query": q}})
    times = []
    for i, q in enumerate(queries(calls)):
        t0 = time.perf_counter()
        reply = request(proc, 1000 + i, "tools/call", {"name": "ctx_search", "arguments": {"query": q}})
        times.append(time.perf_counter() - t0)
        assert not reply["result"]["isError"], reply
    pings = []
    for i in range(calls):  # the protocol's own cost: a request that does no work
        t0 = time.perf_counter()
        request(proc, 5000 + i, "ping", {})
        pings.append(time.perf_counter() - t0)
    proc.stdin.close()
    proc.wait(timeout=30)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000, statistics.median(pings) * 1000


def in_process(repo: Path, calls: int) -> float:
    from agentctx.store import db
    from agentctx.base import paths
    from agentctx.base.project import detect
    from agentctx.retrieval.search import search

    conn = db.connect(paths.db_path())
    pid = detect(repo).id
    for q in queries(20):
        search(conn, q, pid)
    times = []
    for q in queries(calls):
        t0 = time.perf_counter()
        search(conn, q, pid, limit=10)
        times.append(time.perf_counter() - t0)
    conn.close()
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dense", action="store_true", help="150-word uniform vocabulary (worst case)")
    args = parser.parse_args()
    global DENSE
    DENSE = args.dense
    work = Path(tempfile.mkdtemp(prefix="agentctx-mcp-bench-"))
    os.environ["AGENTCTX_HOME"] = str(work / "home")
    repo = work / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://x.test/bench.git\n', encoding="utf-8")
    t0 = time.perf_counter()
    populate(args.records, repo, args.dense)
    print(f"populated {args.records} records in {time.perf_counter() - t0:.1f}s")

    floor_ms = floor(args.runs)
    direct_ms = in_process(repo, args.calls)
    variants = [("raw", False)]
    try:
        import mcp  # noqa: F401

        variants.append(("sdk", True))
    except ImportError:
        print("mcp not installed: skipping the --sdk server")
    summary = {"floor_ms": floor_ms, "search_inproc_ms": direct_ms}
    print(f"interpreter floor {floor_ms:.1f} ms; in-process search() median {direct_ms:.2f} ms")
    for name, sdk in variants:
        up = startup(repo, sdk, args.runs)
        med, p95, ping = round_trips(repo, sdk, args.calls)
        print(f"{name:4s} start-up to first tools/list {up:7.1f} ms = {up / floor_ms:4.1f}x floor; "
              f"ctx_search round trip median {med:.2f} ms (p95 {p95:.2f}) = {med / direct_ms:.2f}x in-process search; "
              f"ping round trip {ping:.3f} ms")
        summary |= {f"{name}_startup_ms": up, f"{name}_startup_x_floor": up / floor_ms,
                    f"{name}_search_rt_ms": med, f"{name}_search_rt_p95_ms": p95, f"{name}_ping_rt_ms": ping}
    print(" ".join(f"{k}={v:.2f}" for k, v in summary.items()) + f" records={args.records} dense={int(args.dense)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
