"""The pre-action delivery of repositories' own rules, measured on real repositories' rules and real commits.

Usage: python bench/action.py [--data FILE] [--mirror DIR] [--agents codex,claude] [--no-repos]
Data: one JSON object per repository (bench/action_data.py writes them from the repositories under --mirror, default
/work/.mirror; --data reads such a file instead). For each repository the rule files are written to a scratch tree
and read by `agentctx`'s own reader (outside/rulefiles.sync: formats, braces, commas, folding of copies), the anchor
map is built from the records, and every commit is replayed as one agent session: each touched file is an edit, and
the pre-action selection (`select`, the hook's pure function) decides what is delivered before it.

Ground truth is each format's own semantics as documented (vendor-notes/rule-files.md), matched here by a separate
implementation (a glob is matched against the whole repository-relative path: `*` and `?` within a segment, `**`
across segments, `{a,b}` alternatives; a nested AGENTS.md/CLAUDE.md/GEMINI.md governs its folder), not by
base/anchors. Measured per agent (a rule the agent loads natively is its own job and is counted apart):
  hit        share of (edit, governing rule) pairs whose rule was delivered at or before the edit in its session
  noise      share of edits that were given a rule that does not govern them
  tokens     tokens delivered per edit (the hook's action), and per session
  always-on  what an index of every rule's title and description in every turn costs (Claude Code's MEMORY.md
             style), and every rule's whole text in every turn
The length of a record's text in the map (anchormap.TEXT_CHARS: within the hook's 400-token budget, a longer text
leaves room for fewer records) is fitted on half of the repositories (by name) and reported on the others.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TEXT_CHOICES = (120, 240, 480)  # characters of a record's text in the map, tried on the fit repositories


# --- ground truth: each format's meaning, matched independently of base/anchors ------------------------------------


def gt_split(value: object) -> list[str]:
    """A frontmatter glob field as written: a YAML list, or a string of globs separated by commas outside braces."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        depth, start = 0, 0
        for i, c in enumerate(item + ","):
            depth += c == "{"
            depth -= c == "}"
            if c == "," and depth <= 0:
                piece = item[start:i].strip().strip("'\"").strip()
                if piece:
                    out.append(piece)
                start = i + 1
    return out


def gt_regex(glob: str) -> "re.Pattern[str]":
    """A glob as a regular expression over the whole repository-relative path (minimatch without matchBase)."""
    g = glob.strip()
    while g.startswith("./"):
        g = g[2:]
    g = g.lstrip("/")
    out, i, depth = [], 0, 0
    while i < len(g):
        if g.startswith("**/", i) and (i == 0 or g[i - 1] == "/"):
            out.append("(?:[^/]*/)*")
            i += 3
        elif g.startswith("/**", i) and i + 3 == len(g):
            out.append("(?:/.*)?")
            i += 3
        elif g.startswith("**", i):
            out.append(".*")
            i += 2
        elif g[i] == "*":
            out.append("[^/]*")
            i += 1
        elif g[i] == "?":
            out.append("[^/]")
            i += 1
        elif g[i] == "{":
            out.append("(?:")
            depth += 1
            i += 1
        elif g[i] == "}" and depth:
            out.append(")")
            depth -= 1
            i += 1
        elif g[i] == "," and depth:
            out.append("|")
            i += 1
        elif g[i] == "[":
            end = g.find("]", i + 1)
            if end < 0:
                out.append(re.escape(g[i]))
                i += 1
            else:
                out.append("[" + g[i + 1:end].replace("!", "^", 1) + "]")
                i = end + 1
        else:
            out.append(re.escape(g[i]))
            i += 1
    out.extend(")" * depth)
    return re.compile("".join(out) + r"\Z")


class Truth:
    """Which files a rule file governs by path, in its own format's terms; `kind` says how it applies."""

    def __init__(self, path: str, text: str) -> None:
        from agentctx.outside import rulefmt

        self.path = path
        fmt = rulefmt.format_of(path)
        fields, body = rulefmt.split_frontmatter(text)
        self.title = str(fields.get("description") or "") or next(
            (ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), path)
        self.text = body
        self.folder = ""
        self.patterns: list[re.Pattern[str]] = []
        if fmt in ("agents_md", "claude_md", "gemini_md"):
            folder = path.rsplit("/", 1)[0] if "/" in path else ""
            folder = folder[:-len(".claude")].rstrip("/") if folder.endswith(".claude") else folder
            self.kind = "directory" if folder else "root"
            self.folder = folder
            return
        key = {"cursor": "globs", "claude_rules": "paths", "copilot": "applyTo"}[fmt or "cursor"]
        globs = [g for g in gt_split(fields.get(key)) if not g.startswith("!")]
        every = [g for g in globs if g.strip("/*") == ""]
        self.patterns = [gt_regex(g) for g in globs if g not in every]
        if fmt == "cursor" and fields.get("alwaysApply") is True:
            self.kind = "always"
        elif self.patterns:
            self.kind = "globs"
        elif every or fmt == "claude_rules":
            self.kind = "always"
        else:
            self.kind = "description" if fields.get("description") else "manual"

    def governs(self, file: str) -> bool:
        if self.kind == "directory":
            return file.startswith(self.folder + "/")
        return self.kind == "globs" and any(p.match(file) for p in self.patterns)


