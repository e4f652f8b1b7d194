"""Injection quality of the real UserPromptSubmit hook: the right record in on related prompts, nothing on the rest.

    python bench/injection.py [--adrs F] [--questions F] [--prompts F] [--cases DIR | --no-cases] [--pad N]
                              [--expansions F] [--repos A,B] [--features OUT.jsonl]

One store (one project) holds the current ADRs of `--adrs` as decisions, the hand-written records of `--cases`
(bench/data/handwritten-*.jsonl: conventions, bugfixes, handovers, preferences, discoveries, written by hand for
this benchmark, and the profile the real detector writes for a small synthetic repository), and `--pad N` padding
records: real LoCoMo conversation turns (`--locomo`) and/or (`--pad-docs N`) paragraphs of technical Markdown. Then the real hook runs, each prompt in a fresh session:

- long: the first 300 characters of each ADR's context, a hit when its decision is injected; long120: 120 chars;
- question: `--questions` (short questions about one ADR, `{question, title, repo, style}`), a hit when it is injected;
- own: the hand-written questions about the hand-written records (same format);
- unrelated: `--prompts` (real prompts from other projects, `{prompt, source_repo, kind}`): any injection counts.

Prints per-repository and per-style tables and one summary line:
unrelated_injected=… long_hit=… long120_hit=… question_hit=… own_hit=… mean_chars=… records=…
(`mean_chars`: characters injected per prompt over all prompts of the run, zero for prompts that inject nothing.)
`--expansions F` (adr-dev/expansions.jsonl format: `{id, questions, terms}`) stores each ADR with the questions and
other names an extraction model wrote for it, in the records' own fields (`questions`, `aliases`), as the product
stores them. `--repos` keeps the decisions of those repositories only (e.g. the kept-apart ones that have
expansions: `--adrs bench/.kept/kept-adrs.jsonl`, harvested from fetched snapshots by tools/harvest_kept.py and not
committed). `--features` writes every weighed candidate (the features the decision reads, and whether it is the right record)
for tools/fit_relevance.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "bench"
DATA = Path(__file__).resolve().parent / "data"

# The synthetic repository whose profile the real detector writes (hand-written, like the cases).
PROFILE_FILES = {
    "pyproject.toml": '[project]\nname = "ledgerly"\nrequires-python = ">=3.11"\n'
                      'dependencies = ["flask", "sqlalchemy", "celery", "pydantic"]\n'
                      '[project.optional-dependencies]\ndev = ["pytest", "ruff", "mypy"]\n'
                      '[project.scripts]\nledgerly = "ledgerly.cli:main"\n[tool.ruff]\nline-length = 110\n'
                      '[tool.mypy]\nstrict = true\n',
    "package.json": '{"name": "ledgerly-web", "scripts": {"dev": "vite", "build": "vite build", "test": "vitest",'
                    ' "lint": "eslint ."}, "devDependencies": {"vite": "5", "vitest": "1", "react": "18",'
                    ' "typescript": "5"}}',
    "package-lock.json": "{}",
    "Dockerfile": "FROM python:3.12-slim\n",
    "ledgerly/__main__.py": "",
}


def _jsonl(path: str | Path) -> list[dict]:
    with open(path, encoding="utf-8-sig") as fh:  # a BOM from an editor must not cost the first line
        return [json.loads(line) for line in fh if line.strip()]


def _locomo_turns(directory: Path, n: int) -> list[tuple[str, str]]:
    turns: list[tuple[str, str]] = []
    for path in sorted(directory.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        s = 1
        while f"session_{s}" in conv:
            for turn in conv[f"session_{s}"]:
                body = " ".join(turn["text"].split())
                if body:
                    turns.append((body[:120], body[:2000]))
            s += 1
    return turns[:n]


def _doc_paragraphs(paths: list[Path], n: int) -> list[tuple[str, str]]:
    """Paragraphs of technical Markdown (the shared design notes, reference research and seed specs) as
    records: title = the paragraph's first sentence (or its section heading), body = the paragraph. Real technical
    prose about another project: a harder padding than conversation turns."""
    out: list[tuple[str, str]] = []
    for path in paths:
        heading = path.stem
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            block = " ".join(block.split())
            if block.startswith("#"):
                heading = block.lstrip("# ")[:120]
                continue
            if len(block) < 80 or block.startswith(("|", "```")):
                continue
            # Titles say what a record is about: the section heading, without its numbering, unless it has no words.
            title = heading.lstrip("0123456789. ")
            if sum(1 for w in title.split() if sum(c.isalpha() for c in w) >= 3) < 1:
                title = block.split(". ", 1)[0]
            out.append((title[:120], block[:2000]))
    return out[:n]


def doc_padding(n: int) -> list[tuple[str, str]]:
    # Read-only shared files (not this repository's own docs, which change): the same padding on every run.
    docs = [SHARED.parent / "DESIGN.md", *sorted((SHARED.parent / "reference").glob("*.md")),
            *sorted((SHARED.parent / "seeds").glob("*.txt"))]
    return _doc_paragraphs([p for p in docs if p.exists()], n)


_TMP_ROOT = tempfile.gettempdir()


class Bench:
    """A temp AGENTCTX_HOME with one project store built from the sets, and the cases to run through the hook."""

    def __init__(self, adrs: list[dict], questions: list[dict], prompts: list[dict], own_records: list[dict],
                 own_questions: list[dict], padding: list[tuple[str, str]],
                 expansions: dict[str, dict] | None = None, meaning: str | None = None) -> None:
        # Beside, not inside, the previous bench's directory (each one points tempfile there): tools/fit_relevance.py
        # builds one bench per kept repository, and 20 nested levels outgrow SQLite's path limit.
        tmp = Path(tempfile.mkdtemp(prefix="agentctx-inj-", dir=_TMP_ROOT))
        os.environ.update(HOME=str(tmp), AGENTCTX_HOME=str(tmp / ".agentctx"))
        os.environ.pop("ANTHROPIC_API_KEY", None)
        tempfile.tempdir = str(tmp)
        from agentctx.store import db
        from agentctx.base import paths
        from agentctx.memory import profile
        from agentctx.base.models import NewRecord
        from agentctx.base.project import detect
        from agentctx.store import records

        self.repo = tmp / "repo"
        (self.repo / ".git").mkdir(parents=True)
        for name, content in PROFILE_FILES.items():
            (self.repo / name).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / name).write_text(content, encoding="utf-8")
        project = detect(self.repo)
        conn = db.connect(paths.db_path(), create=True)
        # A superseded ADR is history, not a decision in force (bench/retrieval.py does the same).
        adrs = [a for a in adrs if in_force(a)]
        for adr in adrs:
            body = (adr.get("decision") or adr["title"]).strip()[:2000]
            exp = (expansions or {}).get(adr.get("id") or adr["title"]) or {}
            asked_q, asked_a = asked_within_limits(exp)
            records.insert(conn, NewRecord(type="decision", title=adr["title"][:120], body=body,
                                           project_id=project.id, confidence="explicit",
                                           questions=asked_q, aliases=asked_a))
        if own_records:
            profile.refresh(conn, project)
        for rec in own_records:
            records.insert(conn, NewRecord(type=rec["type"], title=rec["title"][:120], body=rec["body"][:2000],
                                           project_id=project.id, confidence="explicit"))
        for title, body in padding:
            records.insert(conn, NewRecord(type="discovery", title=title, body=body, project_id=project.id,
                                           confidence="explicit", source="import"))
        self.n_records = len(records.current(conn, project.id))
        self.meaning = None
        if meaning:  # the store's record vectors from a static token table (agentctx/retrieval/meaning.py)
            from agentctx.retrieval.vectors import static

            self.meaning = static.build_records(conn, paths.db_file(), meaning)
        self.n_adrs, self.n_own, self.n_pad = len(adrs), len(own_records), len(padding)
        conn.close()
        # (prompt, wanted title or None, group, style, set)
        self.cases: list[tuple[str, str | None, str, str, str]] = []
        for adr in adrs:
            if (adr.get("context") or "").strip():
                repo = adr.get("repo") or "?"
                self.cases.append((adr["context"][:300], adr["title"][:120], repo, "long300", "long"))
                self.cases.append((adr["context"][:120], adr["title"][:120], repo, "long120", "long120"))
        current = {a["title"][:120] for a in adrs}
        for q in questions:
            if q["title"][:120] in current:
                self.cases.append((q["question"], q["title"][:120], q.get("repo") or "?", q.get("style") or "question",
                                   "question"))
        for q in own_questions:
            self.cases.append((q["question"], q["title"][:120], q.get("repo") or "handwritten",
                               q.get("style") or "own", "own"))
        for p in prompts:
            self.cases.append((p["prompt"], None, p.get("source_repo") or "?", p.get("kind") or "prompt", "unrelated"))

    def run(self, features_out=None) -> list[dict]:
        """Every case through the real hook (fresh session each); with `features_out`, the weighed candidates too."""
        from agentctx.store import db
        from agentctx.base import paths
        from agentctx.hooks import Payload
        from agentctx.hooks.prompt import user_prompt_submit
        from agentctx.retrieval.relevance import decide
        from agentctx.base.project import detect

        project_id = detect(self.repo).id
        conn = db.connect(paths.db_path()) if features_out else None
        results = []
        for i, (prompt, want, group, style, kind) in enumerate(self.cases):
            out = user_prompt_submit(Payload(session_id=f"bench-{os.getpid()}-{i}", cwd=str(self.repo), prompt=prompt))
            text = out["hookSpecificOutput"]["additionalContext"] if out else ""
            hit = want is not None and f"] {want}" in text
            blocks = len(text.split("\n\n")) - 1 if text else 0  # the header, then one block per record
            results.append({"kind": kind, "group": group, "style": style, "chars": len(text),
                            "injected": bool(text), "hit": hit, "wrong": blocks - int(hit)})
            if features_out is not None:
                for rank, a in enumerate(decide(conn, prompt, project_id)):
                    features_out.write(json.dumps({"case": i, "kind": kind, "group": group, "style": style,
                                                   "rank": rank, "right": a.hit.record.title == want, "p": a.p,
                                                   "score": a.hit.score, "klass": a.klass,
                                                   "features": a.features}) + "\n")
        if conn is not None:
            conn.close()
        return results


def in_force(adr: dict) -> bool:
    """Whether an ADR is a decision in force that can be a record: not superseded, and with a title."""
    status = str(adr.get("status") or "").lower()
    return not status.startswith("superseded") and bool(str(adr.get("title") or "").strip())


def asked_within_limits(exp: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """An expansions line's questions and other names as the store takes them from a model: items past its limits are
    left out (store.records.asked_within_limits, what extraction and the expansion pass apply). The other names are
    `terms` in adr-dev's recorded file and `aliases`, as the expansion pass names them, in the hand-written ones."""
    from agentctx.store.records import asked_within_limits as within

    return within(exp.get("questions"), "questions"), within(exp.get("terms") or exp.get("aliases"), "aliases")


