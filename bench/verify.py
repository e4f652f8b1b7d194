"""Records checked against the code, replayed on real repositories' history (issue 35).

At a base commit, records are made about the files of that commit (a whole file, a range of its lines, or a symbol it
defines), stored in a real store and fingerprinted by `trust.verify` exactly as consolidation does; then history
plays forward to a later commit and the same pass checks them. What really happened to each record's code comes from
git itself (`git diff --find-renames -U0` between the two commits: deleted, renamed, which old lines were removed):

  deleted    the file is gone (git pairs it with no new file)               -> should be flagged
  rewritten  at least half of the record's lines were removed or replaced   -> should be flagged
  unchanged  the file is not in the diff                                    -> should not be flagged
  moved      renamed, at most 20% of the record's lines changed             -> should follow the rename, not be flagged
  edited     changed, at most 20% of the record's lines removed             -> should not be flagged
  (between 20% and 50%: reported, not scored)

Repositories: /work/.mirror/<owner+name>/repo when present (the `fetch` tool's copies, read at run time; nothing of
them is committed). With `--sample`, or when there is no mirror, a tiny history written by hand
(bench/verify_history.py: an invented package, one file per case) is built in a temporary directory so CI runs
offline; that run also prints one `record` line per record. The rewrite threshold (codecheck.KEPT_AT_LEAST) was
fitted on the FIT repositories; the others are reported apart.

`--scale N`: the consolidation pass at N records with anchors (fingerprint, then check after history moved on),
against the consolidation steps that run beside it on the same store (decay and verbatim dedup) as a baseline.

Usage: python bench/verify.py [--repo DIR ...] [--sample] [--per-base N] [--scale N]
Prints a table per repository and one `name=value` summary line.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MIRROR = Path("/work/.mirror")
FIT = ("python-attrs+attrs", "pallets+click")
REPORT = ("encode+httpx", "psf+requests", "pallets+flask", "evilmartians+lefthook", "cozy+cozy-stack",
          "Chainlit+chainlit")
CODE = re.compile(r"\.(py|pyi|go|js|jsx|ts|tsx|rb|rs|java|kt|c|h|cc|cpp|cs|php|swift|scala|sh|toml|yml|yaml)$")
CLASSES = ("deleted", "rewritten", "unchanged", "moved", "edited", "between")
SHOULD_FLAG = {"deleted": True, "rewritten": True, "unchanged": False, "moved": False, "edited": False}


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, check=True,
                          text=True, errors="surrogateescape").stdout


def pairs(git_dir: str, n_bases: int = 3, span: int = 150) -> list[tuple[str, str]]:
    """(base, later) commit pairs along first-parent history: bases spread over it, each `span` commits before the
    later one (or the newest)."""
    commits = git(git_dir, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    if len(commits) < 3:
        return []
    out = []
    for k in range(1, n_bases + 1):
        base = max(0, int(len(commits) * k / (n_bases + 1.5)) - 1)
        out.append((commits[base], commits[min(len(commits) - 1, base + span)]))
    return list(dict.fromkeys(out))


def diff_truth(git_dir: str, base: str, later: str) -> dict[str, tuple[str, str | None, set[int]]]:
    """old path -> (status D/R/M, new path, old line numbers removed or replaced), from git's own diff."""
    out = subprocess.run(["git", "--git-dir", git_dir, "diff", "--find-renames", "-U0", "-w", "--no-color",
                          "--no-ext-diff", base, later], capture_output=True, check=True).stdout
    truth: dict[str, tuple[str, str | None, set[int]]] = {}
    cur: list = []
    old = new = None
    for raw in out.split(b"\n"):
        line = raw.decode("utf-8", "surrogateescape")
        if line.startswith("diff --git "):
            if old is not None and cur:
                truth[old] = tuple(cur)  # type: ignore[assignment]
            old = new = None
            cur = ["M", None, set()]
        elif line.startswith("rename from "):
            old = line[12:]
            cur[0] = "R"
        elif line.startswith("rename to "):
            cur[1] = line[10:]
        elif line.startswith("deleted file mode"):
            cur[0] = "D"
        elif line.startswith("new file mode"):
            cur[0] = "A"
        elif line.startswith("--- "):
            if line != "--- /dev/null" and old is None:
                old = line[6:] if line.startswith("--- a/") else line[4:]
        elif line.startswith("@@ "):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? ", line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
                cur[2].update(range(start, start + count))
    if old is not None and cur:
        truth[old] = tuple(cur)  # type: ignore[assignment]
    return {k: v for k, v in truth.items() if v[0] != "A"}


