"""Harvest the kept-apart injection sets (kept-adrs.jsonl, kept-prompts.jsonl) from fetched snapshots, locally.

    python tools/harvest_kept.py [--mirror /work/.mirror] [--out DIR] [--check]

The sets are read from other people's repositories at run time and never committed: they go to `--out` (default
$AGENTCTX_KEPT_DIR, else bench/.kept/, which .gitignore keeps out of the tree), where tools/fit_relevance.py and
tests/test_bench_scripts.py look for them (kept_dir() below); without them those readers say so and skip.

Decision records: every ADR Markdown file in the folder ADR_SOURCES names for each of its 20 repositories (UK/US
government services, open-source products and frameworks: Home Assistant, MADR, the Guardian's dotcom-rendering,
Brighter, Hydra, Unleash, IBC, Hermes, ...), read at the snapshot's HEAD: title (its first `#` heading, else the YAML
front matter's `title`; numbering and "ADR:" dropped), status (its section, else the front matter's), context
(Context, MADR's "Context and Problem Statement", Background), decision (MADR's "Decision Outcome", else Decision,
else Proposal; never MADR's drivers or considered options) and consequences. A section runs to the next heading of
its level, its sub-headings included unless they name a section of their own (MADR's "### Consequences"); headings
in code blocks are not headings. Cut to what the benches use (context 400 characters: the long prompt is its first
300; decision 1,200: the expansion pass sends at most that much of a body). Templates, records still holding
template text, and records without a title, a decision or a context of 40 characters are left out.

Real prompts: the developer-typed prompts of the logs in PROMPT_SOURCES (aider `.aider.input.history`, Claude Code
UserPromptSubmit hook logs, Codex CLI `.codex/history.jsonl`, Gemini CLI `.gemini/logs.json`), read from the largest
stored version of the file in the snapshot's history, filtered the way prompts-dev's SOURCES.md describes (slash
commands, one-word answers, pasted logs and code, anything that looks like a secret, address or identifier dropped;
home paths replaced by `~`; cut to 600 characters at a word boundary; near-duplicates dropped), at most PER_REPO per
repository, sampled evenly across the log. None of these repositories is one of prompts-dev's 28.

Both files carry provenance on every line (repo, commit, path). Deterministic: same snapshots, same files. `--check`
exits 1 when the harvested files in `--out` are missing or differ from what the snapshots give (skipped, exit 0,
without a mirror).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kept_dir() -> Path:
    """Where the harvested sets live: $AGENTCTX_KEPT_DIR, else bench/.kept/ (ignored by git)."""
    return Path(os.environ.get("AGENTCTX_KEPT_DIR") or ROOT / "bench" / ".kept")


# (repository, its ADR folder)
ADR_SOURCES = [
    ("alphagov/govuk-aws", "docs/architecture/decisions"),
    ("alphagov/govuk-infrastructure", "docs/architecture/decisions"),
    ("GSA-TTS/FAC", "docs/architecture/decisions"),
    ("cisagov/manage.get.gov", "docs/architecture/decisions"),
    ("DFE-Digital/buy-for-your-school", "doc/architecture/decisions"),
    ("Green-Software-Foundation/carbon-aware-sdk", "casdk-docs/docs/architecture/decisions"),
    ("LBHackney-IT/report-a-defect", "doc/architecture/decisions"),
    ("bitzesty/qae", "doc/architecture/decisions"),
    ("DFE-Digital/get-an-identity", "docs/architecture/decisions"),
    ("ONSdigital/eq-survey-runner", "doc/architecture/decisions"),
    ("home-assistant/architecture", "adr"),
    ("adr/madr", "docs/decisions"),
    ("guardian/dotcom-rendering", "dotcom-rendering/docs/architecture"),
    ("BrighterCommand/Brighter", "docs/adr"),
    ("cardano-scaling/hydra", "docs/adr"),
    ("SmartBear/git-en-boite", "doc/adr"),
    ("Unleash/unleash", "contributing/ADRs"),
    ("arachne-framework/architecture", "."),
    ("cosmos/ibc-go", "docs/architecture"),
    ("informalsystems/hermes", "docs/architecture"),
]
# (repository, log path, kind)
PROMPT_SOURCES = [
    ("JoshuaOliphant/ClimateHome", "logs/user_prompt_submit.json", "claude-code"),
    ("odenlerma/pawfriends", "logs/user_prompt_submit.json", "claude-code"),
    ("conneroisu/templar", "logs/user_prompt_submit.json", "claude-code"),
    ("blueman82/weather-oracle", "logs/user_prompt_submit.json", "claude-code"),
    ("imjoshnewton/chicken-tracker-t3", "apps/mobile/logs/user_prompt_submit.json", "claude-code"),
    ("chenguang-workspace/food-order-app", "logs/user_prompt_submit.json", "claude-code"),
    ("BeauCranston/car-game", ".aider.input.history", "aider"),
    ("AndrewJacop/doc_processor", ".aider.input.history", "aider"),
    ("BorisHrzenjak/QuickDraw", ".aider.input.history", "aider"),
    ("Abhisekpm/JobSpeak", ".aider.input.history", "aider"),
    ("borfast/cooking-times", ".codex/history.jsonl", "codex"),
    ("Kooksun/Lotto645", ".codex/history.jsonl", "codex"),
    ("aneesh199608/dslint", ".codex/history.jsonl", "codex"),
    ("MikeLockz/el-dorado-tanstack", ".codex/history.jsonl", "codex"),
    ("ilteris/ah-ha", ".gemini/logs.json", "gemini"),
]
PER_REPO = 15
MAX_CHARS = 600
CONTEXT_CHARS = 400
DECISION_CHARS = 1_200
MIN_CONTEXT = 40  # a shorter context (an unfinished record) makes no prompt

_SECRETISH = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|\b(?:sk|pk|ghp|gho|xox[abp]|AKIA)[-_A-Za-z0-9]{8,}|\b[0-9a-f]{8}-[0-9a-f]{4}-"
    r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|password\s*[=:]|token\s*[=:]|\b[A-Za-z0-9_-]{32,}\b"
    r"|\+?\d[\d -]{9,}\d|\w+@[\w-]+:", re.I)
_HOME = re.compile(r"(/Users/|/home/|C:\\Users\\)[^/\\\s]+")
_HEADING = re.compile(r"^(#{2,3})[ \t]+(.+?)[ \t#]*$", re.M)
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\n(.*?)\n---[ \t]*\n", re.S)
# "12. Use X", "ADR-012: Use X", "ADR: Use X", "Architecture Decision Record: Use X", "6 Use X" -> "Use X"
# (but "3rd-party X" stays)
_NUMBERING = re.compile(r"^(?:ADR(?![a-z])|Architecture Decision Record(?![a-z]))?[\s\-\u2013\u2014]*"
                        r"(?:\d+(?=[\s.:)\-\u2013\u2014]|$))?[\s.:)\-\u2013\u2014]*", re.I)
# a sub-heading naming one of these starts its own section (MADR's "### Consequences" under "## Decision Outcome")
_OWN_SECTIONS = ("context", "decision", "consequences", "status", "confirmation", "pros and cons", "considered options",
                 "more information", "positive consequences", "negative consequences", "links")
# text left in from an ADR template (Nygard's and MADR's prompts to the writer)
_TEMPLATE = re.compile(r"what is the issue that we're seeing|what is the change that we're proposing|"
                       r"\{(?:describe|short title|problem statement|title of solved problem)|"
                       r"\[describe (?:the|context)", re.I)


def _git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo_dir), *args], capture_output=True, text=True, check=True).stdout


def _mirror(mirror: Path, repo: str) -> Path:
    return mirror / repo.replace("/", "+") / "repo"


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML front matter's plain `key: value` lines (a `|`/`>` block's indented lines joined), and the text after it."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    meta: dict[str, str] = {}
    key = ""
    for line in m.group(1).splitlines():
        kv = re.match(r"^([A-Za-z][\w-]*):\s*(.*)$", line)
        if kv:
            key, value = kv.group(1).lower(), kv.group(2).strip()
            meta[key] = "" if value in ("|", ">", "|-", ">-") else value.strip("\"'")
        elif key and line.startswith((" ", "\t")) and line.strip():
            meta[key] = (meta[key] + " " + line.strip()).strip()
    return meta, text[m.end():]


def _outside_fences(text: str, matches: list[re.Match]) -> list[re.Match]:
    fences = [(f.start(), f.end()) for f in _FENCE.finditer(text)]
    return [m for m in matches if not any(a <= m.start() < b for a, b in fences)]


def _sections(text: str) -> dict[str, str]:
    """Heading (lower case) -> its text, sub-headings included up to one that names a section of its own."""
    out: dict[str, str] = {}
    heads = _outside_fences(text, list(_HEADING.finditer(text)))
    for i, head in enumerate(heads):
        level = len(head.group(1))
        end = len(text)
        for later in heads[i + 1:]:
            if len(later.group(1)) <= level or later.group(2).strip().lower().startswith(_OWN_SECTIONS):
                end = later.start()
                break
        body = text[head.end():end]
        body = re.sub(r"<!--.*?-->", " ", body, flags=re.S)
        body = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", body)  # an image: its alt text (status badges say "Accepted")
        # a line that is only a label and a link ("**Parent Requirement**: [spec](...)") is a pointer, not text
        body = re.sub(r"^\*\*[^*\n]+\*\*:?[ \t]*\[[^\]\n]*\]\([^)\n]*\)[ \t]*$", " ", body, flags=re.M)
        body = re.sub(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", lambda m: m.group(1).rstrip(":") + ":", body, flags=re.M).strip()
        key = " ".join(head.group(2).strip().strip("*_").lower().split())
        if body:
            out.setdefault(key, body)
        elif ":" in key:  # "## Status: Accepted"
            name, _, value = key.partition(":")
            out.setdefault(name.strip(), value.strip())
    return out


def _clean(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


def _pick(sections: dict[str, str], *names: str) -> str:
    """The first section (in file order) whose heading starts with names[0], else names[1], ...; never MADR's
    "Decision Drivers" or "Decision Makers"."""
    for name in names:
        for key, body in sections.items():
            if key.startswith(name) and not key.startswith(("decision driver", "decision maker", "decision-maker")):
                return body
    return ""


def parse_adr(text: str) -> dict | None:
    """Title, status, context, decision and consequences of one ADR (Nygard or MADR), or None when it lacks one of
    title, context and decision or still holds template text."""
    meta, body = _front_matter(text.replace("\r\n", "\n"))
    head = next(iter(_outside_fences(body, list(re.finditer(r"^#[ \t]+(.+?)[ \t#]*$", body, re.M)))), None)
    title = head.group(1).strip() if head else meta.get("title", "")
    title = _NUMBERING.sub("", title.strip("*_ ")).strip()
    sections = _sections(body)
    context = _pick(sections, "context", "background", "problem statement", "problem")
    # MADR: the outcome is the decision; its drivers and considered options are not
    decision = _pick(sections, "decision outcome", "decision", "proposal")
    if not title or len(_clean(context, CONTEXT_CHARS)) < MIN_CONTEXT or not decision \
            or _TEMPLATE.search(context + " " + decision):
        return None
    status = _pick(sections, "status") or meta.get("status", "")
    status = status.splitlines()[0].strip("*_- ") if status else ""
    return {"title": title, "status": _clean(status, 80),
            "context": _clean(context, CONTEXT_CHARS), "decision": _clean(decision, DECISION_CHARS),
            "consequences": _clean(_pick(sections, "consequences"), 300)}


def adrs(mirror: Path) -> list[dict]:
    rows = []
    for repo, folder in ADR_SOURCES:
        git_dir = _mirror(mirror, repo)
        commit = _git(git_dir, "rev-parse", "HEAD").strip()
        listed = _git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", folder).splitlines()
        files = sorted(f for f in listed if f.endswith(".md") and "template" not in f.lower()
                       and not f.lower().endswith(("readme.md", "index.md")))
        for path in files:
            adr = parse_adr(_git(git_dir, "show", f"{commit}:{path}"))
            if adr is not None:
                rows.append({"id": f"{repo}:{path}", "repo": repo, "commit": commit, "path": path, **adr})
    return rows


def _largest_version(git_dir: Path, path: str) -> tuple[str, str]:
    best, best_commit = "", ""
    for commit in _git(git_dir, "log", "--all", "--format=%H", "--", path).split():
        try:
            text = _git(git_dir, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            continue
        if len(text) > len(best):
            best, best_commit = text, commit
    return best, best_commit


def _raw_prompts(text: str, path: str) -> list[str]:
    if path.endswith(".aider.input.history"):
        out, cur = [], []
        for line in text.splitlines():
            if line.startswith("+"):
                cur.append(line[1:])
            elif cur:
                out.append("\n".join(cur))
                cur = []
        if cur:
            out.append("\n".join(cur))
        return out
    if path.endswith(".jsonl"):
        out = []
        for line in text.splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("text"), str):
                out.append(obj["text"])
        return out
    data = json.loads(text)
    if path.endswith("logs.json"):  # Gemini CLI
        return [m["message"] for m in data if isinstance(m, dict) and m.get("type") == "user"
                and isinstance(m.get("message"), str)]
    return [m["prompt"] for m in data if isinstance(m, dict) and isinstance(m.get("prompt"), str)]


def _keep(prompt: str) -> str | None:
    p = re.sub(r"<ide_[a-z_]+>.*?</ide_[a-z_]+>", " ", prompt, flags=re.S).strip()
    if not p or p.startswith(("/", "!", "<command", "<task", "Caveat:", "[Request interrupted")) or "<command-" in p:
        return None
    if len(p) < 8 or p.lower() in {"yes", "no", "y", "n", "exit", "clear", "continue", "go ahead", "ok", "proceed"}:
        return None
    if p.count("\n") > 6 or "Traceback" in p or "```" in p or _SECRETISH.search(p):
        return None
    if "This session is being continued" in p or p.startswith("#"):
        return None
    p = _HOME.sub("~", p)
    return _clean(p, MAX_CHARS)


def _norm(p: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", p.lower()).split())


def prompts(mirror: Path, avoid: list[str]) -> list[dict]:
    rows: list[dict] = []
    seen = [_norm(p) for p in avoid]
    for repo, path, kind in PROMPT_SOURCES:
        git_dir = _mirror(mirror, repo)
        text, commit = _largest_version(git_dir, path)
        kept: list[str] = []
        for raw in _raw_prompts(text, path):
            p = _keep(raw)
            if p is None:
                continue
            n = _norm(p)
            if not n or any(n[:60] == s[:60] or (len(n) < 200 and n in s) or (len(s) < 200 and s in n)
                            for s in seen):
                continue
            if any(difflib.SequenceMatcher(None, n, s).ratio() > 0.85 for s in seen[-400:]):
                continue
            seen.append(n)
            kept.append(p)
        if len(kept) > PER_REPO:  # evenly across the log
            kept = [kept[round(i * (len(kept) - 1) / (PER_REPO - 1))] for i in range(PER_REPO)]
        rows += [{"prompt": p, "source_repo": repo, "source_path": path, "commit": commit, "kind": kind}
                 for p in kept]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", default="/work/.mirror")
    parser.add_argument("--out", default=None, help="where to write the sets (default: $AGENTCTX_KEPT_DIR or "
                                                       "bench/.kept/)")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    mirror = Path(args.mirror)
    out = Path(args.out) if args.out else kept_dir()
    if not mirror.is_dir():
        print(f"no mirror at {mirror}: nothing to harvest")
        return 0
    dev = ROOT.parent / "shared" / "bench" / "prompts-dev" / "real_prompts.jsonl"
    avoid = [json.loads(l)["prompt"] for l in dev.open(encoding="utf-8")] if dev.exists() else []
    files = {"kept-adrs.jsonl": adrs(mirror), "kept-prompts.jsonl": prompts(mirror, avoid)}
    bad = 0
    for name, rows in files.items():
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        path = out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path} is not what the snapshots give")
                bad = 1
        else:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}: {len(rows)} rows")
    return bad


if __name__ == "__main__":
    sys.exit(main())
