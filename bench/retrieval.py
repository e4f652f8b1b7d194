"""Retrieval quality through agentctx's own store and search: LoCoMo evidence recall and the ADR task.

    python bench/retrieval.py [--data DIR]          # LoCoMo-format conversations (default ../shared/bench/locomo-dev)
    python bench/retrieval.py --adr FILE [--chars N] # ADR file: N-char problem statement -> its decision
    python bench/retrieval.py --adr FILE --expansions FILE  # each decision stored with recorded questions/aliases
    python bench/retrieval.py --hybrid [--model DIR]  # also dense, RRF, fusion ablations, agentctx's hybrid

Each conversation (or ADR file) is loaded into a fresh store in a temp AGENTCTX_HOME. The same run also scores two
baselines on plain SQLite FTS5 so figures can be compared as ratios on this machine: the original's OR-of-tokens
BM25 (unicode61, no stopwords) and stemmed BM25 with stopwords removed. Ends with one line:
recall@1=… recall@5=… recall@10=… mrr=… n=…
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentctx.store import db
from agentctx.retrieval import search
from agentctx.base import text  # noqa: E402
from agentctx.base.models import NewRecord  # noqa: E402
from agentctx.store import records  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "bench" / "locomo-dev"
DEFAULT_MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
KS = (1, 5, 10)
SPEAKER = os.environ.get("BENCH_SPEAKER") == "1"

# A retriever gets a query and returns ranked document keys.
Retriever = Callable[[str], list[str]]


def _session_date(raw: str) -> str | None:
    from datetime import datetime

    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%dT%H:%M:00Z")
    except ValueError:
        return None


def locomo_docs(conv: dict) -> list[tuple[str, str, str, str | None]]:
    """(key, title, body, valid_from, session) per turn; title and body come from the turn's text."""
    docs = []
    n = 1
    while f"session_{n}" in conv:
        when = _session_date(conv.get(f"session_{n}_date_time", ""))
        for turn in conv[f"session_{n}"]:
            body = turn["text"].strip()
            if not body:
                continue
            if SPEAKER:
                body = f"{turn['speaker']}: {body}"
            title = " ".join(body.split())[:120]
            docs.append((turn["dia_id"], title, body[:2000], when, f"session_{n}"))
        n += 1
    return docs


def locomo_queries(conv: dict) -> list[tuple[str, set[str], str]]:
    return [(q["question"], set(q["evidence"]), str(q["category"])) for q in conv["qa"]
            if q.get("category") in (1, 2, 3, 4) and q.get("evidence")]


def adr_docs(rows: list[dict], expansions: dict[str, dict] | None = None) -> list[tuple]:
    """(key, title, body, valid_from, session[, questions, aliases]) per ADR; with `expansions` (id -> a line of an
    expansions file: {"questions", "terms"}), each decision is stored with them in its own fields, as the product
    stores what the extraction model writes."""
    out: list[tuple] = []
    for r in rows:
        key = r.get("id") or r["title"]
        doc: tuple = (key, r["title"][:120], (r.get("decision") or r["title"])[:2000], None, None)
        if expansions is not None:
            from injection import asked_within_limits  # bench/injection.py: the same trimming

            doc += asked_within_limits(expansions.get(key) or {})
        out.append(doc)
    return out


def read_expansions(path: Path) -> dict[str, dict]:
    """An expansions file (adr-dev/expansions.jsonl: {"id", "questions", "terms"} a line) by id."""
    return {row["id"]: row for row in (json.loads(line) for line in path.read_text(encoding="utf-8-sig").splitlines()
                                       if line.strip())}


def adr_queries(rows: list[dict], chars: int) -> list[tuple[str, set[str], str]]:
    return [(r["context"][:chars], {r.get("id") or r["title"]}, r.get("repo") or "?") for r in rows
            if (r.get("context") or "").strip()]


# -- retrievers -------------------------------------------------------------------------------------------

def load_store(docs, workdir: Path):
    """A fresh store under `workdir` holding every document as a decision record; (connection, record id -> key)."""
    os.environ["AGENTCTX_HOME"] = str(workdir)
    conn = db.connect(create=True)
    key_of: dict[str, str] = {}
    for key, title, body, when, session, *asked in docs:
        rec, _ = records.insert(conn, NewRecord(type="decision", title=title, body=body, project_id="bench",
                                                confidence="explicit", source="import", valid_from=when,
                                                session_id=session, questions=asked[0] if asked else (),
                                                aliases=asked[1] if asked else ()))
        key_of[rec.id] = key
    return conn, key_of


def agentctx_retriever(docs, workdir: Path) -> Retriever:
    conn, key_of = load_store(docs, workdir)

    def run(query: str) -> list[str]:
        result = search.search(conn, query, "bench", limit=10)
        return [key_of[h.record.id] for h in result.hits]

    return run