def make_records(rng: random.Random, tree, paths: list[str], n: int) -> list[tuple[str, str, int, int]]:
    """(path, body, first line, last line) of up to `n` records about files of the tree: a third each about the whole
    file, a range of its lines, a symbol it defines. The region is what the truth is measured on (1-based)."""
    from agentctx.trust import codecheck

    out = []
    for path in rng.sample(paths, min(len(paths), n * 2)):
        if len(out) >= n:
            break
        data = tree.read(path)
        if not data or b"\0" in data[:4000]:
            continue
        lines = data.splitlines()
        if len(lines) < 15:
            continue
        kind = len(out) % 3
        if kind == 1:
            lo = rng.randint(1, max(1, len(lines) - 30))
            hi = min(len(lines), lo + rng.randint(8, 30))
            out.append((path, f"The retry loop in `{path}:{lo}-{hi}` backs off before it gives up.", lo, hi))
            continue
        if kind == 2:
            names = re.findall(rb"^\s*(?:def|class|func|function|fn|struct|type)\s+([A-Za-z_]\w{3,})", data, re.M)
            rng.shuffle(names)
            for name in names:
                sym = name.decode()
                span = codecheck.symbol_span(lines, sym)
                if span and span[1] - span[0] >= 3:
                    out.append((path, f"`{sym}` in {path} is where the work is done; keep its contract.",
                                span[0] + 1, span[1]))
                    break
            else:
                kind = 0
        if kind == 0:
            out.append((path, f"Everything about this lives in {path}; read it before changing it.", 1, len(lines)))
    return out


def classify(status: tuple[str, str | None, set[int]] | None, lo: int, hi: int) -> str:
    if status is None:
        return "unchanged"
    kind, _new, removed = status
    if kind == "D":
        return "deleted"
    share = len(removed & set(range(lo, hi + 1))) / max(1, hi - lo + 1)
    if share >= 0.5:
        return "rewritten"
    if share <= 0.2:
        return "moved" if kind == "R" else "edited"
    return "between"


def replay(git_dir: str, per_base: int, rng: random.Random,
           log: list[tuple[str, str, int, int, str, bool, bool]] | None = None) -> dict[str, list[int]]:
    """{class: [records, flagged, followed]} over the repository's commit pairs, through the real store and pass;
    `log` gets (base, path, first line, last line, class, flagged, followed) per record."""
    from agentctx.base.models import NewRecord
    from agentctx.trust import codecheck, verify
    from agentctx.store import db, records, trust

    counts = {c: [0, 0, 0] for c in CLASSES}
    for n, (base, later) in enumerate(pairs(git_dir)):
        work = Path(tempfile.mkdtemp(prefix="agentctx-verify-"))
        conn = db.connect(work / "agentctx.db", create=True)
        pid = f"bench-{n}"
        before, after = codecheck.CommitTree(git_dir, base), codecheck.CommitTree(git_dir, later)
        try:
            tracked = before.tracked()
            made = make_records(rng, before, sorted(p for p in tracked.paths if CODE.search(p)), per_base)
            ids = {}
            from agentctx.base import freshness

            with freshness.deferred(conn):
                for path, body, lo, hi in made:
                    rec, _ = records.insert(conn, NewRecord(type="discovery", title=f"About {path}"[:120], body=body,
                                                            project_id=pid))
                    ids[rec.id] = (path, lo, hi)
            verify.fingerprint_new(conn, pid, before, tracked, before.read, float("inf"))
            verify.check_all(conn, pid, after, after.read, float("inf"))
            try:
                truth = diff_truth(git_dir, base, later)
            except subprocess.CalledProcessError:  # a snapshot without some large blobs: this pair cannot be judged
                print(f"  (skipped {base[:10]}..{later[:10]}: git cannot diff it in this copy)")
                continue
            marks = trust.marks_for(conn, ids)
            where = {(f[0]): f[1] for f in trust.fingerprints(conn, pid)}
            for rid, (path, lo, hi) in ids.items():
                status = truth.get(path)
                klass = classify(status, lo, hi)
                row = counts[klass]
                flagged = "unverified" in marks.get(rid, {})
                followed = bool(status and status[0] == "R" and where.get(rid) == status[1])
                row[0] += 1
                row[1] += flagged
                row[2] += followed
                if log is not None:
                    log.append((base, path, lo, hi, klass, flagged, followed))
                if os.environ.get("VERIFY_BENCH_DEBUG") and SHOULD_FLAG.get(klass) is not None and \
                        SHOULD_FLAG[klass] != ("unverified" in marks.get(rid, {})):
                    print(f"  miss {klass} {path}:{lo}-{hi} {status and status[:2]} {marks.get(rid)} "
                          f"{[f[1:] for f in trust.fingerprints(conn, pid, [rid])]}"[:400])
        finally:
            before.close()
            after.close()
            conn.close()
    return counts


