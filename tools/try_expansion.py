"""Trial of write-time expansion from the embedding model (issue 12, suggestion a): does it pay? (It did not.)

    python tools/try_expansion.py --mode none|vocab|neighbours [--k 10] [--neighbours 2] [--min-sim 0.5]
                                  [--field body|separate] [--weight 0.5] [--no-fit] [--model DIR]

Builds bench/injection.py's store (the adr-dev decisions, the hand-written cases and the profile, padded with the
technical Markdown paragraphs and 2,000 LoCoMo turns, as tools/fit_relevance.py does), embeds every current record
with the offline model (`--model`, default ../shared/models/all-MiniLM-L6-v2-onnx-int8; needs the [vectors] extra) and
gives each record expansion words:

- vocab: the `--k` words of the model tokenizer's whole-word vocabulary nearest to the record (each word embedded
  alone), restricted to words whose stem general software text knows (agentctx/retrieval/background.txt) and that are telling
  (specificity >= search.TELLING), not already in the record;
- neighbours: the title words of the record's `--neighbours` nearest records (cosine >= `--min-sim`), not already in
  the record.

`--field body` appends them to the body (what FTS5 and the scorer see as body text); `--field separate` keeps them
apart, as a lower-weighted third field would be (`--weight` of a body occurrence; they make records candidates but
do not change document frequencies), emulated by wrapping the search's candidate and scoring steps. It prints where
the right record ranks (top 1 / top 3 of the hook's candidates) per set and style on that store, then (unless
`--no-fit`) the cross-validated figures of tools/fit_relevance.py refitted on stores built the same way. Results
are in docs/benchmarks.md ("Write-time expansion: tried and dropped"). A research tool: nothing here ships.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools"))

MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2-onnx-int8"


class Expander:
    """The expansion of every current record of the bench store, and the patches that make search see it."""

    def __init__(self, args: argparse.Namespace) -> None:
        from agentctx.retrieval.vectors.embedder import FastEmbedEmbedder, ModelSpec

        self.args = args
        self.embedder = FastEmbedEmbedder(ModelSpec("sentence-transformers/all-MiniLM-L6-v2", str(args.model)),
                                          threads=2)
        self.by_id: dict[str, dict[str, int]] = {}  # record id -> {stem: count}
        self.rows_of: dict[str, list[int]] = {}  # stem -> rowids of the records it expands
        self.query: set[str] = set()
        self.vocab = self._vocab() if args.mode == "vocab" else None

    def _vocab(self):  # noqa: ANN202 - (words, stems, matrix)
        from agentctx.retrieval import search
        from agentctx.base import text

        words = [w.strip() for w in open(Path(self.args.model) / "vocab.txt", encoding="utf-8")]
        words = [w for w in words if w.isascii() and w.isalpha() and w.islower() and len(w) >= 3
                 and text.content_tokens(w) == [w]]
        stems = text.stems(words)
        spec = search.specificity(list(set(stems)))
        keep = [i for i, s in enumerate(stems) if search.TELLING <= spec[s] < 0.999]  # known to software text
        words = [words[i] for i in keep]
        return words, [stems[i] for i in keep], self._embed(words)

    def _embed(self, texts: list[str]):  # noqa: ANN202
        import numpy as np

        # Small batches: a batch is one ONNX call, whose attention memory grows with batch size x length squared.
        return np.vstack([self.embedder.embed(texts[i:i + 16]) for i in range(0, len(texts), 16)])

    def expand_store(self) -> None:
        """Compute every current record's expansion; with --field body, write it into the bodies."""
        import numpy as np

        from agentctx.store import db
        from agentctx.base import paths, text
        from agentctx.retrieval.vectors.embedder import document_text

        self.by_id.clear()
        self.rows_of.clear()
        if self.args.mode == "none":
            return
        conn = db.connect(paths.db_path())
        rows = conn.execute("SELECT rowid, id, title, body FROM records WHERE superseded_at IS NULL").fetchall()
        vectors = self._embed([document_text(t, b) for _, _, t, b in rows])
        sims = vectors @ (self.vocab[2].T if self.vocab else vectors.T)
        updates = []
        for i, (rowid, rid, title, body) in enumerate(rows):
            have = set(text.stems(text.content_tokens(f"{title} {body}")))
            added: dict[str, int] = {}
            words: list[str] = []
            if self.vocab:
                vocab_words, vocab_stems, _ = self.vocab
                for j in np.argsort(-sims[i])[:400]:
                    if vocab_stems[j] not in have and vocab_stems[j] not in added:
                        added[vocab_stems[j]] = 1
                        words.append(vocab_words[j])
                        if len(words) >= self.args.k:
                            break
            else:
                for j in np.argsort(-sims[i])[1:self.args.neighbours + 1]:
                    if sims[i, j] < self.args.min_sim:
                        break
                    for word in text.content_tokens(rows[j][2]):
                        stem = text.stems([word])[0]
                        if stem not in have:
                            added[stem] = added.get(stem, 0) + 1
                            if added[stem] == 1:
                                words.append(word)
            if not added:
                continue
            if self.args.field == "body":
                extra = " ".join(words)
                updates.append((body[:1999 - len(extra)] + "\n" + extra, rowid))
            else:
                self.by_id[rid] = added
                for stem in added:
                    self.rows_of.setdefault(stem, []).append(rowid)
        if updates:
            with conn:
                conn.executemany("UPDATE records SET body = ? WHERE rowid = ?", updates)
        conn.close()

    def install(self) -> None:
        """Wrap bench construction and, for a separate field, the search's candidate and scoring steps."""
        import injection

        from agentctx.retrieval import search
        from agentctx.store import retrieval

        build = injection.Bench.__init__

        def init(bench, *a, **kw):  # noqa: ANN001, ANN002, ANN003
            build(bench, *a, **kw)
            self.expand_store()

        injection.Bench.__init__ = init
        term_rows, in_order, score_all = retrieval.term_rows, retrieval.in_order, search._score_all

        def rows_of_terms(conn, words, cap):  # noqa: ANN001
            self.query.update(words)  # the query's stems: candidates come from the expansion too
            return term_rows(conn, words, cap)

        def candidates(conn, rowids, project_id, **kw):  # noqa: ANN001, ANN003
            seen, extra = set(rowids), []
            for stem in self.query:
                for rowid in self.rows_of.get(stem, ()):
                    if rowid not in seen:
                        seen.add(rowid)
                        extra.append(rowid)
            self.query.clear()
            return in_order(conn, list(rowids) + extra, project_id, **kw)

        def scored(records_, stems, corpus):  # noqa: ANN001
            out = score_all(records_, stems, corpus)
            for record in records_:
                added = self.by_id.get(record.id)
                if not added:
                    continue
                total, matched = out[record.id]
                for stem in stems:
                    if stem in added and stem not in matched:
                        tf = self.args.weight * added[stem]  # one occurrence in a field of average length
                        total += corpus.weight.get(stem, 0.0) * tf * (search.K1 + 1) / (tf + search.K1)
                        matched[stem] = self.args.weight
                out[record.id] = (total, matched)
            return out

        if self.args.field == "separate":
            retrieval.term_rows, retrieval.in_order, search._score_all = rows_of_terms, candidates, scored


