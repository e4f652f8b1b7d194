"""Data for bench/action.py: real repositories' own path-scoped rules for agents and the files their commits touched.

Usage: python bench/action_data.py [--mirror DIR] [--out FILE] [--commits N]
For each git repository under the mirror (default /work/.mirror, where the `fetch` tool puts public repositories):
the commit where the repository had the most path-scoped rule files (`.cursor/rules`, `.claude/rules`,
`.github/instructions`, nested AGENTS.md/CLAUDE.md/GEMINI.md), the rule files as they were at that commit, and the
files touched by up to N non-merge commits reachable from it (each commit is one agent session; each touched file
one edit). One JSON object per repository (the format bench/action.py reads):
  {"repo": "owner/name", "snapshot": "<sha>", "rules": [{"path": ..., "text": ...}],
   "commits": [{"commit": "<sha>", "files": [...], "added": [...]}]}
`files`: what the commit added, modified or renamed to (not what it deleted); `added`: those it created (a new
file has nothing to read first). Repositories listed in the kept-apart file (KEPT_APART, or $AGENTCTX_KEPT_APART)
are never read.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PATHSPECS = [":(glob).cursor/rules/**", ":(glob).claude/rules/**", ":(glob).github/instructions/**",
             ":(glob)**/AGENTS.md", ":(glob)**/CLAUDE.md", ":(glob)**/GEMINI.md"]
CANDIDATES = 12  # commits that touched rule files, looked at to pick the snapshot
FILES_PER_COMMIT = 40  # larger commits are mass renames or vendored code, not one agent's edits
RULE_CHARS = 6000
KEPT_APART = "/work/shared/bench/kept-apart-repos.txt"  # repositories no bench may fit or develop on  # what bench/action.py needs of a rule file: the frontmatter and the start of the text


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, errors="replace",
                          timeout=300)
    # A snapshot may lack its largest objects: git stops there, and what it printed before is still history.
    return done.stdout


def rule_paths(repo: Path, commit: str) -> list[str]:
    from agentctx.outside import rulefmt

    return [p for p in git(repo, "ls-tree", "-r", "--name-only", commit).splitlines() if rulefmt.format_of(p)]


def scoped(repo: Path, commit: str, paths: list[str]) -> list[dict[str, str]]:
    """The rule files at `commit` whose format delivers them by path (globs or their directory)."""
    from agentctx.outside import rulefmt

    out = []
    for path in paths:
        text = git(repo, "show", f"{commit}:{path}")[:RULE_CHARS]
        rule = rulefmt.parse(path, text)
        if rule is not None and rule.mode in ("globs", "directory", "always", "description"):
            out.append({"path": path, "text": text})
    return out


def extract(repo: Path, name: str, commits: int) -> dict[str, object] | None:
    from agentctx.outside import rulefmt

    touched = git(repo, "log", "--all", "--format=%H", "--", *PATHSPECS).split()
    if not touched:
        return None
    step = max(1, len(touched) // CANDIDATES)
    best: tuple[int, str, list[str]] = (0, "", [])
    for commit in touched[::step][:CANDIDATES] + touched[:1]:
        paths = rule_paths(repo, commit)
        n = 0
        for p in paths:  # count path-scoped ones only: an always-on rule file is no test of the pre-action hook
            rule = rulefmt.parse(p, git(repo, "show", f"{commit}:{p}")[:RULE_CHARS]) if p.endswith(".md") or \
                p.endswith(".mdc") else None
            n += bool(rule and rule.mode in ("globs", "directory"))
        if n > best[0]:
            best = (n, commit, paths)
    if not best[0]:
        return None
    snapshot = best[1]
    rules = scoped(repo, snapshot, best[2])
    log = git(repo, "log", snapshot, "--no-merges", f"-n{commits * 2}", "--format=%x00%H", "--name-status",
              "--no-renames")
    out_commits: list[dict[str, object]] = []
    for block in log.split("\0")[1:]:
        lines = [x.strip() for x in block.splitlines() if x.strip()]
        if not lines or len(lines) - 1 > FILES_PER_COMMIT or len(lines) == 1:
            continue
        changes = [ln.split("\t") for ln in lines[1:] if "\t" in ln]
        files = [c[-1] for c in changes if c[0] != "D"]
        if not files:
            continue
        out_commits.append({"commit": lines[0], "files": files, "added": [c[-1] for c in changes if c[0] == "A"]})
        if len(out_commits) >= commits:
            break
    return {"repo": name, "snapshot": snapshot, "rules": rules, "commits": out_commits}


def kept_apart() -> set[str]:
    """The repositories the benches must never read (lower-cased owner/name), from the kept-apart file."""
    import os

    try:
        text = Path(os.environ.get("AGENTCTX_KEPT_APART") or KEPT_APART).read_text(encoding="utf-8")
    except OSError:
        return set()
    return {ln.strip().lower() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")}


def repos(mirror: Path) -> list[tuple[Path, str]]:
    out = []
    apart = kept_apart()
    for d in sorted(mirror.iterdir()) if mirror.is_dir() else []:
        git_dir = d / "repo"
        name = d.name.replace("+", "/", 1)
        if (git_dir / "HEAD").exists() and "+" in d.name and name.lower() not in apart:
            out.append((git_dir, name))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--out", default="-")
    ap.add_argument("--commits", type=int, default=300)
    args = ap.parse_args(argv)
    rows = [r for repo, name in repos(Path(args.mirror)) if (r := extract(repo, name, args.commits))]
    text = "".join(json.dumps(r) + "\n" for r in rows)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"repos={len(rows)} rules={sum(len(r['rules']) for r in rows)} "
              f"commits={sum(len(r['commits']) for r in rows)} out={args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