def table(name: str, counts: dict[str, list[int]]) -> list[str]:
    out = [f"{name}:"]
    for klass in CLASSES:
        n, flagged, followed = counts[klass]
        if not n:
            continue
        extra = f", rename followed {followed}/{n}" if klass == "moved" else ""
        want = SHOULD_FLAG.get(klass)
        tag = "(should flag)" if want else "(should not flag)" if want is False else "(not scored)"
        out.append(f"  {klass:10s} {n:4d} records, flagged {flagged / n:6.1%} {tag}{extra}")
    return out


def add(total: dict[str, list[int]], counts: dict[str, list[int]]) -> None:
    for k, v in counts.items():
        total[k] = [a + b for a, b in zip(total.get(k, [0, 0, 0]), v)]


def scale(git_dir: str, n: int, rng: random.Random) -> dict[str, float]:
    """The verification pass at `n` records with anchors (fingerprinting, then checking after history moved on),
    with the consolidation steps beside it on the same store as the baseline."""
    from agentctx.base.models import NewRecord
    from agentctx.memory import consolidate
    from agentctx.trust import codecheck, verify
    from agentctx.store import db

    commits = git(git_dir, "rev-list", "--first-parent", "HEAD").split()
    base, later = commits[min(len(commits) - 1, 300)], commits[0]
    work = Path(tempfile.mkdtemp(prefix="agentctx-verify-scale-"))
    conn = db.connect(work / "agentctx.db", create=True)
    pid = "bench-scale"
    before, after = codecheck.CommitTree(git_dir, base), codecheck.CommitTree(git_dir, later)
    try:
        tracked = before.tracked()
        paths = sorted(p for p in tracked.paths if CODE.search(p)) or sorted(tracked.paths)
        rows = []
        for i in range(n):
            named = rng.sample(paths, min(len(paths), rng.randint(1, 3)))
            anchors = tuple(f"path:{p}" for p in named)
            rows.append(NewRecord(type=rng.choice(("decision", "convention", "discovery", "bugfix")),
                                  title=f"Record {i} about {named[0]}"[:120], anchors=anchors,
                                  body=f"Note {i}: " + " and ".join(f"`{p}:{rng.randint(1, 40)}-{rng.randint(41, 90)}`"
                                                                    if j == 0 else p for j, p in enumerate(named)),
                                  project_id=pid, confidence="inferred", session_id=f"s{i % 50}"))
        from agentctx.base import freshness
        from agentctx.store import records

        with freshness.deferred(conn):  # one digest rebuild for the batch, as extraction's ingest does
            for r in rows:
                records.insert(conn, r)
        t0 = time.perf_counter()
        verify.fingerprint_new(conn, pid, before, tracked, before.read, float("inf"))  # each pass reads a file once
        t1 = time.perf_counter()
        report = verify.check_all(conn, pid, after, after.read, float("inf"))
        t2 = time.perf_counter()
        report_again = verify.check_all(conn, pid, after, after.read, float("inf"))  # a second pass, nothing new
        t3 = time.perf_counter()
        consolidate.decay(conn, pid)
        consolidate.dedup(conn, pid)
        t4 = time.perf_counter()
        from agentctx.trust import expiry, merge

        merged = merge.run(conn, pid, budget_s=float("inf"))
        expiry.run(conn, pid, days=30)
        t5 = time.perf_counter()
    finally:
        before.close()
        after.close()
        conn.close()
    return {"records": n, "fingerprint_s": t1 - t0, "check_s": t2 - t1, "recheck_s": t3 - t2,
            "baseline_s": t4 - t3, "merge_expiry_s": t5 - t4, "merged": merged["merged"],
            "flagged": report["flagged"], "renamed": report["renamed"],
            "budget_s": verify.BUDGET_S, "again_flagged": report_again["flagged"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", default=[], help="a git directory (repeatable)")
    ap.add_argument("--per-base", type=int, default=60, help="records made at each base commit")
    ap.add_argument("--scale", type=int, default=0, help="also time the pass at this many records")
    ap.add_argument("--sample", action="store_true",
                    help="only the small history written by hand (what CI runs, offline)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="agentctx-verify-bench-"))
    os.environ.setdefault("AGENTCTX_HOME", str(work / "home"))
    rng = random.Random(35)
    repos: list[tuple[str, str, str]] = [(Path(r).name, r, "given") for r in args.repo]
    if not repos and not args.sample:
        for name in FIT + REPORT:
            git_dir = MIRROR / name / "repo"
            if git_dir.is_dir():
                repos.append((name.replace("+", "/"), str(git_dir), "fit" if name in FIT else "report"))
    if not repos:
        import verify_history  # beside this script

        repos.append(("sample", verify_history.build(work), "sample"))
    totals: dict[str, dict[str, list[int]]] = {}
    for name, git_dir, group in repos:
        log: list[tuple[str, str, int, int, str, bool, bool]] = []
        counts = replay(git_dir, args.per_base, rng, log)
        if group == "sample":  # few enough to list, so the test can check each case
            for base, path, lo, hi, klass, flagged, followed in log:
                print(f"record base={base[:10]} {path}:{lo}-{hi} class={klass} flagged={int(flagged)} "
                      f"followed={int(followed)}")
        print("\n".join(table(name, counts)))
        add(totals.setdefault(group, {}), counts)
    summary = {}
    for group, counts in totals.items():
        print("\n".join(table(f"all {group}", counts)))
        flag_n = sum(counts[k][0] for k in ("deleted", "rewritten"))
        flag_hit = sum(counts[k][1] for k in ("deleted", "rewritten"))
        keep_n = sum(counts[k][0] for k in ("unchanged", "moved", "edited"))
        keep_false = sum(counts[k][1] for k in ("unchanged", "moved", "edited"))
        summary[f"{group}_flag_recall"] = f"{flag_hit / flag_n:.3f}" if flag_n else "nan"
        summary[f"{group}_false_flag"] = f"{keep_false / keep_n:.3f}" if keep_n else "nan"
        moved = counts["moved"]
        summary[f"{group}_moved_followed"] = f"{moved[2] / moved[0]:.3f}" if moved[0] else "nan"
    if args.scale:
        git_dir = repos[0][1]
        s = scale(git_dir, args.scale, rng)
        print(f"scale: {s['records']} records with anchors on {repos[0][0]}: fingerprint {s['fingerprint_s']:.2f} s, "
              f"check {s['check_s']:.2f} s (again, nothing new: {s['recheck_s']:.2f} s), decay+dedup on the same "
              f"store {s['baseline_s']:.2f} s; near-duplicate merge and expiry {s['merge_expiry_s']:.2f} s "
              f"({s['merged']} merged); budget {s['budget_s']:.0f} s; flagged {s['flagged']}, "
              f"renames followed {s['renamed']}")
        summary["scale_merge_expiry_s"] = f"{s['merge_expiry_s']:.2f}"
        summary["scale_records"] = str(s["records"])
        summary["scale_check_s"] = f"{s['check_s']:.2f}"
        summary["scale_fingerprint_s"] = f"{s['fingerprint_s']:.2f}"
        summary["scale_ratio_to_baseline"] = f"{(s['check_s']) / max(s['baseline_s'], 1e-6):.2f}"
        summary["scale_within_budget"] = str(s["check_s"] <= s["budget_s"] and s["fingerprint_s"] <= s["budget_s"])
    print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
