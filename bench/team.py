"""Team memory: export and import time and file size at 1K and 10K shared records, the merge-conflict rate of
concurrent additions under git's line merge, and SessionStart's cost with a team file in the work tree.

python bench/team.py [--records N ...] [--runs K] [--merge-trials T] [--no-hook] [--python PY]
Ends with one line of name=value pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hooks import RARE, WORDS, installed_python  # noqa: E402  (bench/hooks.py: the same vocabulary)

TYPES = ("decision", "convention", "discovery")


def _env(home: Path) -> None:
    os.environ["HOME"] = str(home)
    os.environ["AGENTCTX_HOME"] = str(home / ".agentctx")


def _repo(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/bench/team.git\n')
    return path


def _seed(conn, project_id: str, n: int, rng: random.Random) -> None:
    from agentctx.base.ids import now_iso, ulid

    words = WORDS + RARE
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    now = now_iso()
    rows = []
    for i in range(n):
        title = f"{' '.join(rng.choices(words, weights, k=6)).capitalize()} {i}"
        body = " ".join(rng.choices(words, weights, k=60)) + "."
        rows.append((ulid(), project_id, TYPES[i % 3], title, body, "explicit", now, now, "cli"))
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO records (id, project_id, type, title, body, confidence, valid_from, recorded_at, "
                     "source) VALUES (?,?,?,?,?,?,?,?,?)", rows)
    conn.execute("COMMIT")


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - start) * 1000


def bench_size(n: int, tmp: Path) -> dict[str, float]:
    from agentctx.store import db
    from agentctx.base import paths
    from agentctx.team import sync as team
    from agentctx.base.project import detect

    rng = random.Random(n)
    repo_a, repo_b = _repo(tmp / f"a{n}"), _repo(tmp / f"b{n}")
    out: dict[str, float] = {}
    _env(tmp / f"home-a{n}")
    conn = db.connect(paths.db_path(), create=True)
    proj = detect(repo_a)
    _seed(conn, proj.id, n, rng)
    target = team.team_target(proj)
    res, out["export_ms"] = _timed(lambda: team.export_file(conn, target))
    out["file_bytes"], out["entries"] = res.bytes, res.entries
    out["file_lines"] = Path(res.path).read_text(encoding="utf-8").count("\n")
    _, out["export_again_ms"] = _timed(lambda: team.export_file(conn, target))
    text_a = Path(res.path).read_bytes()
    conn.close()
    # Machine B: a fresh store imports the file.
    _env(tmp / f"home-b{n}")
    (repo_b / ".agentctx").mkdir()
    (repo_b / ".agentctx" / "context.md").write_bytes(text_a)
    conn = db.connect(paths.db_path(), create=True)
    target_b = team.team_target(detect(repo_b))
    first, out["import_new_ms"] = _timed(lambda: team.import_file(conn, target_b))
    assert len(first.created) == n, (len(first.created), first.errors[:3])
    again, out["import_again_ms"] = _timed(lambda: team.import_file(conn, target_b))
    assert not again.changed
    _, out["status_ms"] = _timed(lambda: team.plan(conn, target_b, team.read_file(target_b)))
    # Ten hand edits.
    text = target_b_text = Path(target_b.path).read_text(encoding="utf-8")
    parsed = __import__("agentctx.team.fileformat", fromlist=["parse"]).parse(target_b_text, target.kind)
    for entry in rng.sample(list(parsed.entries), 10):
        text = text.replace(entry.body, entry.body + " Edited by hand.", 1)
    Path(target_b.path).write_text(text, encoding="utf-8")
    edits, out["import_10_edits_ms"] = _timed(lambda: team.import_file(conn, target_b))
    assert len(edits.superseded) == 10
    _, export_b_ms = _timed(lambda: team.export_file(conn, target_b))
    out["byte_equal_across_machines"] = float(Path(target_b.path).read_text(encoding="utf-8") == text)
    conn.close()
    return out


def merge_conflict_rate(entries: int, trials: int, tmp: Path) -> float:
    """Both teammates add one entry (random titles) to a file of `entries`; the share of git merge-file conflicts."""
    from agentctx.team.fileformat import TEAM, render

    rng = random.Random(entries)
    words = WORDS + RARE

    def entry(i: int):
        return (f"K{i:06d}", TYPES[rng.randrange(3)], " ".join(rng.choices(words, k=5)).capitalize(),
                " ".join(rng.choices(words, k=40)))

    conflicts = 0
    for t in range(trials):
        base = [entry(i) for i in range(entries)]
        ours, theirs = base + [entry(entries + 1)], base + [entry(entries + 2)]
        for name, es in (("base", base), ("ours", ours), ("theirs", theirs)):
            (tmp / name).write_text(render(TEAM, es), encoding="utf-8")
        done = subprocess.run(["git", "merge-file", "-q", "-p", str(tmp / "ours"), str(tmp / "base"),
                               str(tmp / "theirs")], capture_output=True)
        conflicts += done.returncode != 0
    return conflicts / trials


def hook_ratio(py: str, runs: int, tmp: Path) -> dict[str, float]:
    """SessionStart as a whole process: no team file, a team file in sync, next to the interpreter floor."""
    home = tmp / "hook-home"
    plain, shared = _repo(tmp / "hook-plain"), _repo(tmp / "hook-shared")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "ANTHROPIC_API_KEY")}
    env.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"), PYTHONPYCACHEPREFIX=str(tmp / "pyc"),
               TMPDIR=str(tmp))
    code = f"""
