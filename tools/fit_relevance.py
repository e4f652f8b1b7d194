"""Refit the prompt hook's injection decision (agentctx/retrieval/relevance.txt), cross-validated by repository.

    python tools/fit_relevance.py [--pads 0,2000] [--target 0.05] [--write] [bench/injection.py set options]

Runs bench/injection.py's store and cases (the shared development sets plus the hand-written cases) at each store
size of `--pads` (LoCoMo turns added as padding), collects every weighed candidate with its features, and fits an
L2-regularised logistic regression (pure Python, Newton's method) per prompt class (short: at most
relevance.SHORT_TERMS distinct terms; long) on the features of each prompt's best candidate: "is this prompt about
something in the store" (the related sets) against the unrelated prompts. The threshold is the lowest probability at
which no more than `--target` of the training side's unrelated prompts of that class would inject anything (a margin
under the 10% goal: kept-apart prompts and bigger stores are harder). Held-out outcomes replay the hook's rule: the
gate on the best candidate, then the next two with at least relevance.COMPANION of its score.

Cross-validation: three folds by repository: each fold holds out one ADR repository (its long prompts and
questions), a third of the prompt repositories and, with the smallest ADR repository, the hand-written cases; the
model and threshold fitted on the other two folds are scored on it. The held-out figures are printed per fold and
pooled; `--write` then fits on everything and writes the model file with those figures in its header.
Deterministic: same data, same file.
"""

from __future__ import annotations

import argparse
import io
import json
import math
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


