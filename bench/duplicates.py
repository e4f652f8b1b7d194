"""One fact, one record: consolidation's near-duplicate merge (trust/merge.py) on real decisions (issue 35).

Data: the adr-dev decisions (/work/shared/bench/adr-dev/adrs.jsonl: 132 real ADRs of three repositories), each
stored as a `decision` record (title; body = its decision section), one store per repository. Three measures:

  distinct   the repository's decisions together: every merge is a false merge (different decisions of one
             project share vocabulary, and some supersede others: the hardest negatives there are)
  restated   each decision beside a copy written the way CLAUDE.md sync and `import claude-memory` restate a fact
             (a bullet of its sentences, reflowed, another case, sentences in another order; the title shortened):
             each pair should merge
  changed    each decision beside a copy that says something else: a number changed, a negation added, or one word
             of it swapped for a word of another decision: no pair may merge

Usage: python bench/duplicates.py [--adrs FILE]
Prints per-measure counts and one `name=value` summary line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ADRS = Path("/work/shared/bench/adr-dev/adrs.jsonl")
FALLBACK = ROOT / "bench" / "data" / "handwritten-records.jsonl"


def load(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        title = " ".join(str(row.get("title") or "").split())
        body = str(row.get("decision") or row.get("body") or row.get("context") or "").strip()
        if title and body:
            out.append({"repo": row.get("repo") or "repo", "title": title[:120], "body": body[:2000]})
    return out


def restate(row: dict, rng: random.Random) -> dict:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(row["body"].split())) if s.strip()]
    if len(sentences) > 1 and rng.random() < 0.5:
        sentences = sentences[1:] + sentences[:1]
    body = "\n".join(f"- {s}" for s in sentences)
    body = body.lower() if rng.random() < 0.5 else body
    title = row["title"].rstrip(".")
    return {**row, "title": title[:60].rsplit(" ", 1)[0] if len(title) > 60 else title, "body": body[:2000]}


def change(row: dict, others: list[dict], rng: random.Random) -> dict | None:
    body = row["body"]
    m = re.search(r"\b\d+\b", body)
    if m:
        return {**row, "body": body[:m.start()] + str(int(m.group(0)) + 7) + body[m.end():]}
    m = re.search(r"\b(will|should|must|can|is|are)\b", body)
    if m and rng.random() < 0.5:
        return {**row, "body": (body[:m.end()] + " not" + body[m.end():])[:2000]}
    from agentctx.trust.overlap import terms
    from agentctx.base.text import STOPWORDS

    # A value swapped: a content word for a content word of another decision (a stopword says no value).
    words = [w for w in re.findall(r"[A-Za-z]{5,}", body) if w.lower() not in STOPWORDS]
    pool = [w for o in others for w in re.findall(r"[A-Za-z]{6,}", o["body"])
            if w.lower() not in body.lower() and w.lower() not in STOPWORDS]
    if not words or not pool:
        return None
    old, new = rng.choice(words), rng.choice(pool)
    changed = {**row, "body": re.sub(rf"\b{re.escape(old)}\b", new, body)[:2000]}
    return changed if terms(changed["body"]) != terms(body) else None


def store(rows: list[tuple[dict, str]]) -> tuple[object, str]:
    from agentctx.base.models import NewRecord
    from agentctx.store import db, records

    work = Path(tempfile.mkdtemp(prefix="agentctx-dup-bench-"))
    conn = db.connect(work / "agentctx.db", create=True)
    pid = "bench"
    for row, session in rows:
        records.insert(conn, NewRecord(type="decision", title=row["title"], body=row["body"], project_id=pid,
                                       confidence="inferred", source="llm_extraction", session_id=session))
    return conn, pid


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--adrs", type=Path, default=ADRS if ADRS.exists() else FALLBACK)
    args = ap.parse_args(argv)
    os.environ.setdefault("AGENTCTX_HOME", tempfile.mkdtemp(prefix="agentctx-dup-home-"))
    from agentctx.trust import merge

    rows = load(args.adrs)
    rng = random.Random(35)
    by_repo: dict[str, list[dict]] = {}
    for r in rows:
        by_repo.setdefault(r["repo"], []).append(r)
    false_merges, examples = 0, []
    t0 = time.perf_counter()
    for repo, group in by_repo.items():
        conn, pid = store([(r, f"s{i}") for i, r in enumerate(group)])
        report = merge.run(conn, pid)
        false_merges += report["merged"]
        examples += [p for p in report["pairs"]][:3]
        conn.close()  # type: ignore[attr-defined]
    distinct_s = time.perf_counter() - t0
    restated_ok = restated_n = changed_merged = changed_n = 0
    for i, row in enumerate(rows):
        conn, pid = store([(row, "a"), (restate(row, rng), "b")])
        restated_n += 1
        restated_ok += merge.run(conn, pid)["merged"]
        conn.close()  # type: ignore[attr-defined]
        other = change(row, rows[:i] + rows[i + 1:], rng)
        if other is None:
            continue
        conn, pid = store([(row, "a"), (other, "b")])
        changed_n += 1
        changed_merged += merge.run(conn, pid)["merged"]
        conn.close()  # type: ignore[attr-defined]
    print(f"distinct:  {len(rows)} decisions in {len(by_repo)} stores, {false_merges} merged (false merges) "
          f"in {distinct_s:.2f} s")
    for p in examples[:3]:
        print(f"  merged {p}")
    print(f"restated:  {restated_ok}/{restated_n} pairs merged")
    print(f"changed:   {changed_merged}/{changed_n} pairs merged (must be 0)")
    summary = {"decisions": len(rows), "false_merges": false_merges,
               "restated_recall": f"{restated_ok / restated_n:.3f}" if restated_n else "nan",
               "changed_merged": changed_merged, "changed_pairs": changed_n}
    print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