def ranks() -> None:
    """Where the right record ranks among the hook's candidates, per set and style (padded store)."""
    import injection

    shared = injection.SHARED
    bench = injection.Bench(
        injection._jsonl(shared / "adr-dev" / "adrs.jsonl"), injection._jsonl(shared / "adr-dev" / "questions.jsonl"),
        injection._jsonl(shared / "prompts-dev" / "real_prompts.jsonl"),
        injection._jsonl(injection.DATA / "handwritten-records.jsonl"),
        injection._jsonl(injection.DATA / "handwritten-questions.jsonl"),
        injection.doc_padding(100_000) + injection._locomo_turns(shared / "locomo-dev", 2000))
    out = io.StringIO()
    results = bench.run(out)
    best: dict[int, int] = defaultdict(lambda: 99)
    for row in map(json.loads, out.getvalue().splitlines()):
        if row["right"]:
            best[row["case"]] = min(best[row["case"]], row["rank"])
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for i, (_, _, _, style, kind) in enumerate(bench.cases):
        if kind != "unrelated":
            row = table[f"{kind} {style}" if kind in ("question", "own") else kind]
            row[0] += 1
            row[1] += best[i] == 0
            row[2] += best[i] < 3
    print(f"store: {bench.n_records} records; right record's rank among the candidates:")
    for name, (n, top1, top3) in sorted(table.items()):
        print(f"  {name:<22} {n:>4}  top1={top1 / n:.3f} top3={top3 / n:.3f}")
    print("in-sample (shipped model): " + " ".join(f"{k}={v:.3f}" for k, v in injection.summarize(results).items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("none", "vocab", "neighbours"), default="neighbours")
    parser.add_argument("--k", type=int, default=10, help="vocab: words per record")
    parser.add_argument("--neighbours", type=int, default=2, help="neighbours: records whose titles expand one")
    parser.add_argument("--min-sim", type=float, default=0.5, help="neighbours: least cosine similarity")
    parser.add_argument("--field", choices=("body", "separate"), default="separate")
    parser.add_argument("--weight", type=float, default=0.5, help="separate: weight of an expansion occurrence")
    parser.add_argument("--no-fit", action="store_true", help="only the ranks, no cross-validated refit")
    parser.add_argument("--model", default=str(MODEL), help="a local sentence-transformers ONNX folder")
    args = parser.parse_args(argv)
    Expander(args).install()
    ranks()
    if not args.no_fit:
        import fit_relevance

        return fit_relevance.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
