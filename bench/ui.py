"""Dashboard speed: server time for the records view's first paint and for API list/search calls on a seeded store,
each next to a baseline measured in the same run (a static file and a refused request), plus the prompt hook's
latency with the dashboard open and being polled, next to the same hook with no dashboard running.

    python bench/ui.py [--records 10000] [--rounds 30]

Prints one line per figure and a summary line:
    ui first_paint_ms=… list_ms=… search_ms=… baseline_ms=… hook_open_ratio=… hook_busy_ratio=…
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"
sys.path.insert(0, str(ROOT))

QUERIES = ["which database do we use for orders", "how should API errors be returned to the client",
           "deploy containers to ecs", "feature flags", "authentication tokens rotate"]
FILES = ["app/models/form.rb", "app/controllers/forms_controller.rb", "src/api/errors.py", "src/db/orders.sql",
         "infra/ecs/service.tf", "docs/adr/0001.md", "lib/auth/tokens.ts", "web/src/App.tsx"]


def texts() -> list[tuple[str, str]]:
    """Real decision texts (the ADR development set) to seed with; padded by numbered variants."""
    out = []
    path = SHARED / "adr-dev" / "adrs.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            adr = json.loads(line)
            out.append((adr["title"][:120], (adr.get("decision") or adr.get("context") or adr["title"])[:1800]))
    return out or [(f"Decision {i}", f"We decided thing {i} because of reason {i}.") for i in range(100)]


def seed(n: int, repo: Path) -> str:
    """`n` records in sessions of 8 with injections and file links; returns the project id."""
    from agentctx.store import db
    from agentctx.base import paths
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.store import graph, records, sessions

    rng = random.Random(7)
    pid = detect(repo).id
    base = texts()
    conn = db.connect(paths.db_path(), create=True)
    types = ["decision", "decision", "convention", "discovery", "bugfix", "preference"]
    confs = ["explicit", "explicit", "inferred", "reinforced"]
    nodes = [graph.upsert_node(conn, pid, "file", f) for f in FILES]
    conn.execute("BEGIN")
    ids = []
    for i in range(n):
        title, body = base[i % len(base)]
        if i >= len(base):
            title = f"{title} ({i // len(base)})"[:120]
        rec, _ = records.insert(conn, NewRecord(type=types[i % len(types)], title=title, body=body, project_id=pid,
                                                confidence=confs[i % len(confs)], session_id=f"s{i // 8:05d}",
                                                source="llm_extraction" if i % 3 else "cli"))
        ids.append(rec.id)
        if i % 3 == 0:  # capture links about a third of the records to the files they were written about
            graph.link(conn, rec.id, [nodes[i % len(nodes)]] + ([nodes[(i * 7) % len(nodes)]] if i % 2 else []))
    conn.execute("COMMIT") if conn.in_transaction else None
    for s in range(0, n // 8, 3):
        sessions.log_injection(conn, session_id=f"s{s:05d}", project_id=pid, event="UserPromptSubmit",
                               prompt_hash=f"{s:08x}", record_ids=rng.sample(ids, 3), scores=[1.2, 1.1, 1.0],
                               tokens=300)
    conn.close()
    return pid


def timed(port: int, token: str | None, path: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": f"127.0.0.1:{port}"}
    if token:
        headers["X-Agentctx-Token"] = token
    t0 = time.perf_counter()
    conn.request("GET", path, headers=headers)
    res = conn.getresponse()
    res.read()
    elapsed = time.perf_counter() - t0
    conn.close()
    if token and path.startswith("/api/") and res.status != 200:
        raise SystemExit(f"{path}: HTTP {res.status}")
    return elapsed * 1000


def median_of(rounds: int, fn) -> float:  # type: ignore[no-untyped-def]
    return statistics.median(fn() for _ in range(rounds))


def hook_ms(repo: Path, env: dict[str, str], rounds: int) -> float:
    payload = json.dumps({"session_id": "bench", "hook_event_name": "UserPromptSubmit", "cwd": str(repo),
                          "prompt": "which database do we use for orders and how are API errors returned?"})
    times = []
    for i in range(rounds):
        env = {**env, "AGENTCTX_BENCH_ROUND": str(i)}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "agentctx", "hook", "UserPromptSubmit"], input=payload, text=True,
                       cwd=repo, env={**env, "CLAUDE_SESSION_ID": f"b{i}"}, capture_output=True, check=False)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def interleaved_hooks(repo: Path, env: dict[str, str], rounds: int) -> tuple[float, float, float]:
    """The prompt hook's median time with no dashboard, with one open and idle, and with one serving a list call
    every 500 ms: the three states alternate within every round, so machine load falls on all of them alike."""
    from agentctx.base.project import detect
    from agentctx.ui.server import make_server

    closed, idle, busy = [], [], []
    for _ in range(rounds):
        closed.append(hook_ms(repo, env, 1))
        httpd, settings = make_server(detect(repo), port=0, fallback=False)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.25}, daemon=True).start()
        port, tok = httpd.server_address[1], settings.token
        idle.append(hook_ms(repo, env, 1))
        stop = threading.Event()

        def poll() -> None:
            while not stop.is_set():
                timed(port, tok, "/api/records?limit=50")
                stop.wait(0.5)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        busy.append(hook_ms(repo, env, 1))
        stop.set()
        poller.join()
        httpd.shutdown()
        httpd.server_close()
    return statistics.median(closed), statistics.median(idle), statistics.median(busy)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        repo = home / "repo"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:bench/ui.git\n')
        os.environ.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"))
        t0 = time.perf_counter()
        seed(args.records, repo)
        print(f"seeded {args.records} records in {time.perf_counter() - t0:.1f} s")

        from agentctx.base.project import detect
        from agentctx.ui.server import make_server

        env = dict(os.environ)

        httpd, settings = make_server(detect(repo), port=0, fallback=False)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        port, tok = httpd.server_address[1], settings.token
        r = args.rounds
        baseline_static = median_of(r, lambda: timed(port, None, "/app.css"))
        baseline_refused = median_of(r, lambda: timed(port, None, "/api/meta"))
        paint = median_of(r, lambda: sum(timed(port, t, p) for t, p in (
            (None, "/"), (None, "/app.css"), (None, "/graph.js"), (None, "/app.js"), (tok, "/api/meta"),
            (tok, "/api/records?limit=50"))))
        listing = {
            "first page": median_of(r, lambda: timed(port, tok, "/api/records?limit=50")),
            "filtered (type, confidence)": median_of(r, lambda: timed(port, tok, "/api/records?type=decision&confidence=inferred")),
            "page at offset 5000": median_of(r, lambda: timed(port, tok, f"/api/records?offset={args.records // 2}")),
            "with superseded": median_of(r, lambda: timed(port, tok, "/api/records?superseded=include")),
        }
        searches = {q: median_of(r, lambda q=q: timed(port, tok, "/api/records?limit=10&q=" + q.replace(" ", "%20")))
                    for q in QUERIES}
        other = {p: median_of(max(5, r // 3), lambda p=p: timed(port, tok, p))
                 for p in ("/api/sessions", "/api/overview", "/api/graph")}
        httpd.shutdown()
        httpd.server_close()
        hook_closed, hook_idle, hook_open = interleaved_hooks(repo, env, max(6, r // 2))

    print(f"baseline: static file {baseline_static:.2f} ms, refused API call {baseline_refused:.2f} ms")
    print(f"records view first paint (page, 3 assets, meta, first page): {paint:.1f} ms server time "
          f"({paint / baseline_static:.1f}x one static file)  target <= 300 ms")
    for name, ms in listing.items():
        print(f"list {name}: {ms:.1f} ms ({ms / baseline_refused:.1f}x baseline)  target <= 50 ms")
    for q, ms in searches.items():
        print(f"search {q!r}: {ms:.1f} ms ({ms / baseline_refused:.1f}x baseline)  target <= 50 ms")
    for p, ms in other.items():
        print(f"{p}: {ms:.1f} ms")
    print(f"prompt hook: {hook_closed:.1f} ms without the dashboard, {hook_idle:.1f} ms with it open "
          f"({hook_idle / hook_closed:.2f}x), {hook_open:.1f} ms while it serves a list every 500 ms "
          f"({hook_open / hook_closed:.2f}x)")
    print(f"ui first_paint_ms={paint:.1f} list_ms={max(listing.values()):.1f} search_ms={max(searches.values()):.1f} "
          f"baseline_ms={baseline_refused:.2f} hook_open_ratio={hook_idle / hook_closed:.2f} "
          f"hook_busy_ratio={hook_open / hook_closed:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