def collect(args: argparse.Namespace, pad: str) -> list[dict]:
    """The weighed candidates of every case, with the store padded as `pad` says: "N" LoCoMo turns, "docs" the
    technical Markdown paragraphs of bench/injection.py --pad-docs, "docs+N" both; a ":exp" suffix stores the
    decisions with the recorded questions and aliases of `--expansions` (bench/injection.py --expansions)."""
    import injection  # bench/injection.py

    pad, _, flag = pad.partition(":")
    expansions = injection.read_expansions(args.expansions) if flag == "exp" else None
    tag = f"{pad}:{flag}" if flag else pad
    own_records = injection._jsonl(Path(args.cases) / "handwritten-records.jsonl")
    own_questions = injection._jsonl(Path(args.cases) / "handwritten-questions.jsonl")
    turns = pad.split("+")[-1]
    padding = injection.doc_padding(100_000) if pad.startswith("docs") else []
    if turns.isdigit() and int(turns):
        padding += injection._locomo_turns(Path(args.locomo), int(turns))
    bench = injection.Bench(injection._jsonl(args.adrs), injection._jsonl(args.questions),
                            injection._jsonl(args.prompts), own_records, own_questions, padding, expansions)
    out = io.StringIO()
    bench.run(out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    for row in rows:
        row["case"] = f"{tag}:{row['case']}"
    # Cases none of whose candidates is the right record still count (a miss, or for unrelated prompts a pass).
    seen = {row["case"] for row in rows}
    for i, (_, want, group, style, kind) in enumerate(bench.cases):
        if f"{tag}:{i}" not in seen:
            rows.append({"case": f"{tag}:{i}", "kind": kind, "group": group, "style": style, "right": False, "rank": 0, "score": 0.0, "klass": None,
                         "features": None})
    return rows


def fold_of(rows: list[dict], k: int = 3) -> dict[str, int]:
    """Repository -> fold: ADR repositories largest first to folds 0..k-1, the hand-written cases with the last,
    prompt repositories by sorted name, round robin."""
    adr_groups: dict[str, int] = defaultdict(int)
    prompt_groups = set()
    for row in rows:
        if row["kind"] in ("long", "long120", "question"):
            adr_groups[row["group"]] += 1
        elif row["kind"] == "unrelated":
            prompt_groups.add(row["group"])
    folds = {g: i % k for i, g in enumerate(sorted(adr_groups, key=lambda g: -adr_groups[g]))}
    folds["handwritten"] = k - 1
    for i, g in enumerate(sorted(prompt_groups)):
        folds[g] = i % k
    return folds


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


def fit(rows: list[dict]) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(coefficients incl. bias, means, scales) of the L2 logistic regression: best candidates, label = related."""
    data = _tops(rows)
    mean = {f: sum(r["features"][f] for r in data) / len(data) for f in FEATURES}
    scale = {f: math.sqrt(sum((r["features"][f] - mean[f]) ** 2 for r in data) / len(data)) or 1.0 for f in FEATURES}
    x = [[1.0] + [(r["features"][f] - mean[f]) / scale[f] for f in FEATURES] for r in data]
    y = [0.0 if r["kind"] == "unrelated" else 1.0 for r in data]
    n = len(FEATURES) + 1
    w = [0.0] * n
    for _ in range(30):
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        for xi, yi in zip(x, y):
            z = sum(a * b for a, b in zip(w, xi))
            p = 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))
            g = p - yi
            h = p * (1 - p)
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
    z = coef["bias"] + sum(coef[f] * (feats[f] - mean[f]) / scale[f] for f in FEATURES)
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, z))))


def fit_classes(rows: list[dict], target: float) -> dict[str, tuple]:
    """Per prompt class: (coef, mean, scale, threshold)."""
    models = {}
    for klass in relevance.CLASSES:
        part = [r for r in rows if r.get("klass") == klass]
        model = fit(part)
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
            if lead is not None and gate < models[klass][3]:  # the hook's near-verbatim rule
                lead = next((r for r in case_rows[: relevance.GATE_RANKS]
                             if r["features"] and relevance.near_verbatim(r["features"])), None)
                gate = 1.0 if lead is not None else gate
            if lead is not None and gate >= models[klass][3]:
                top = lead["score"] or 1e-9
                chosen = [r for r in case_rows if r is lead or r["score"] / top >= relevance.COMPANION][:TOP_K]
        out[kind].append(int(bool(chosen)) if kind == "unrelated" else int(any(r["right"] for r in chosen)))
    return out


def split_by_expansions(rows: list[dict]) -> dict[str, list[dict]]:
    """The rows of stores whose decisions carry recorded expansions (":exp" pads) apart from the others."""
    out: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        out["with expansions" if ":exp:" in r["case"] else "without expansions"].append(r)
    return out


def pick_threshold(rows: list[dict], model: tuple, target: float) -> float:
    ps = sorted((_gate(case_rows, model)[0] for case_rows in _by_case(rows).values()
                 if case_rows[0]["kind"] == "unrelated" and case_rows[0]["features"]), reverse=True)
    n = len({r["case"] for r in rows if r["kind"] == "unrelated"})
    allowed = int(target * n)  # at most this many may inject
    return min(0.99, ps[allowed] + 1e-6) if allowed < len(ps) else 0.0


def rates(out: dict[str, list[int]]) -> dict[str, float]:
    return {k: sum(v) / len(v) for k, v in out.items() if v}


def fmt(r: dict[str, float]) -> str:
    names = (("unrelated", "unrelated_injected"), ("long", "long_hit"), ("long120", "long120_hit"),
             ("question", "question_hit"), ("own", "own_hit"))
    return " ".join(f"{label}={r.get(kind, float('nan')):.3f}" for kind, label in names)


def main(argv: list[str] | None = None) -> int:
    shared = ROOT.parent / "shared" / "bench"
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adrs", default=str(shared / "adr-dev" / "adrs.jsonl"))
    parser.add_argument("--questions", default=str(shared / "adr-dev" / "questions.jsonl"))
    parser.add_argument("--prompts", default=str(shared / "prompts-dev" / "real_prompts.jsonl"))
    parser.add_argument("--cases", default=str(ROOT / "bench" / "data"))
    parser.add_argument("--locomo", default=str(shared / "locomo-dev"))
    parser.add_argument("--pads", default="0,docs+2000,0:exp,docs+2000:exp",
                        help="stores to fit on, comma-separated: N LoCoMo turns of padding, docs, docs+N, each with "
                             "':exp' for decisions stored with --expansions (see collect)")
    parser.add_argument("--expansions", default=str(shared / "adr-dev" / "expansions.jsonl"),
                        help="recorded questions/aliases per ADR id, for the ':exp' stores")
    parser.add_argument("--target", type=float, default=0.04, help="unrelated share allowed to inject on the training side")
    parser.add_argument("--write", action="store_true", help="write agentctx/retrieval/relevance.txt")
    args = parser.parse_args(argv)
    pads = args.pads.split(",")
    rows = [r for pad in pads for r in collect(args, pad)]
    folds = fold_of(rows)
    pooled: dict[str, list[int]] = defaultdict(list)
    by_tag: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    lines = []
    for k in sorted(set(folds.values())):
        train = [r for r in rows if folds.get(r["group"], 0) != k]
        test = [r for r in rows if folds.get(r["group"], 0) == k]
        models = fit_classes(train, args.target)
        out = outcomes(test, models)
        for kind, v in out.items():
            pooled[kind] += v
        for tag, part in split_by_expansions(test).items():
            for kind, v in outcomes(part, models).items():
                by_tag[tag][kind] += v
        held = sorted({r["group"] for r in test if r["kind"] != "unrelated"})
        cuts = "/".join(f"{models[c][3]:.3f}" for c in relevance.CLASSES)
        lines.append(f"fold {k} (held out: {', '.join(held)} + {sum(1 for g, f in folds.items() if f == k)} repos"
                     f" in all; thresholds {cuts}): {fmt(rates(out))}")
    lines.append(f"held-out, pooled over folds: {fmt(rates(pooled))}")
    if len(by_tag) > 1:
        for tag, out in sorted(by_tag.items()):
            lines.append(f"held-out, pooled, {tag}: {fmt(rates(out))}")
    models = fit_classes(rows, args.target)
    lines.append(f"fitted on everything, in-sample: {fmt(rates(outcomes(rows, models)))}")
    print("\n".join(lines))
    for klass, (coef, mean, scale, t) in models.items():
        print(f"{klass} (threshold {t:.3f}): " + " ".join(f"{f}={coef[f]:+.2f}" for f in ("bias",) + FEATURES))
    if args.write:
        path = ROOT / "agentctx" / "retrieval" / relevance.MODEL_FILE
        with open(path, "w", encoding="ascii") as fh:
            fh.write("# The prompt hook's injection gate (agentctx/retrieval/relevance.py): per prompt class, a logistic regression\n"
                     "# over standardized features of the best candidate, written by tools/fit_relevance.py "
                     f"--pads {args.pads} --target {args.target}.\n# Do not edit by hand. Cross-validated by repository:\n")
            for line in lines:
                fh.write(f"# {line}\n")
            for klass, (coef, mean, scale, t) in models.items():
                fh.write(f"{klass}.threshold {t:.6f}\n")
                for f in ("bias",) + FEATURES:
                    fh.write(f"{klass}.{f} {coef[f]:.6f}\n")
                for f in FEATURES:
                    fh.write(f"{klass}.mean:{f} {mean[f]:.6f}\n{klass}.scale:{f} {scale[f]:.6f}\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