from agentctx.base import paths
from agentctx.memory import consolidate
from agentctx.store import db
from agentctx.team import sync as team
from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.store import records
conn = db.connect(paths.db_path(), create=True)
for root in ({str(plain)!r}, {str(shared)!r}):
    p = detect(root)
    for i in range(300):
        records.insert(conn, NewRecord(type="decision", title=f"Decision {{i}} on caching", body="Body " * 30,
                                       project_id=p.id, confidence="explicit"))
    consolidate.run(p)
team.export_file(conn, team.team_target(detect({str(shared)!r})))
"""
    subprocess.run([py, "-c", code], env=env, check=True)
    commands = {"floor": ([py, "-I", "-c", "import sqlite3, json"], None),
                "no_file": ([py, "-m", "agentctx", "hook", "session-start"], plain),
                "team_file": ([py, "-m", "agentctx", "hook", "session-start"], shared)}
    samples: dict[str, list[float]] = {k: [] for k in commands}
    for i in range(runs + 2):
        for name, (argv, cwd) in commands.items():
            payload = json.dumps({"session_id": "b", "cwd": str(cwd or tmp), "source": "startup"}).encode()
            start = time.perf_counter()
            subprocess.run(argv, input=payload, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                           cwd=str(cwd or tmp))
            if i >= 2:
                samples[name].append((time.perf_counter() - start) * 1000)
    floor = samples["floor"]
    return {"floor_ms": statistics.median(floor),
            "session_start_ms": statistics.median(samples["no_file"]),
            "session_start_ratio": statistics.median(v / f for v, f in zip(samples["no_file"], floor)),
            "session_start_team_ms": statistics.median(samples["team_file"]),
            "session_start_team_ratio": statistics.median(v / f for v, f in zip(samples["team_file"], floor))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--merge-trials", type=int, default=200)
    parser.add_argument("--no-hook", action="store_true", help="skip the SessionStart timing (needs a venv)")
    parser.add_argument("--python", help="interpreter with agentctx installed (default: a fresh venv)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="agentctx-bench-team-"))
    summary: dict[str, str] = {}
    try:
        for n in args.records:
            res = bench_size(n, tmp)
            tag = f"{n // 1000}k" if n >= 1000 else str(n)
            print(f"\n{n:,} shared records: file {res['file_bytes'] / 1024:,.0f} KiB, {res['file_lines']:,.0f} lines")
            for key in ("export_ms", "export_again_ms", "import_new_ms", "import_again_ms", "status_ms",
                        "import_10_edits_ms"):
                print(f"  {key:<22}{res[key]:>10.1f} ms")
            print(f"  byte-equal export on the importing machine: {bool(res['byte_equal_across_machines'])}")
            summary[f"export_ms_{tag}"] = f"{res['export_ms']:.0f}"
            summary[f"import_ms_{tag}"] = f"{res['import_new_ms']:.0f}"
            summary[f"reimport_ms_{tag}"] = f"{res['import_again_ms']:.0f}"
            summary[f"file_kib_{tag}"] = f"{res['file_bytes'] / 1024:.0f}"
        print("\nconcurrent additions merged by git merge-file (both add one entry with a random title):")
        merge_dir = tmp / "merge"
        merge_dir.mkdir()
        for entries in (10, 50, 200):
            rate = merge_conflict_rate(entries, args.merge_trials, merge_dir)
            print(f"  {entries:>4} entries: {rate:.1%} of {args.merge_trials} merges conflict")
            summary[f"merge_conflict_rate_{entries}"] = f"{rate:.3f}"
        if not args.no_hook:
            venv = tmp / "venv"
            venv.mkdir()
            py = args.python or installed_python(venv)
            res = hook_ratio(py, args.runs, tmp)
            print(f"\nSessionStart, floor {res['floor_ms']:.1f} ms: no team file {res['session_start_ms']:.1f} ms "
                  f"({res['session_start_ratio']:.2f}x), team file in sync {res['session_start_team_ms']:.1f} ms "
                  f"({res['session_start_team_ratio']:.2f}x)")
            summary["session_start_ratio"] = f"{res['session_start_ratio']:.2f}"
            summary["session_start_team_ratio"] = f"{res['session_start_team_ratio']:.2f}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
