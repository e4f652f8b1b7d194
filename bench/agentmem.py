"""The agents' own memory read by consolidation (outside.agentmem): the time of a first pass (every fact imported), of
a pass with nothing changed (what every later SessionEnd pays) and of a pass after one edit, at a given store size and
number of memory facts; each as a ratio to the digest rebuild consolidation already does in the same run.

python bench/agentmem.py [--records N] [--facts F] [--runs K]
Ends with one line of name=value pairs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hooks import WORDS  # noqa: E402  (bench/hooks.py: the store's vocabulary)
from team import _repo, _seed  # noqa: E402


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _facts(n: int, rng: random.Random) -> list[str]:
    """Facts in words of their own (made up: an agent's notes about other things than the store's decisions), one
    in ten with a common word of the store's vocabulary, so the bound before the matcher has work to do."""
    own = ["".join(rng.choices("bcdfghjklmnprstvz", k=3)) + rng.choice(["ane", "ode", "ist", "ure", "ion"])
           for _ in range(2000)]
    out = []
    for i in range(n):
        words = rng.choices(own, k=12) + (rng.choices(WORDS, k=2) if i % 10 == 0 else [])
        out.append(f"{' '.join(words).capitalize()} (fact {i}).")
    return out


def run(records: int, facts: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)
        os.environ["AGENTCTX_HOME"] = str(home / ".agentctx")
        from agentctx.outside import memdirs
        from agentctx.base import paths
        from agentctx.base.project import detect
        from agentctx.memory import digest
        from agentctx.outside import agentmem
        from agentctx.store import db

        repo = _repo(Path(tmp) / "repo")
        project = detect(repo)
        conn = db.connect(paths.db_path(), create=True)
        rng = random.Random(7)
        _seed(conn, project.id, records, rng)
        memory = home / ".claude" / "projects" / memdirs.sanitize(str(repo)) / "memory"
        memory.mkdir(parents=True)
        lines = _facts(facts, rng)
        index = memory / "MEMORY.md"
        index.write_text("".join(f"- {line}\n" for line in lines), encoding="utf-8")
        (home / ".agentctx" / "digests").mkdir(parents=True, exist_ok=True)
        first = _timed(lambda: agentmem.sync(conn, project))
        unchanged = statistics.median(_timed(lambda: agentmem.sync(conn, project)) for _ in range(runs))
        edits = []
        for k in range(runs):
            lines[k % len(lines)] = lines[k % len(lines)].replace("fact", "changed fact")
            index.write_text("".join(f"- {line}\n" for line in lines), encoding="utf-8")
            edits.append(_timed(lambda: agentmem.sync(conn, project)))
        baseline = statistics.median(_timed(lambda: digest.refresh(conn, project.id, project=project))
                                     for _ in range(runs))
        conn.close()
    return {"records": records, "facts": facts, "first_s": round(first, 4), "unchanged_s": round(unchanged, 4),
            "edit_s": round(statistics.median(edits), 4), "digest_s": round(baseline, 4),
            "unchanged_vs_digest": round(unchanged / baseline, 2), "edit_vs_digest": round(statistics.median(edits) / baseline, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--facts", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    result: dict[str, float] = {}
    for n in args.records:
        result = run(n, args.facts, args.runs)
        print(" ".join(f"{k}={v}" for k, v in result.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