def hybrid_retrievers(docs, workdir: Path, embedder, modes: dict) -> dict[str, Retriever]:
    """One store with vectors (backfilled once), searched by each fusion mode in `modes` (name -> Fusion)."""
    from agentctx.retrieval import hybrid
    from agentctx.retrieval.vectors import backfill

    conn, key_of = load_store(docs, workdir)
    report = backfill.run(conn, embedder, batch=64)
    EMBED_STATS.append((report.embedded, report.seconds))

    def make(fusion) -> Retriever:
        def run(query: str) -> list[str]:
            result = hybrid.search(conn, query, "bench", limit=10, embedder=embedder, fusion=fusion)
            return [key_of[h.record.id] for h in result.hits]

        return run

    return {name: make(fusion) for name, fusion in modes.items()}


EMBED_STATS: list[tuple[int, float]] = []


def load_embedder(model_dir: Path):
    from agentctx.retrieval.vectors.embedder import FastEmbedEmbedder, ModelSpec

    return FastEmbedEmbedder(ModelSpec(MODEL_NAME, str(model_dir)))


def hybrid_modes() -> dict:
    """The fusion ablations; "hybrid" (agentctx's default) last."""
    from agentctx.retrieval import hybrid

    d = hybrid.DEFAULT
    return {"dense": hybrid.Fusion("dense", 0.0, 60, 0.0, "minmax", False),
            "dense +neighbours": hybrid.Fusion("dense", 0.0, 60, d.neighbours, "minmax", False),
            "dense PRF (kw top 3)": hybrid.Fusion("dense", 0.0, 60, 0.0, "minmax", False, 3, 1.0),
            "rrf (plain)": hybrid.RRF,
            "rrf k=1 +neighbours": hybrid.Fusion("rrf", 0.5, 1, d.neighbours, "minmax", False),
            "cc .7 max (previous)": hybrid.KEYWORD_HEAVY,
            "hybrid -exact": d._replace(exact=False),
            "hybrid max-norm": d._replace(norm="max"),
            "hybrid alpha .7": d._replace(alpha=0.7),
            "hybrid -dense nbrs": d._replace(neighbours=0.0),
            "hybrid +dense PRF": d._replace(prf=3, beta=1.0),
            "hybrid +session .25": d._replace(session=0.25),
            "hybrid": d}


def plain_fts_retriever(docs, tokenizer: str, stop: bool) -> Retriever:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(key UNINDEXED, title, body, tokenize='{tokenizer}')")
    conn.executemany("INSERT INTO t(key, title, body) VALUES (?, ?, ?)", [(k, ti, b) for k, ti, b, *_ in docs])

    def run(query: str) -> list[str]:
        toks = text.content_terms(query) if stop else list(dict.fromkeys(re.findall(r"[\w.-]+", query.lower())))
        if not toks:
            return []
        q = " OR ".join(text.quote(t) for t in toks)
        return [r[0] for r in conn.execute("SELECT key FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", (q,))]

    return run


# -- scoring ----------------------------------------------------------------------------------------------

def score(retriever: Retriever, queries) -> dict[str, dict[str, float]]:
    per: dict[str, list[tuple[list[float], float]]] = defaultdict(list)
    for question, gold, group in queries:
        ranked = retriever(question)
        recalls = [len(gold & set(ranked[:k])) / len(gold) for k in KS]
        rr = next((1 / (i + 1) for i, key in enumerate(ranked) if key in gold), 0.0)
        per[group].append((recalls, rr))
        per["all"].append((recalls, rr))
    out = {}
    for group, rows in per.items():
        n = len(rows)
        out[group] = {**{f"recall@{k}": sum(r[0][i] for r in rows) / n for i, k in enumerate(KS)},
                      "mrr": sum(r[1] for r in rows) / n, "n": n}
    return out


