"""CLAUDE.md drift quality on a small hand-labelled set, against the TypeScript original's title-word overlap.

Usage: python bench/drift.py [bench/data/drift-labelled.json]
Prints per-case results, precision/recall/F1 of "missing" and "contradicted" for agentctx and the baseline,
and one `name=value` summary line. The set is small and written by the matcher's author: a sanity check.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def baseline_scores(claude_text: str, titles: dict[str, str]) -> dict[str, float]:
    """The original's drift: 1 - share of title tokens (len >= 4) found anywhere in CLAUDE.md (tokens len >= 3)."""
    doc = {t for t in re.findall(r"[a-zA-Z0-9_]+", claude_text.lower()) if len(t) >= 3}
    out = {}
    for rid, title in titles.items():
        toks = {t for t in re.findall(r"[a-zA-Z0-9_]+", title.lower()) if len(t) >= 4}
        out[rid] = 0.0 if len(toks) < 2 else 1 - len(toks & doc) / len(toks)
    return out


def baseline_contradicted(claude_text: str, title: str) -> bool:
    doc = {t for t in re.findall(r"[a-zA-Z0-9_]+", claude_text.lower()) if len(t) >= 3}
    toks = {t for t in re.findall(r"[a-zA-Z0-9_]+", title.lower()) if len(t) >= 4}
    return len(toks) >= 2 and len(toks & doc) / len(toks) > 0.5


def prf(pairs: list[tuple[bool, bool]]) -> tuple[float, float, float]:
    tp = sum(1 for truth, pred in pairs if truth and pred)
    fp = sum(1 for truth, pred in pairs if not truth and pred)
    fn = sum(1 for truth, pred in pairs if truth and not pred)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def run(data_path: Path) -> int:
    work = Path(tempfile.mkdtemp(prefix="agentctx-drift-bench-"))
    os.environ["AGENTCTX_HOME"] = str(work / "home")
    from agentctx.store import db
    from agentctx.outside import drift
    from agentctx.base import paths
    from agentctx.claude import setup
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.store import records

    setup.initialize()
    conn = db.connect(paths.db_path())
    cases = json.loads(data_path.read_text(encoding="utf-8"))["cases"]
    ours_missing, base_missing, base_imports_missing = [], [], []
    ours_contra, base_contra = [], []
    timings = []
    for n, case in enumerate(cases):
        repo = work / f"repo{n}"
        (repo / ".git").mkdir(parents=True)
        (repo / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://x.test/{n}.git\n', encoding="utf-8")
        project = detect(repo)
        ids: dict[str, str] = {}
        for r in case["records"]:
            new = NewRecord(r["type"], r["title"], r["body"] or r["title"], project.id, confidence="explicit")
            ids[r["key"]] = records.insert(conn, new, supersedes=ids.get(r.get("supersedes", "")))[0].id
        fill = lambda text: re.sub(r"\{id:(\w[\w-]*)\}", lambda m: ids[m.group(1)], text)
        claude_text = fill(case["claude_md"])
        (repo / "CLAUDE.md").write_text(claude_text, encoding="utf-8")
        imported = ""
        for rel, body in case.get("imports", {}).items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(fill(body), encoding="utf-8")
            imported += "\n" + fill(body)
        start = time.perf_counter()
        report = drift.scan(conn, project, update_scores=False, home=work / "home")
        timings.append((time.perf_counter() - start) * 1000)
        got_missing = {m["id"] for m in report.missing}
        got_contra = {c["id"] for c in report.contradicted}
        superseded_keys = {r["supersedes"] for r in case["records"] if r.get("supersedes")}
        titles = {ids[r["key"]]: r["title"] for r in case["records"] if r["key"] not in superseded_keys}
        base = baseline_scores(claude_text, titles)
        base_imp = baseline_scores(claude_text + imported, titles)
        errors = []
        for r in case["records"]:
            rid = ids[r["key"]]
            if r["key"] in superseded_keys:
                truth = r["label"] == "contradicted"
                ours_contra.append((truth, rid in got_contra))
                base_contra.append((truth, baseline_contradicted(claude_text, r["title"])))
                if truth != (rid in got_contra):
                    errors.append(f"{r['key']}:{'FN' if truth else 'FP'}-contra")
            else:
                truth = r["label"] == "missing"
                ours_missing.append((truth, rid in got_missing))
                base_missing.append((truth, base[rid] >= 0.7))
                base_imports_missing.append((truth, base_imp[rid] >= 0.7))
                if truth != (rid in got_missing):
                    errors.append(f"{r['key']}:{'FN' if truth else 'FP'}")
        print(f"{case['name']:32s} records={len(case['records']):2d} scan={timings[-1]:6.2f}ms errors={errors or '-'}")

    rows = [("agentctx", ours_missing), ("original (root file only)", base_missing),
            ("original + imports", base_imports_missing)]
    print("\nmissing detection (positive = not reflected in CLAUDE.md)")
    results = {}
    for name, pairs in rows:
        p, r, f = prf(pairs)
        acc = sum(t == q for t, q in pairs) / len(pairs)
        results[name] = (p, r, f, acc)
        print(f"  {name:28s} precision={p:.2f} recall={r:.2f} F1={f:.2f} accuracy={acc:.2f} (n={len(pairs)})")
    cp, cr, cf = prf(ours_contra)
    bp, br, bf = prf(base_contra)
    print("contradicted detection (positive = superseded record still stated)")
    print(f"  {'agentctx':28s} precision={cp:.2f} recall={cr:.2f} F1={cf:.2f} (n={len(ours_contra)})")
    print(f"  {'original':28s} precision={bp:.2f} recall={br:.2f} F1={bf:.2f}")
    ours_f1, base_f1 = results["agentctx"][2], results["original (root file only)"][2]
    print(f"\nmissing F1 ratio agentctx/original = {ours_f1 / base_f1 if base_f1 else float('inf'):.2f}x; "
          f"median scan {statistics.median(timings):.2f} ms")
    print(f"drift_missing_f1={ours_f1:.2f} baseline_missing_f1={base_f1:.2f} "
          f"drift_missing_accuracy={results['agentctx'][3]:.2f} baseline_missing_accuracy="
          f"{results['original (root file only)'][3]:.2f} drift_contradicted_f1={cf:.2f} "
          f"baseline_contradicted_f1={bf:.2f} scan_ms_median={statistics.median(timings):.2f}")
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "data" / "drift-labelled.json"))