# --- what agentctx delivers ----------------------------------------------------------------------------------------


def build(repo: dict[str, object], work: Path) -> tuple[list[dict[str, object]], dict[str, str], "object"]:
    """Write the rule files to a scratch tree, read them with agentctx's reader into a fresh store, and return the
    anchor map's entries (memory/anchormap.py, what the hook reads), rule path -> record id, and the connection."""
    from agentctx.base.project import Project
    from agentctx.memory import anchormap
    from agentctx.outside import rulefiles
    from agentctx.store import db
    from agentctx.store import rulefiles as sql

    tree = work / "tree"
    for rule in repo["rules"]:  # type: ignore[union-attr]
        target = tree / rule["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rule["text"], encoding="utf-8")
    conn = db.connect(work / "store.db", create=True)
    project = Project("bench-" + str(repo["repo"]).replace("/", "-"), str(repo["repo"]), str(tree), None)
    rulefiles.sync(conn, project)
    ids = {path: row.record_id for path, row in sql.rows(conn, project.id).items() if row.record_id}
    return anchormap.build(conn, project.id)["entries"], ids, conn  # type: ignore[return-value]


def with_text(entries: list[dict[str, object]], conn: "object", chars: int) -> list[dict[str, object]]:
    """The map's entries with each record's text cut to `chars` (the knob fitted here; the map's own is
    anchormap.TEXT_CHARS)."""
    from agentctx.memory.anchormap import short_text
    from agentctx.store import records

    out = []
    for e in entries:
        rec = records.get(conn, str(e["id"]))  # type: ignore[arg-type]
        out.append({**e, "text": short_text(rec.body, chars) if rec else e["text"]})
    return out


def deliver(entries: list[dict[str, object]], file: str, agent: str, delivered: set[str]) -> tuple[list[str], int]:
    """What the pre-action hook delivers before an edit of `file`: hooks/action.select, exactly; (ids, tokens)."""
    from agentctx.base.tokens import estimate
    from agentctx.hooks.action import Target, render, select

    picks = select(entries, Target("Edit", (file,)), agent, delivered)
    return [str(p.entry["id"]) for p in picks], estimate(render(picks)) if picks else 0


# --- one repository ------------------------------------------------------------------------------------------------


def measure(repo: dict[str, object], agent: str, entries_list: list[dict[str, object]],
            built: tuple[list[dict[str, object]], dict[str, str], object]) -> dict[str, float]:
    from agentctx.outside.rulefiles import native_agents
    from agentctx.store import records

    _, ids, conn = built
    truths = [Truth(r["path"], r["text"]) for r in repo["rules"]]  # type: ignore[union-attr]
    scoped = [t for t in truths if t.kind in ("globs", "directory")]
    native = {}
    for t in scoped:
        rec = records.get(conn, ids[t.path]) if t.path in ids else None  # type: ignore[arg-type]
        native[t.path] = bool(rec) and agent in native_agents(rec)
    pairs = hits = native_pairs = edits = noisy = tokens = 0
    per_session: list[int] = []
    for commit in repo["commits"]:  # type: ignore[union-attr]
        delivered: set[str] = set()
        spent = 0
        for file in commit["files"]:
            edits += 1
            got, n = deliver(entries_list, file, agent, delivered)
            delivered.update(got)
            spent += n
            governing = [t for t in scoped if t.governs(file)]
            good_ids = {ids.get(t.path) for t in governing}
            if any(g not in good_ids for g in got):
                noisy += 1
            for t in governing:
                if native[t.path]:
                    native_pairs += 1
                    continue
                pairs += 1
                hits += ids.get(t.path) in delivered
        tokens += spent
        per_session.append(spent)
    return {"edits": edits, "pairs": pairs, "hits": hits, "native_pairs": native_pairs, "noisy": noisy,
            "tokens": tokens, "sessions": len(per_session), "session_tokens_max": max(per_session or [0]),
            "unmatched_rules": sum(1 for t in scoped if t.path not in ids)}


def always_on(repo: dict[str, object]) -> tuple[int, int]:
    """Tokens per turn of (an index of every rule's title, every rule's whole text), Claude Code MEMORY.md style."""
    from agentctx.base.tokens import estimate

    truths = [Truth(r["path"], r["text"]) for r in repo["rules"]]  # type: ignore[union-attr]
    index = "\n".join(f"- [{t.title[:150]}]({t.path})" for t in truths)
    return estimate(index), sum(estimate(t.text) for t in truths)


def ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def totals(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = rows[0].keys() if rows else []
    return {k: sum(r[k] for r in rows) for k in keys}


def load(args: argparse.Namespace) -> list[dict[str, object]]:
    if args.data:
        text = Path(args.data).read_text(encoding="utf-8-sig")
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    from bench.action_data import extract, repos

    return [r for repo, name in repos(Path(args.mirror)) if (r := extract(repo, name, args.commits))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="repositories in bench/action_data.py's format (default: read --mirror)")
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--agents", default="codex,claude")
    ap.add_argument("--no-repos", action="store_true", help="only the summary lines")
    args = ap.parse_args(argv)
    if not args.data and not Path(args.mirror).is_dir():
        print(f"no data: pass --data FILE, or fetch repositories into {args.mirror}", file=sys.stderr)
        return 2
    data = [r for r in load(args) if r.get("rules") and r.get("commits")]
    if not data:
        print("no repository with rule files and commits in the data", file=sys.stderr)
        return 2
    os.environ.setdefault("AGENTCTX_HOME", tempfile.mkdtemp(prefix="agentctx-action-bench-home-"))
    data.sort(key=lambda r: str(r["repo"]))
    fit_names = {str(r["repo"]) for i, r in enumerate(data) if i % 2 == 0}
    built = {}
    for repo in data:
        work = Path(tempfile.mkdtemp(prefix="agentctx-action-bench-"))
        built[str(repo["repo"])] = build(repo, work)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    summary: dict[str, object] = {"repos": len(data), "fit_repos": len(fit_names),
                                  "commits": sum(len(r["commits"]) for r in data),  # type: ignore[arg-type]
                                  "rules": sum(len(r["rules"]) for r in data)}  # type: ignore[arg-type]
    from agentctx.memory.anchormap import TEXT_CHARS

    variants = {n: {name: with_text(b[0], b[2], n) for name, b in built.items()} for n in TEXT_CHOICES}
    for agent in agents:
        # Fit: the text length with the best hit rate on the fit half; ties go to the hook's own, then the shorter.
        scores = {}
        for n in TEXT_CHOICES:
            t = totals([measure(r, agent, variants[n][str(r["repo"])], built[str(r["repo"])]) for r in data
                        if str(r["repo"]) in fit_names])
            scores[n] = round(ratio(t["hits"], t["pairs"]), 3)
        chosen = max(TEXT_CHOICES, key=lambda n: (scores[n], n == TEXT_CHARS, -n))
        held = [r for r in data if str(r["repo"]) not in fit_names] or data
        for label, n in (("", chosen), ("_hook_default", TEXT_CHARS)):
            rows = []
            for repo in data:
                name = str(repo["repo"])
                m = measure(repo, agent, variants[n][name] if n in variants else built[name][0], built[name])
                if repo in held:
                    rows.append(m)
                if not args.no_repos and not label:
                    part = "fit" if name in fit_names and len(held) < len(data) else "held-out"
                    print(f"{agent} {part} {name}: rules={len(repo['rules'])} edits={m['edits']} pairs={m['pairs']} "
                          f"hit={ratio(m['hits'], m['pairs']):.3f} noise={ratio(m['noisy'], m['edits']):.3f} "
                          f"native_pairs={m['native_pairs']} tokens/edit={ratio(m['tokens'], m['edits']):.1f}")
            t = totals(rows)
            summary.update({f"{agent}{label}_text_chars": n, f"{agent}{label}_hit": round(ratio(t["hits"], t["pairs"]), 3),
                            f"{agent}{label}_noise": round(ratio(t["noisy"], t["edits"]), 3),
                            f"{agent}{label}_tokens_per_edit": round(ratio(t["tokens"], t["edits"]), 1)})
            if not label:
                summary.update({f"{agent}_pairs": int(t["pairs"]), f"{agent}_native_pairs": int(t["native_pairs"]),
                                f"{agent}_tokens_per_session": round(ratio(t["tokens"], t["sessions"]), 1),
                                f"{agent}_fit_hits": "/".join(f"{n}:{scores[n]}" for n in TEXT_CHOICES)})
    index, full = zip(*(always_on(r) for r in data))
    summary["edits"] = int(sum(len(c["files"]) for r in data for c in r["commits"]))  # type: ignore[union-attr]
    summary["index_tokens_per_turn"] = round(statistics.mean(index), 1)
    summary["all_rules_tokens_per_turn"] = round(statistics.mean(full), 1)
    print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