def read_expansions(path: str | Path | None) -> dict[str, dict] | None:
    """An expansions file by ADR id, or None without one."""
    return {row["id"]: row for row in _jsonl(path)} if path else None


def summarize(results: list[dict]) -> dict[str, float]:
    def rate(kind: str, field: str) -> float:
        rows = [r for r in results if r["kind"] == kind]
        return sum(r[field] for r in rows) / len(rows) if rows else float("nan")

    related = [r for r in results if r["kind"] != "unrelated"]

    return {"unrelated_injected": rate("unrelated", "injected"), "long_hit": rate("long", "hit"),
            "long120_hit": rate("long120", "hit"), "question_hit": rate("question", "hit"),
            "own_hit": rate("own", "hit"),
            "wrong_per_related": (sum(r["wrong"] for r in related) / len(related)) if related else float("nan"),
            "mean_chars": sum(r["chars"] for r in results) / len(results) if results else 0.0}


def breakdown(results: list[dict], key: str) -> None:
    table: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in results:
        table[(r["kind"], r[key])].append(r)
    print(f"\nby {key}: kind, {key}, n, rate (hit for related sets, injected for unrelated), mean chars")
    for (kind, name), rows in sorted(table.items()):
        field = "injected" if kind == "unrelated" else "hit"
        rate = sum(r[field] for r in rows) / len(rows)
        chars = sum(r["chars"] for r in rows) / len(rows)
        print(f"  {kind:<10} {name[:44]:<44} {len(rows):>4} {rate:>7.1%} {chars:>7.0f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adrs", default=str(SHARED / "adr-dev" / "adrs.jsonl"))
    parser.add_argument("--questions", default=str(SHARED / "adr-dev" / "questions.jsonl"))
    parser.add_argument("--prompts", default=str(SHARED / "prompts-dev" / "real_prompts.jsonl"))
    parser.add_argument("--cases", default=str(DATA), help="directory of handwritten-records/-questions.jsonl")
    parser.add_argument("--no-cases", action="store_true", help="no hand-written records or questions")
    parser.add_argument("--pad", type=int, default=0, help="add N LoCoMo turns to the store (other real records)")
    parser.add_argument("--locomo", default=str(SHARED / "locomo-dev"))
    parser.add_argument("--pad-docs", type=int, default=0,
                        help="add N paragraphs of technical Markdown (the shared design, reference and seed notes)")
    parser.add_argument("--expansions", metavar="FILE",
                        help="recorded questions/aliases per ADR id (adr-dev/expansions.jsonl format)")
    parser.add_argument("--repos", metavar="A,B", help="only the decisions of these repositories (`repo` field)")
    parser.add_argument("--features", metavar="OUT", help="write the weighed candidates (JSONL) for fitting")
    parser.add_argument("--meaning", metavar="TABLE",
                        help="a static token table (agentctx embed --static): the store's record vectors are built "
                             "from it, so the gate reads the semantic features (the [vectors] install)")
    parser.add_argument("--brief", action="store_true", help="only the summary line")
    args = parser.parse_args(argv)
    own_records = own_questions = []
    if not args.no_cases:
        own_records = _jsonl(Path(args.cases) / "handwritten-records.jsonl")
        own_questions = _jsonl(Path(args.cases) / "handwritten-questions.jsonl")
    padding = _locomo_turns(Path(args.locomo), args.pad) if args.pad else []
    if args.pad_docs:
        padding += doc_padding(args.pad_docs)
    adrs = _jsonl(args.adrs)
    if args.repos:
        adrs = [a for a in adrs if a.get("repo") in args.repos.split(",")]
    bench = Bench(adrs, _jsonl(args.questions) if args.questions else [],
                  _jsonl(args.prompts) if args.prompts else [], own_records, own_questions, padding,
                  read_expansions(args.expansions), args.meaning)
    out = open(args.features, "w", encoding="utf-8") if args.features else None
    try:
        results = bench.run(out)
    finally:
        if out:
            out.close()
    s = summarize(results)
    if not args.brief:
        print(f"store: {bench.n_records} current records ({bench.n_adrs} decisions, {bench.n_own} hand-written "
              f"+ profile, {bench.n_pad} padding records)")
        breakdown(results, "group")
        breakdown(results, "style")
        if bench.meaning:
            print(f"\nmeaning: {bench.meaning}")
        injecting = [r["chars"] for r in results if r["injected"]]
        print(f"\nmean chars when something is injected: {sum(injecting) / max(1, len(injecting)):.0f}")
    print(" ".join(f"{k}={v:.3f}" if k != "mean_chars" else f"{k}={v:.0f}" for k, v in s.items())
          + f" records={bench.n_records}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
