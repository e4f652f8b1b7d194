"""Refit the prompt hook's injection decision (agentctx/retrieval/relevance.txt), cross-validated by repository and by
prompt source.

    python tools/fit_relevance.py [--stores S,...] [--rule max|mean] [--target 0.05] [--write] [--cache F]

Builds bench/injection.py's store and cases for each entry of `--stores` (`SET:PAD[:FLAG]`). SET: `dev`, the shared
development decisions (adr-dev: 3 repositories) with their questions and the hand-written cases; `kept`, the
decisions of kept-adrs.jsonl (20 other repositories) in one store, with `--kept-questions` (developer questions
about the decisions of 9 of them, written by hand); `kept-each`, the same with one store per repository (a project's
own store). PAD: "0", "N" LoCoMo turns, "docs" or "docs+N" (bench/injection.py --pad-docs). FLAG: "exp", the
decisions stored with the recorded questions and aliases of `--expansions`; "exph", with `--kept-expansions`
(written by hand following agentctx/extract/expand.py's SYSTEM text from what the pass sends, title and decision,
for the kept decisions the questions are about: such stores are only evaluated, never fitted on). Every store
answers every real prompt of `--prompts` (prompts-dev and kept-prompts.jsonl).
The kept-apart sets are not committed: `python tools/harvest_kept.py` harvests them from fetched snapshots into
$AGENTCTX_KEPT_DIR or bench/.kept/, where this script looks for them; it stops with a message when one it needs is
missing.

It collects every weighed candidate with its features and fits an L2-regularised logistic regression (pure Python,
Newton's method) per prompt class (short: at most relevance.SHORT_TERMS distinct terms; long) on the features of
each prompt's best candidate: "is this prompt about something in the store" (the related sets) against the
unrelated prompts, each store, and within it each side, weighing the same. The threshold (`--rule mean`) is the
lowest probability at which, on average over the stores (each counting the same), no more than `--target` of the
training side's unrelated prompts of that class inject: one threshold for every store size, the model reading the
store's size (`--rule max`: in every store, the strictest setting it; measured, it costs short questions in small
stores far more than it saves in big ones).
Held-out outcomes replay the hook's rule: the gate on the
best of the first relevance.GATE_RANKS candidates, then up to two companions with at least relevance.COMPANION of
its score and relevance.COMPANION_P of the threshold as their own probability (`wrong_per_related`: the records
injected for a related prompt that are not the one meant).

Cross-validation: five folds, each holding out at once a fifth of the decision repositories (their long prompts and
questions; the hand-written cases go with log4brains) and one prompt source (claude-code, cursor, aider, copilot,
the Codex and Gemini CLIs) with all its repositories: nothing of a held-out fold's repositories or source is fitted
on. The held-out figures are printed per fold, per store with their spread over the folds, and pooled; `--write`
then fits on everything and writes the model file with those figures in its header. Deterministic: same data, same
file. `--cache F` keeps the collected candidates (re-used for the stores it holds).
`--meaning TABLE` gives every store the static meaning data (agentctx/retrieval/meaning.py) so that the `_m` classes
(the lexical features and `semantic`, `semantic_gap`) are fitted beside the lexical ones; `--lexical` judges every
prompt by the lexical model (what the shipped file holds: measured, the semantic features add nothing yet);
`--companion`/`--companion-p` replay other companion rules.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from agentctx.retrieval import relevance  # noqa: E402

FEATURES = relevance.FEATURES
L2 = 1.0
TOP_K = 3
COMPANION_P = relevance.COMPANION_P
COMPANION = relevance.COMPANION
RULE = "mean"


def collect(args: argparse.Namespace, store: str) -> list[dict]:
    """The weighed candidates of every case of one store (see the module docstring for `SET:PAD[:exp]`)."""
    import injection  # bench/injection.py

    which, _, rest = store.partition(":")
    pad, _, flag = rest.partition(":")
    expansions = (injection.read_expansions(args.expansions) if flag == "exp"
                  else _merged_expansions(args.kept_expansions) if flag == "exph" else None)
    prompts = [p for f in args.prompts.split(",") for p in injection._jsonl(f)]
    turns = pad.split("+")[-1]
    padding = injection.doc_padding(100_000) if pad.startswith("docs") else []
    if turns.isdigit() and int(turns):
        padding += injection._locomo_turns(Path(args.locomo), int(turns))
    if which == "kept-each":  # one store per repository, as a project's own store holds only its decisions
        kept = injection._jsonl(args.kept_adrs)
        asked = kept_questions(kept, args.kept_questions)
        rows = []
        for repo in sorted({a["repo"] for a in kept}):
            if expansions is not None and not all(a["id"] in expansions for a in kept if a["repo"] == repo
                                                  and injection.in_force(a)):
                continue  # with expansions: only the repositories whose every decision has them
            bench = injection.Bench([a for a in kept if a["repo"] == repo], [q for q in asked if q["repo"] == repo],
                                    prompts, [], [], padding, expansions, args.meaning)
            rows += _rows(bench, store, f"{store}:{repo}")
        return rows
    if which == "kept":
        kept = injection._jsonl(args.kept_adrs)
        adrs, questions, own_records, own_questions = kept, kept_questions(kept, args.kept_questions), [], []
    else:
        adrs, questions = injection._jsonl(args.adrs), injection._jsonl(args.questions)
        own_records = injection._jsonl(Path(args.cases) / "handwritten-records.jsonl")
        own_questions = injection._jsonl(Path(args.cases) / "handwritten-questions.jsonl")
    bench = injection.Bench(adrs, questions, prompts, own_records, own_questions, padding, expansions, args.meaning)
    return _rows(bench, store, store)


def _merged_expansions(files: str) -> dict[str, dict]:
    """The expansions of every file of a comma-separated list (bench/injection.py's format), by ADR id."""
    import injection  # bench/injection.py

    out: dict[str, dict] = {}
    for path in filter(None, files.split(",")):
        if Path(path).is_file():
            out.update(injection.read_expansions(path) or {})
    return out


def kept_questions(kept: list[dict], path: str) -> list[dict]:
    """The hand-written questions about kept decisions (`{id, question, style}` a line) in bench/injection.py's
    question format, `{question, title, repo, style}`; none without the file."""
    import injection  # bench/injection.py

    if not path or not Path(path).is_file():
        return []
    by_id = {a["id"]: a for a in kept}
    return [{"question": q["question"], "title": by_id[q["id"]]["title"], "repo": by_id[q["id"]]["repo"],
             "style": q.get("style") or "question"} for q in injection._jsonl(path) if q["id"] in by_id]


def _rows(bench, store: str, prefix: str) -> list[dict]:
    out = io.StringIO()
    bench.run(out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    source = {}
    for i, case in enumerate(bench.cases):
        if case[4] == "unrelated":
            source[i] = SOURCE.get(case[3], case[3])
    for row in rows:
        row["source"] = source.get(row["case"])
        row["case"] = f"{prefix}:{row['case']}"
        row["store"] = store
    # Cases none of whose candidates is the right record still count (a miss, or for unrelated prompts a pass).
    seen = {row["case"] for row in rows}
    for i, (_, want, group, style, kind) in enumerate(bench.cases):
        if f"{prefix}:{i}" not in seen:
            rows.append({"case": f"{prefix}:{i}", "kind": kind, "group": group, "style": style, "right": False,
                         "rank": 0, "score": 0.0, "klass": None, "features": None, "store": store,
                         "source": source.get(i)})
    return rows


# Prompt sources (the `kind` of a prompt line) as the folds group them: the Codex and Gemini CLIs are one source.
SOURCE = {"codex": "codex-gemini", "gemini": "codex-gemini", "other": "codex-gemini"}
SOURCES = ("claude-code", "cursor", "aider", "copilot", "codex-gemini")


def fold_of(rows: list[dict], k: int = len(SOURCES)) -> dict[str, int]:
    """Repository or source -> fold: decision repositories largest first to folds 0..k-1 round robin (the
    hand-written cases with log4brains), and one prompt source per fold (with all its repositories)."""
    adr_groups: dict[str, int] = defaultdict(int)
    prompt_groups = set()
    for row in rows:
        if row["kind"] in ("long", "long120", "question"):
            adr_groups[row["group"]] += 1
        elif row["kind"] == "unrelated":
            prompt_groups.add(row["group"])
    folds = {g: i % k for i, g in enumerate(sorted(adr_groups, key=lambda g: (-adr_groups[g], g)))}
    folds["handwritten"] = folds.get("thomvaill/log4brains", k - 1)
    for i, source in enumerate(SOURCES):
        folds[f"source:{source}"] = i % k
    return folds


def held_out(row: dict, folds: dict[str, int], k: int) -> bool:
    if row["kind"] == "unrelated":
        return folds.get(f"source:{row.get('source')}", 0) == k
    return folds.get(row["group"], 0) == k


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def _tops(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r.get("rank") == 0 and r["features"]]


def features_of(klass: str) -> tuple[str, ...]:
    """The features a class's model reads: the lexical ones, and the semantic ones for the `_m` classes."""
    return FEATURES + (relevance.SEMANTIC_FEATURES if klass.endswith(relevance.SEMANTIC) else ())


def fit(rows: list[dict], feats: tuple[str, ...] | None = None
        ) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(coefficients incl. bias, means, scales) of the L2 logistic regression: best candidates, label = related."""
    FEATURES = feats or globals()["FEATURES"]  # noqa: N806 - the same name as the module's, for this class
    data = _tops(rows)
    mean = {f: sum(r["features"][f] for r in data) / len(data) for f in FEATURES}
    scale = {f: math.sqrt(sum((r["features"][f] - mean[f]) ** 2 for r in data) / len(data)) or 1.0 for f in FEATURES}
    x = [[1.0] + [(r["features"][f] - mean[f]) / scale[f] for f in FEATURES] for r in data]
    y = [0.0 if r["kind"] == "unrelated" else 1.0 for r in data]
    # Each store weighs the same, and within it the related and the unrelated side (the per-repository stores hold
    # many more unrelated cases than related ones, the development store as many): the gate learns how the same
    # overlap means less in a bigger store (the "store" feature), not each store's share of related prompts.
    per_store: dict[tuple[str, bool], int] = defaultdict(int)
    for r in data:
        per_store[(r["store"], r["kind"] == "unrelated")] += 1
    weight = [len(data) / (len(per_store) * per_store[(r["store"], r["kind"] == "unrelated")]) for r in data]
    n = len(FEATURES) + 1
    w = [0.0] * n
    for _ in range(30):
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        for xi, yi, wi in zip(x, y, weight):
            z = sum(a * b for a, b in zip(w, xi))
            p = 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))
            g = (p - yi) * wi
            h = p * (1 - p) * wi
            for j in range(n):
                grad[j] += g * xi[j]
                hj = h * xi[j]
                row = hess[j]
                for k in range(n):
                    row[k] += hj * xi[k]
        for j in range(1, n):
            grad[j] += L2 * w[j]
            hess[j][j] += L2
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-8:
            break
    coef = {"bias": w[0]}
    coef.update((f, w[i + 1]) for i, f in enumerate(FEATURES))
    return coef, mean, scale


def prob(model: tuple, feats: dict) -> float:
    coef, mean, scale = model[:3]
    z = coef["bias"] + sum(coef[f] * (feats[f] - mean[f]) / scale[f] for f in coef if f != "bias")
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))


def fit_classes(rows: list[dict], target: float) -> dict[str, tuple]:
    """Per prompt class: (coef, mean, scale, threshold)."""
    models = {}
    classes = relevance.CLASSES + tuple(c + relevance.SEMANTIC for c in relevance.CLASSES
                                        if any(r.get("klass") == c + relevance.SEMANTIC for r in rows))
    for klass in classes:
        # A lexical class is fitted on every prompt of its class (it judges those whose candidates lack vectors);
        # a semantic class on the prompts whose candidates have them.
        part = [r for r in rows if r.get("klass") == klass or (klass in relevance.CLASSES and r.get("klass") and
                                                               r["klass"] == klass + relevance.SEMANTIC)]
        if not _tops(part):
            raise SystemExit(f"fit_relevance: no {klass} prompt with a candidate to fit on (in a fold's training "
                             "side or in all): more decisions, questions or prompts are needed")
        model = fit(part, features_of(klass))
        models[klass] = model + (pick_threshold(part, model, target),)
    return models


def _gate(case_rows: list[dict], model: tuple) -> tuple[float, dict | None]:
    """(the gate's probability, its candidate): the most probable of the first relevance.GATE_RANKS."""
    best, lead = 0.0, None
    for r in case_rows[: relevance.GATE_RANKS]:
        if r["features"]:
            p = prob(model, r["features"])
            if lead is None or p > best:
                best, lead = p, r
    return best, lead


def _by_case(rows: list[dict]) -> dict[str, list[dict]]:
    by_case: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_case[r["case"]].append(r)
    for case_rows in by_case.values():
        case_rows.sort(key=lambda r: r.get("rank") or 0)
    return by_case


def outcomes(rows: list[dict], models: dict[str, tuple]) -> dict[str, list[int]]:
    """Per kind, one 0/1 per case: hit (related kinds) or injected anything (unrelated), as the hook decides."""
    out: dict[str, list[int]] = defaultdict(list)
    for case_rows in _by_case(rows).values():
        kind = case_rows[0]["kind"]
        klass = case_rows[0]["klass"]
        chosen = []
        if klass:
            gate, lead = _gate(case_rows, models[klass])
            if lead is not None and gate < models[klass][3]:  # the hook's near-verbatim and answered rules
                lead = next((r for r in case_rows[: relevance.GATE_RANKS]
                             if r["features"] and relevance.said_whole(r["features"])), None)
                gate = 1.0 if lead is not None else gate
            if lead is not None and gate >= models[klass][3]:
                top = lead["score"] or 1e-9
                cut = COMPANION_P * models[klass][3]
                chosen = [r for r in case_rows if r is lead or (r["score"] / top >= COMPANION and r["features"]
                                                                and prob(models[klass], r["features"]) >= cut)][:TOP_K]
        out[kind].append(int(bool(chosen)) if kind == "unrelated" else int(any(r["right"] for r in chosen)))
        if kind != "unrelated":
            out["wrong"].append(sum(1 for r in chosen if not r["right"]))
    return out


def split_by_store(rows: list[dict]) -> dict[str, list[dict]]:
    """The rows of each store, and of the stores with and without recorded expansions."""
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out[f"store {r['store']}"].append(r)
        if r["store"].endswith(":exp"):
            out["all stores with recorded expansions"].append(r)
        elif r["store"].endswith(":exph"):
            out["all stores with hand-written expansions (evaluated only)"].append(r)
        else:
            out["all stores without expansions"].append(r)
    return out


def pick_threshold(rows: list[dict], model: tuple, target: float) -> float:
    """The lowest probability at which no more than `target` of the unrelated prompts would inject, by RULE: "max",
    in every store (the strictest store sets it); "mean", on average over the stores (each store counts the same,
    whatever its number of cases), so one threshold holds across store sizes rather than at the most frequent one."""
    by_store: dict[str, list[float]] = defaultdict(list)
    for case_rows in _by_case(rows).values():
        if case_rows[0]["kind"] == "unrelated":
            by_store[case_rows[0]["store"]].append(_gate(case_rows, model)[0] if case_rows[0]["features"] else 0.0)
    if RULE == "max":
        cut = 0.0
        for ps in by_store.values():
            ps.sort(reverse=True)
            allowed = int(target * len(ps))
            if allowed < len(ps):
                cut = max(cut, min(0.99, ps[allowed] + 1e-6))
        return cut
    candidates = sorted({p for ps in by_store.values() for p in ps}, reverse=True)
    best = 0.99
    for c in candidates:  # lower the threshold while the mean rate stays within the target
        rate = sum(sum(1 for p in ps if p >= c) / len(ps) for ps in by_store.values()) / len(by_store)
        if rate > target:
            break
        best = c
    return min(0.99, best)


def rates(out: dict[str, list[int]]) -> dict[str, float]:
    return {k: sum(v) / len(v) for k, v in out.items() if v}  # "wrong": mean wrong records injected


def fmt(r: dict[str, float]) -> str:
    names = (("unrelated", "unrelated_injected"), ("long", "long_hit"), ("long120", "long120_hit"),
             ("question", "question_hit"), ("own", "own_hit"), ("wrong", "wrong_per_related"))
    return " ".join(f"{label}={r.get(kind, float('nan')):.3f}" for kind, label in names)


def spread(values: list[float]) -> str:
    values = [v for v in values if v == v]
    if not values:
        return "n/a"
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    return f"{min(values):.3f}-{max(values):.3f} (sd {sd:.3f})"


def main(argv: list[str] | None = None) -> int:
    global FEATURES, RULE, COMPANION, COMPANION_P
    shared = ROOT.parent / "shared" / "bench"
    data = ROOT / "bench" / "data"
    kept = Path(os.environ.get("AGENTCTX_KEPT_DIR") or ROOT / "bench" / ".kept")  # tools/harvest_kept.py writes it
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adrs", default=str(shared / "adr-dev" / "adrs.jsonl"))
    parser.add_argument("--questions", default=str(shared / "adr-dev" / "questions.jsonl"))
    parser.add_argument("--kept-adrs", default=str(kept / "kept-adrs.jsonl"))
    parser.add_argument("--prompts",
                        default=f"{shared / 'prompts-dev' / 'real_prompts.jsonl'},{kept / 'kept-prompts.jsonl'}",
                        help="comma-separated prompt files")
    parser.add_argument("--cases", default=str(data))
    parser.add_argument("--locomo", default=str(shared / "locomo-dev"))
    parser.add_argument("--stores", default="dev:0,dev:0:exp,dev:docs+2000,dev:docs+2000:exp,kept:0,kept:docs+2000,"
                                            "kept-each:0,kept-each:0:exph,kept:0:exph",
                        help="stores to fit on, comma-separated SET:PAD[:exp] (see the module docstring)")
    parser.add_argument("--expansions", default=str(shared / "adr-dev" / "expansions.jsonl"),
                        help="recorded questions/aliases per ADR id, for the ':exp' stores")
    parser.add_argument("--kept-questions", default=str(data / "kept-questions-handwritten.jsonl"),
                        help="developer questions about kept decisions ({id, question, style}), written by hand")
    parser.add_argument("--kept-expansions", default=str(data / "kept-expansions-handwritten.jsonl"),
                        help="questions/aliases for kept decisions, for the ':exph' stores, comma-separated files "
                             "(evaluated, never fitted on: written by hand following agentctx/extract/expand.py's "
                             "SYSTEM text from what the pass sends)")
    parser.add_argument("--rule", choices=("max", "mean"), default="mean",
                        help="the threshold holds the target in every store (max) or on average over them (mean)")
    parser.add_argument("--target", type=float, default=0.045,
                        help="unrelated share allowed to inject on the training side (see --rule)")
    parser.add_argument("--features", default=",".join(relevance.FEATURES), help="comma-separated features to fit on")
    parser.add_argument("--cache", metavar="FILE", help="keep the collected candidates here (re-used if present)")
    parser.add_argument("--meaning", metavar="TABLE",
                        help="a static token table (agentctx embed --static): every store gets its record vectors, "
                             "and the `_m` classes (lexical and semantic features) are fitted beside the lexical ones")
    parser.add_argument("--lexical", action="store_true",
                        help="judge every prompt by the lexical model, as an install without the meaning data does")
    parser.add_argument("--write", action="store_true", help="write agentctx/retrieval/relevance.txt")
    parser.add_argument("--companion", type=float, default=relevance.COMPANION,
                        help="replay companions at this share of the gate candidate's score (to compare rules)")
    parser.add_argument("--companion-p", type=float, default=relevance.COMPANION_P,
                        help="... and this share of the threshold as their own probability")
    args = parser.parse_args(argv)
    FEATURES = tuple(args.features.split(","))
    COMPANION, COMPANION_P = args.companion, args.companion_p
    RULE = args.rule
    stores = args.stores.split(",")
    needed = args.prompts.split(",") + ([args.kept_adrs] if any(s.startswith("kept") for s in stores) else [])
    missing_files = [f for f in needed if not Path(f).is_file()]
    if missing_files:
        print(f"missing {', '.join(missing_files)}: the kept-apart sets are harvested from fetched snapshots, not "
              "committed; run python tools/harvest_kept.py first", file=sys.stderr)
        return 1
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        rows = [json.loads(line) for line in cache.open(encoding="utf-8")]
        rows = [r for r in rows if r["store"] in stores]
        missing = [s for s in stores if not any(r["store"] == s for r in rows)]
    else:
        rows, missing = [], stores
    fresh = [r for store in missing for r in collect(args, store)]
    if cache and fresh:
        with cache.open("a", encoding="utf-8") as fh:
            for r in fresh:
                fh.write(json.dumps(r) + "\n")
    rows += fresh
    for r in rows:  # the class each prompt's gate reads: with the semantic features, its `_m` model (not --lexical)
        klass = r.get("klass")
        if klass and klass.endswith(relevance.SEMANTIC):
            klass = klass[: -len(relevance.SEMANTIC)]
        if klass and not args.lexical and "semantic" in (r["features"] or {}):
            klass += relevance.SEMANTIC
        r["klass"] = klass
    folds = fold_of(rows)
    k_folds = sorted(set(folds.values()))
    pooled: dict[str, list[int]] = defaultdict(list)
    by_store: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    per_fold: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    lines = []
    for k in k_folds:
        train = [r for r in rows if not held_out(r, folds, k) and not r["store"].endswith(":exph")]
        test = [r for r in rows if held_out(r, folds, k)]
        models = fit_classes(train, args.target)
        out = outcomes(test, models)
        for kind, v in out.items():
            pooled[kind] += v
        for tag, part in split_by_store(test).items():
            for kind, v in outcomes(part, models).items():
                by_store[tag][kind] += v
                per_fold[tag][kind].append(sum(v) / len(v) if v else float("nan"))
        held = sorted({r["group"] for r in test if r["kind"] != "unrelated"})
        source = [s for s in SOURCES if folds[f"source:{s}"] == k]
        cuts = "/".join(f"{models[c][3]:.3f}" for c in models)
        lines.append(f"fold {k} (held out: {', '.join(held)}; prompts of {', '.join(source)}; thresholds {cuts}): "
                     f"{fmt(rates(out))}")
    lines.append(f"held-out, pooled over folds: {fmt(rates(pooled))}")
    for tag, out in sorted(by_store.items()):
        lines.append(f"held-out, pooled, {tag}: {fmt(rates(out))}")
        lines.append(f"  spread over folds, {tag}: " + " ".join(
            f"{kind}={spread(per_fold[tag][kind])}" for kind in ("unrelated", "long", "long120", "question")
            if per_fold[tag].get(kind)))
    models = fit_classes([r for r in rows if not r["store"].endswith(":exph")], args.target)
    lines.append(f"fitted on everything, in-sample: {fmt(rates(outcomes(rows, models)))}")
    print("\n".join(lines))
    for klass, (coef, mean, scale, t) in models.items():
        print(f"{klass} (threshold {t:.3f}): " + " ".join(f"{f}={coef[f]:+.2f}" for f in ("bias",) + features_of(klass)))
    if args.write:
        path = ROOT / "agentctx" / "retrieval" / relevance.MODEL_FILE
        with open(path, "w", encoding="ascii") as fh:
            fh.write("# The prompt hook's injection gate (agentctx/retrieval/relevance.py): per prompt class, a logistic regression\n"
                     "# over standardized features of the best candidate, written by tools/fit_relevance.py "
                     f"--stores {args.stores} --rule {args.rule} --target {args.target}"
                     f"{' --lexical' if args.lexical else ''} --companion {COMPANION} --companion-p {COMPANION_P}.\n"
                     "# Data: adr-dev and prompts-dev, the hand-written cases, and the sets tools/harvest_kept.py gives "
                     "(which leaves out every repository of kept-apart-repos.txt).\n# Do not edit by hand. "
                     "Cross-validated by repository and prompt source:\n")
            for line in lines:
                fh.write(f"# {line}\n")
            for klass, (coef, mean, scale, t) in models.items():
                fh.write(f"{klass}.threshold {t:.6f}\n")
                for f in ("bias",) + features_of(klass):
                    fh.write(f"{klass}.{f} {coef[f]:.6f}\n")
                for f in features_of(klass):
                    fh.write(f"{klass}.mean:{f} {mean[f]:.6f}\n{klass}.scale:{f} {scale[f]:.6f}\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
