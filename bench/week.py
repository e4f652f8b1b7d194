"""A week on one repository with rule files in four formats, through the real hook entry points, against a release.

Usage: python bench/week.py [--against CHECKOUT] [--days N] [--prompts FILE]

The repository (written here, modelled on real ones: bench/action.py measures the real ones): `.claude/rules`
(two with `paths`, one without: every session), `.cursor/rules` (one `alwaysApply`, one auto-attached by globs,
one agent-requested by its description), a nested `web/AGENTS.md`, a Copilot rule with `applyTo: "**/*"`, and root
AGENTS.md/CLAUDE.md. Each day has one session of each agent, Claude Code, Codex CLI and Gemini CLI, each its own
payloads (Codex's apply_patch, Gemini's replace and AfterTool), run as `python -m agentctx hook <event> --agent
<name>` processes, as the agents run them: a start, three prompts (one about the repository's own rules, written
for this bench; two real developer prompts from /work/shared/bench/prompts-dev, unrelated to it), four edits.
`init` on day one, `consolidate` at the end of each day. The same week runs against the checkout `--against`
(the current release, e.g. `git archive d1b1b0e`), in a store of its own.

Measured per session, from what the hooks printed to the model (`additionalContext`):
  tokens        all of it, and the share of it that is a rule the agent loads itself ("own")
  always        always-apply rules whose whole text reached an agent that does not load it, of those it should
  nested        edits under web/ at or before which web/AGENTS.md's text reached the agent, of such edits
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROMPTS = Path("/work/shared/bench/prompts-dev/real_prompts.jsonl")
AGENTS = ("claude", "codex", "gemini")

# The repository's rule files (written by hand for this bench, in the shape real repositories' rules have).
RULES = {
    ".claude/rules/migrations.md": ('---\npaths:\n  - "db/migrations/**"\n---\n# Database migrations\n'
                                    "Never edit a migration that has been applied; add a new one with the next "
                                    "number.\nEvery migration has a down step, tested with `make db-roundtrip`.\n"),
    ".claude/rules/api.md": ('---\npaths: ["src/api/**/*.py"]\n---\n# API handlers\n'
                             "Handlers return an ApiError with a stable code, never a bare string.\n"
                             "Validate the request body with the schema in src/api/schemas.py first.\n"),
    ".claude/rules/testing.md": ("# Testing\nRun `make test` before every commit; a new module gets a test module "
                                 "under tests/ mirroring its path.\nTests never reach the network: use the fakes in "
                                 "tests/fakes.py.\n"),
    ".cursor/rules/style.mdc": ("---\ndescription: Code style\nalwaysApply: true\n---\n# Code style\n"
                                "Type hints on every public function; no `print` in library code, use the "
                                "`log` module.\nImports sorted by isort's profile black.\n"),
    ".cursor/rules/react.mdc": ("---\ndescription: React components\nglobs: web/src/**/*.tsx\n---\n"
                                "# React components\nFunction components only; state in hooks, never in class "
                                "fields.\nEvery component has a story in web/stories.\n"),
    ".cursor/rules/release.mdc": ("---\ndescription: Release checklist for publishing a new version\n---\n"
                                  "# Release checklist\n" + "".join(
                                      f"- Step {i}: run the CI upgrade job, check the changelog, then tag.\n"
                                      for i in range(1, 13))),
    ".github/instructions/all.instructions.md": ('---\napplyTo: "**/*"\n---\nWrite commit messages in the '
                                                 "imperative, one line under 72 characters, then a blank line "
                                                 "and the why.\n"),
    "web/AGENTS.md": ("# Web frontend\nComponents use the design tokens from web/src/theme.ts, never raw hex "
                      "colours.\nRun `pnpm lint` in web/ before committing.\n"),
    "AGENTS.md": "# Project\nPython service in src/, React frontend in web/. `make test` runs everything.\n",
    "CLAUDE.md": "# Project\nPython service in src/, React frontend in web/. `make test` runs everything.\n",
}
SOURCES = ["src/api/users.py", "src/api/schemas.py", "src/service.py", "db/migrations/0001_init.sql",
           "web/src/Button.tsx", "web/src/theme.ts", "tests/test_service.py", "README.md"]
# What each agent loads itself, per its documentation (vendor-notes/rule-files.md; outside/native.py decides it
# for the hooks, this list is the bench's own reading of the same facts for sessions started at the root).
LOADS = {"claude": {".claude/rules/migrations.md", ".claude/rules/api.md", ".claude/rules/testing.md"},
         "codex": set(), "gemini": set()}
ALWAYS = (".claude/rules/testing.md", ".cursor/rules/style.mdc", ".github/instructions/all.instructions.md")
# The prompts about the repository's rules (written for this bench), one a day, and the edits of each day.
OWN_PROMPTS = ["how should I add a database migration for the orders table?",
               "what is the release checklist for publishing a new version?",
               "the API handler for users returns a plain string on error, how should it report errors?",
               "add a Button variant to the React components in the web frontend",
               "which design tokens should the web frontend use for colours?"]
EDITS = [["db/migrations/0002_orders.sql", "src/api/users.py", "src/service.py", "web/src/Button.tsx"],
         ["src/api/schemas.py", "web/src/Button.tsx", "tests/test_service.py", "README.md"],
         ["src/api/users.py", "db/migrations/0003_index.sql", "web/src/theme.ts", "src/service.py"],
         ["web/src/Card.tsx", "web/src/Button.tsx", "src/api/users.py", "tests/test_service.py"],
         ["web/src/theme.ts", "src/service.py", "db/migrations/0004_drop.sql", "src/api/schemas.py"]]


def body_lines(rel: str) -> list[str]:
    """A rule's text lines (no frontmatter, no heading): what must reach an agent for its text to have reached."""
    text = RULES[rel]
    if text.startswith("---"):
        text = text.split("---", 2)[2]
    return [ln.strip().lstrip("- ").strip() for ln in text.splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def marker(rel: str) -> str:
    """A piece of a rule's own text no other rule has: how its delivery is recognised in what a hook printed."""
    return body_lines(rel)[0][:48]


def write_repo(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    (root / "Makefile").write_text("test:\n\tpytest\n")
    for rel, text in {**RULES, **{s: "x\n" for s in SOURCES}}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


class Runner:
    """One checkout's `agentctx` in a store of its own, run as the agents run it."""

    def __init__(self, checkout: Path, work: Path, name: str) -> None:
        self.checkout, self.name = checkout, name
        self.home = work / f"home-{name}"
        self.repo = work / f"repo-{name}"
        write_repo(self.repo)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                    "AGENTCTX_HOME": str(self.home / ".agentctx"), "PYTHONPATH": str(checkout),
                    "TMPDIR": str(work / f"tmp-{name}")}
        Path(self.env["TMPDIR"]).mkdir(parents=True)

    def cli(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "agentctx", "-C", str(self.repo), *args], env=self.env,
                              capture_output=True, text=True, timeout=300, cwd=self.repo)
        if done.returncode:
            raise SystemExit(f"{self.name}: agentctx {' '.join(args)} failed: {done.stderr[-800:]}")
        return done.stdout

    def hook(self, event: str, agent: str, payload: dict) -> str:
        done = subprocess.run([sys.executable, "-m", "agentctx", "hook", event, "--agent", agent],
                              input=json.dumps(payload), env=self.env, capture_output=True, text=True, timeout=60,
                              cwd=self.repo)
        out = json.loads(done.stdout) if done.stdout.strip() else {}
        specific = out.get("hookSpecificOutput") if isinstance(out, dict) else None
        text = specific.get("additionalContext") if isinstance(specific, dict) else None
        return text if isinstance(text, str) else ""