def merge(results: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for res in results:
        for group, m in res.items():
            for key, value in m.items():
                acc[group][key] += value * (m["n"] if key != "n" else 1)
    return {g: {k: (v / m["n"] if k != "n" else v) for k, v in m.items()} for g, m in acc.items()}


def line(m: dict[str, float]) -> str:
    return " ".join(f"{k}={m[k]:.3f}" for k in ("recall@1", "recall@5", "recall@10", "mrr")) + f" n={int(m['n'])}"


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo-format JSON files")
    ap.add_argument("--adr", type=Path, help="an ADR file (adr-dev format) instead of LoCoMo")
    ap.add_argument("--chars", type=int, default=300, help="ADR problem statement length (default 300)")
    ap.add_argument("--expansions", type=Path, help="with --adr: recorded questions/aliases per ADR id "
                    "(adr-dev/expansions.jsonl format), stored in the records' own fields")
    ap.add_argument("--no-baselines", action="store_true", help="score only agentctx")
    ap.add_argument("--hybrid", action="store_true", help="add dense, plain RRF and hybrid rows; summarise hybrid")
    ap.add_argument("--model", type=Path, default=Path(os.environ.get("AGENTCTX_TEST_MODEL_DIR") or DEFAULT_MODEL),
                    help=f"local {MODEL_NAME} folder for --hybrid")
    args = ap.parse_args(list(argv) if argv is not None else None)

    if args.adr:
        rows = [json.loads(l) for l in args.adr.read_text(encoding="utf-8-sig").splitlines() if l.strip()]
        # A superseded ADR is history, not a decision in force: agentctx would never serve it (124 of 132 here).
        rows = [r for r in rows if not str(r.get("status") or "").lower().startswith("superseded")
                and str(r.get("title") or "").strip()]  # a decision without a title cannot be a record
        expansions = read_expansions(args.expansions) if args.expansions else None
        sets = [(args.adr.name, adr_docs(rows, expansions), adr_queries(rows, args.chars))]
    else:
        files = sorted(args.data.glob("*.json"))
        if not files:
            print(f"no LoCoMo JSON files in {args.data}", file=sys.stderr)
            return 66
        sets = []
        for f in files:
            data = json.loads(f.read_text(encoding="utf-8-sig"))
            # One conversation per file (the shared sets), or upstream's locomo10.json: a list of samples.
            samples = data if isinstance(data, list) else [data]
            for j, sample in enumerate(samples):
                conv = sample.get("conversation", sample)  # upstream nests the turns under "conversation"
                qa = sample.get("qa", conv.get("qa", []))
                name = str(sample.get("sample_id") or (f.stem if len(samples) == 1 else f"{f.stem}-{j}"))
                sets.append((name, locomo_docs(conv), locomo_queries({**conv, "qa": qa})))

    systems: dict[str, list] = {"agentctx": []}
    hybrid_modes_names = set(hybrid_modes()) if args.hybrid else set()
    if not args.no_baselines:
        systems = {"or-bm25 (original)": [], "stemmed+stopwords": [], "agentctx -neighbours": [], **systems}
    timings: dict[str, float] = defaultdict(float)
    embedder = None
    if args.hybrid:
        embedder = load_embedder(args.model)
        systems.update({name: [] for name in hybrid_modes()})
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, docs, queries) in enumerate(sets):
            if embedder is not None:
                for system, retriever in hybrid_retrievers(docs, Path(tmp) / f"h{i}", embedder, hybrid_modes()).items():
                    t0 = time.perf_counter()
                    systems[system].append(score(retriever, queries))
                    timings[system] += time.perf_counter() - t0
            for system in systems:
                if system in hybrid_modes_names:
                    continue
                if system.startswith("agentctx"):
                    retriever = agentctx_retriever(docs, Path(tmp) / f"s{i}-{len(system)}")
                elif system.startswith("or-bm25"):
                    retriever = plain_fts_retriever(docs, "unicode61", stop=False)
                else:
                    retriever = plain_fts_retriever(docs, "porter unicode61", stop=True)
                saved = search.NEIGHBOUR_WEIGHT
                if system.endswith("-neighbours"):  # ablation: how much the session-neighbour share adds
                    search.NEIGHBOUR_WEIGHT = 0.0
                t0 = time.perf_counter()
                systems[system].append(score(retriever, queries))
                timings[system] += time.perf_counter() - t0
                search.NEIGHBOUR_WEIGHT = saved

    totals = {s: merge(r) for s, r in systems.items()}
    summary = "hybrid" if args.hybrid else "agentctx"
    groups = sorted(g for g in totals["agentctx"] if g != "all")
    label = "repo" if args.adr else "category"
    print(f"{'system':<22} {label:<16} recall@1 recall@5 recall@10   mrr     n")
    for system, m in totals.items():
        for g in groups + ["all"]:
            if g in m:
                r = m[g]
                print(f"{system:<22} {g:<16} {r['recall@1']:8.3f} {r['recall@5']:8.3f} {r['recall@10']:9.3f} "
                      f"{r['mrr']:6.3f} {int(r['n']):5d}")
        n = totals[system]["all"]["n"]
        print(f"{'':<22} {'ms/query':<16} {1000 * timings[system] / max(n, 1):8.2f}")
    if not args.no_baselines:
        base = totals["stemmed+stopwords"]["all"]["recall@5"]
        print(f"agentctx recall@5 / stemmed baseline = {totals['agentctx']['all']['recall@5'] / base:.3f}")
    if args.hybrid:
        kw = totals["agentctx"]["all"]["recall@5"]
        print(f"hybrid recall@5 / agentctx keyword = {totals['hybrid']['all']['recall@5'] / kw:.3f}")
        embedded = sum(n for n, _ in EMBED_STATS)
        print(f"backfill: {embedded} records in {sum(t for _, t in EMBED_STATS):.1f} s "
              f"({embedded / max(sum(t for _, t in EMBED_STATS), 1e-9):.0f} records/s)")
    print(line(totals[summary]["all"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