def edit_payload(agent: str, repo: Path, rel: str) -> tuple[dict, dict | None]:
    """(the pre-action payload, the post-action one when the agent delivers there) for an edit of `rel`."""
    path = str(repo / rel)
    if agent == "codex":
        patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n-x\n+y\n*** End Patch\n"
        return {"tool_name": "apply_patch", "tool_input": {"command": patch}}, None
    if agent == "gemini":
        pre = {"tool_name": "replace", "tool_input": {"file_path": path, "old_string": "x", "new_string": "y"}}
        return pre, {**pre, "tool_response": {"llmContent": "Successfully modified file.", "returnDisplay": "ok"}}
    return {"tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "x", "new_string": "y"}}, None


def own_tokens(text: str, agent: str) -> int:
    """Tokens of `text` that are rules `agent` loads itself (a block or line holding one's marker or path)."""
    from agentctx.base.tokens import estimate

    marks = [marker(r) for r in LOADS[agent]] + sorted(LOADS[agent])
    total = 0
    for block in text.split("\n\n"):
        if not any(m in block for m in marks):
            continue
        lines = block.splitlines()
        if sum(ln.startswith("- ") for ln in lines) > 1:  # a digest section: only the lines that are such rules
            total += sum(estimate(ln) for ln in lines if any(m in ln for m in marks))
        else:
            total += estimate(block)
    return total


def week(runner: Runner, days: int, prompts: list[str]) -> list[dict]:
    from agentctx.base.tokens import estimate

    runner.cli("init", "--agent", "claude", "--agent", "codex", "--agent", "gemini", "--force")
    sessions = []
    for day in range(days):
        for agent in AGENTS:
            sid = f"{runner.name}-d{day}-{agent}"
            base = {"session_id": sid, "cwd": str(runner.repo), "transcript_path": ""}
            texts = [runner.hook("session-start", agent, {**base, "source": "startup"})]
            asked = [OWN_PROMPTS[day % len(OWN_PROMPTS)], prompts[(2 * day) % len(prompts)],
                     prompts[(2 * day + 1) % len(prompts)]]
            nested = []
            for n, prompt in enumerate(asked):
                texts.append(runner.hook("user-prompt-submit", agent, {**base, "prompt": prompt}))
                for rel in EDITS[day % len(EDITS)][n * 2:n * 2 + 2] if n < 2 else []:
                    pre, post = edit_payload(agent, runner.repo, rel)
                    got = runner.hook("pre-tool-use", agent, {**base, **pre})
                    if post is not None:
                        got += runner.hook("post-tool-use", agent, {**base, **post})
                    texts.append(got)
                    if rel.startswith("web/"):  # reached at or before this edit (once a session, as delivered)
                        nested.append(any(marker("web/AGENTS.md") in t for t in texts))
            seen = "\n".join(texts)
            should = [r for r in ALWAYS if r not in LOADS[agent]]
            sessions.append({"agent": agent, "day": day, "tokens": sum(estimate(t) for t in texts if t),
                             "own": sum(own_tokens(t, agent) for t in texts if t),
                             "always": sum(all(line in seen for line in body_lines(r)) for r in should),
                             "always_of": len(should), "nested": sum(nested), "nested_of": len(nested)})
        runner.cli("consolidate")
    return sessions


def summary(sessions: list[dict]) -> dict[str, object]:
    out: dict[str, object] = {}
    for agent in AGENTS:
        mine = [s for s in sessions if s["agent"] == agent]
        out[f"{agent}_tokens_per_session"] = round(sum(s["tokens"] for s in mine) / max(1, len(mine)), 1)
        out[f"{agent}_own_tokens"] = sum(s["own"] for s in mine)
        out[f"{agent}_always_reached"] = f"{sum(s['always'] for s in mine)}/{sum(s['always_of'] for s in mine)}"
    codex = [s for s in sessions if s["agent"] == "codex"]
    out["codex_nested_reached"] = f"{sum(s['nested'] for s in codex)}/{sum(s['nested_of'] for s in codex)}"
    out["tokens_week"] = sum(s["tokens"] for s in sessions)
    return out


def release(ref: str, work: Path) -> Path:
    """`git archive` of `ref` in this repository, unpacked: the release to compare against."""
    dest = work / f"release-{ref}"
    dest.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", help="a checkout, or a git ref of this repository (git archive), to compare with")
    ap.add_argument("--days", type=int, default=5)
    ap.add_argument("--prompts", default=str(PROMPTS), help="real developer prompts, one JSON object a line")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    try:
        prompts = [json.loads(line)["prompt"] for line in Path(args.prompts).read_text(encoding="utf-8-sig")
                   .splitlines() if line.strip()]
    except (OSError, ValueError, KeyError) as exc:
        print(f"cannot read prompts from {args.prompts}: {exc}", file=sys.stderr)
        return 2
    prompts = [p for p in prompts if 20 <= len(p) <= 2000] or prompts
    work = Path(tempfile.mkdtemp(prefix="agentctx-week-"))
    try:
        runs = {"this": Runner(ROOT, work, "this")}
        if args.against:
            old = Path(args.against)
            runs["release"] = Runner(old if old.is_dir() else release(args.against, work), work, "release")
        results = {name: week(r, args.days, prompts) for name, r in runs.items()}
        for name, sessions in results.items():
            for s in sessions:
                print(f"{name} day {s['day']} {s['agent']}: tokens={s['tokens']} own={s['own']} "
                      f"always={s['always']}/{s['always_of']} nested={s['nested']}/{s['nested_of']}")
        for name, sessions in results.items():
            print(f"{name}: " + " ".join(f"{k}={v}" for k, v in summary(sessions).items()))
        print(" ".join(f"{k}={v}" for k, v in summary(results["this"]).items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
