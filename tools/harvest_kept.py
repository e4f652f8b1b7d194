"""Harvest the kept-apart injection sets (kept-adrs.jsonl, kept-prompts.jsonl) from fetched snapshots, locally.

    python tools/harvest_kept.py [--mirror /work/.mirror] [--out DIR] [--check]

The sets are read from other people's repositories at run time and never committed: they go to `--out` (default
$AGENTCTX_KEPT_DIR, else bench/.kept/, which .gitignore keeps out of the tree), where tools/fit_relevance.py and
tests/test_bench_scripts.py look for them (kept_dir() below); without them those readers say so and skip.

Decision records: every ADR Markdown file (a `decisions/` or `adr/` folder) of the repositories in ADR_SOURCES, read
at the snapshot's HEAD: title (its first heading, numbering dropped), status, context, decision and consequences
(Nygard and MADR section names), cut to what the benches use (context 400 characters: the long prompt is its first
300; decision 1,200: the expansion pass sends at most that much of a body). Templates and ADRs without a context or
a decision are left out.

Real prompts: the developer-typed prompts of the logs in PROMPT_SOURCES (aider `.aider.input.history`, Claude Code
UserPromptSubmit hook logs, Codex CLI `.codex/history.jsonl`, Gemini CLI `.gemini/logs.json`, SpecStory
`.specstory/history/` folders of Cursor, VS Code Copilot and Claude Code chats: the `_**User**_` turns of every
Markdown file ever committed there, in name (date) order as one log, files whose session marker names another tool
left out; and Copilot chats copied out as Markdown: the `<login>: ` turns), read from the largest stored version of each file in the snapshot's history, filtered the way
prompts-dev's SOURCES.md describes (slash commands, one-word answers, IDE button text, pasted logs and code, anything
that looks like a secret, address, private site or identifier dropped; home paths replaced by `~`; cut to 600
characters at a word boundary; near-duplicates dropped), at most PER_REPO per repository, sampled evenly across the
log. None of these repositories is one of prompts-dev's 28. From 33 sources (29 repositories give prompts; three
logs have none left after filtering): 270 prompts, cursor 120, claude-code 61, copilot 43, codex 19, aider 15,
gemini 12.

Both files carry provenance on every line (repo, commit, path: for a folder, the file each prompt came from).
Deterministic: same snapshots, same files. `--check`
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
    ("ONSdigital/eq-survey-runner", "docs/architecture/decisions"),
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
    ("asp2131/cka-buddy", "logs/user_prompt_submit.json", "claude-code"),
    ("sapientcoffee/shiptrack", ".gemini/logs.json", "gemini"),
    # SpecStory folders (a path ending in "/"): every Markdown file ever committed under it. Files whose session
    # marker names another tool are skipped; the older format has no marker, and the kind then rests on the
    # repository: a .cursor/ folder and chats that name Cursor with Cursor's `HH-MMZ` titles (cursor), or
    # .github/copilot-instructions.md, chats that name Copilot and its `@agent Continue` buttons (copilot).
    ("edobry/minsky", ".specstory/history/", "cursor"),  # no marker; .cursor/, derived-cursor-rules backups
    ("maloneype/yposfgold-community-platform", ".specstory/history/", "cursor"),  # no marker; .cursor/
    ("learnwithcc/focuslab", ".specstory/history/", "cursor"),  # no marker; .cursor/
    ("VinayakHegde/customer-financial-health", ".specstory/history/", "cursor"),
    ("mehdiihn/policy", ".specstory/history/", "cursor"),  # no marker; .cursor/
    ("Bucur21/PaperBites", ".specstory/history/", "cursor"),
    ("AryanSinCel/StreamList", ".specstory/history/", "cursor"),
    ("enrikademi/opsfleet-assignment", ".specstory/history/", "cursor"),
    ("Hornsyld/economic-bc-connector", ".specstory/history/", "copilot"),
    ("jjgordon89/inkwell-ai-weaver", ".specstory/history/", "copilot"),  # no marker; copilot-instructions.md
    ("4D-Happy-Hour/4d-happy-hour", ".specstory/history/", "copilot"),
    ("barbarachbc/esphome-workshop", ".specstory/history/", "copilot"),
    ("DanCard/cal-date-widget", ".specstory/history/", "claude-code"),  # SpecStory CLI; its Codex/Gemini skipped
    # VS Code Copilot chats copied out as Markdown (`<login>: ...` and `GitHub Copilot: ...` turns).
    ("amcquistan/gen-ai-assisted-amazing-scientist-ui", "copilot-chat.md", "copilot"),
    ("ulises-c/OnShape-DocuReader", "notes/recent-fix.md", "copilot"),
    ("ulises-c/OnShape-DocuReader", "notes/recent-fix2.md", "copilot"),
]
# A SpecStory file's `<!-- NAME Session ... -->` marker, by the kind it means.
SPECSTORY_KINDS = {"cursor": "cursor", "cursoride": "cursor", "cursor ide": "cursor", "vscode": "copilot",
                   "copilotide": "copilot", "copilot": "copilot", "claude code": "claude-code",
                   "codex cli": "codex", "gemini cli": "gemini"}
PER_REPO = 15
MAX_CHARS = 600
CONTEXT_CHARS = 400
DECISION_CHARS = 1_200

_SECRETISH = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+|\b(?:sk|pk|ghp|gho|xox[abp]|AKIA)[-_A-Za-z0-9]{8,}|\b[0-9a-f]{8}-[0-9a-f]{4}-"
    r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|password\s*[=:]|token\s*[=:]|\b[A-Za-z0-9_-]{32,}\b"
    r"|\+?\d[\d -]{9,}\d|\w+@[\w-]+:", re.I)
_HOME = re.compile(r"(/Users/|/home/|C:\\Users\\)[^/\\\s]+")
_SPECSTORY_TURN = re.compile(r"^_\*\*(User|Assistant|Agent)\b[^\n]*\*\*_[ \t]*$", re.M)
_SPECSTORY_MARKER = re.compile(r"<!--\s*([\w ]+?)\s+Session\b", re.I)
# Text an IDE types for the developer (Copilot's continue button, Cursor's plan, fix and browser-selection buttons).
_BUTTONS = ("@agent ", "Implement the plan as specified", "For the code present, we get this error", "DOM Path:")
# A log or JSON pasted on one line (two `file.ext:line` references, or a leading bracket), a local drive path.
_PASTED = re.compile(r"^\s*[\[{]|(?:\.\w{1,4}:\d+\b.*){2}|\b[A-Za-z]:\\")
# Addresses other than these (the project's own machine, code hosts, documentation) may name a person's site.
_URL_HOST = re.compile(r"(?:https?://|www\.)([\w.-]+)", re.I)
_PUBLIC_HOSTS = re.compile(r"(?:^|\.)(?:localhost|github\.com|gitlab\.com|githubusercontent\.com|npmjs\.com|pypi\.org|"
                           r"stackoverflow\.com|readthedocs\.io|mozilla\.org|microsoft\.com|python\.org)$"
                           r"|^(?:docs|developer|developers)\.", re.I)
_SECTION = re.compile(r"^#{2,3}\s+(.+?)\s*$", re.M)


def _git(repo_dir: Path, *args: str) -> str:
    # errors="replace": a log committed in another encoding must not stop the harvest (such prompts then fail the
    # filters or read with a replacement character, never crash).
    return subprocess.run(["git", "-C", str(repo_dir), *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def _mirror(mirror: Path, repo: str) -> Path:
    return mirror / repo.replace("/", "+") / "repo"


def _sections(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    parts = _SECTION.split(text)
    for name, body in zip(parts[1::2], parts[2::2]):
        key = name.strip().lower()
        body = body.strip()
        if body:
            out.setdefault(key, body)
    return out


def _clean(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit]


def _pick(sections: dict[str, str], *names: str) -> str:
    for key, body in sections.items():
        if any(key.startswith(n) for n in names):
            return body
    return ""


def adrs(mirror: Path) -> list[dict]:
    rows = []
    for repo, folder in ADR_SOURCES:
        git_dir = _mirror(mirror, repo)
        commit = _git(git_dir, "rev-parse", "HEAD").strip()
        listed = _git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", folder).splitlines()
        files = sorted(f for f in listed if f.endswith(".md") and "template" not in f.lower()
                       and not f.lower().endswith(("readme.md", "index.md")))
        for path in files:
            text = _git(git_dir, "show", f"{commit}:{path}")
            head = re.search(r"^#\s+(.+)$", text, re.M)
            if not head:
                continue
            title = re.sub(r"^(ADR[- ]?)?\d+[.:)]?\s*[-:]?\s*", "", head.group(1).strip(), flags=re.I).strip()
            sections = _sections(text)
            context = _pick(sections, "context")
            decision = _pick(sections, "decision")
            if not title or not context or not decision:
                continue
            status = _pick(sections, "status").splitlines()[0] if _pick(sections, "status") else ""
            rows.append({"id": f"{repo}:{path}", "repo": repo, "commit": commit, "path": path, "title": title,
                         "status": _clean(status, 80), "context": _clean(context, CONTEXT_CHARS),
                         "decision": _clean(decision, DECISION_CHARS),
                         "consequences": _clean(_pick(sections, "consequences"), 300)})
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


def _specstory_kind(text: str) -> str | None:
    """The kind a SpecStory file's session marker names ("" without a marker, None for a tool we don't know)."""
    found = _SPECSTORY_MARKER.search(text[:2_000])
    return SPECSTORY_KINDS.get(" ".join(found.group(1).lower().split())) if found else ""


def _specstory_turns(text: str) -> list[str]:
    """The developer's turns of a SpecStory Markdown export: the text under each `_**User**_` heading (with or
    without a time), up to the next `---` rule or turn heading."""
    out = []
    parts = _SPECSTORY_TURN.split(text)
    for who, body in zip(parts[1::2], parts[2::2]):
        if who == "User":
            out.append(re.split(r"^---[ \t]*$", body, maxsplit=1, flags=re.M)[0].strip())
    return out


def _copilot_turns(text: str) -> list[str]:
    """The developer's turns of a VS Code Copilot chat copied out as text: each `<login>: ...` paragraph run up to the
    next `GitHub Copilot:` line (the login is the one speaker other than Copilot that starts those turns)."""
    speakers = re.findall(r"^([A-Za-z0-9][\w.-]*): ", text, re.M)
    logins = sorted((w for w in set(speakers) if w != "Copilot"
                     and re.search(rf"^{re.escape(w)}: .*?^GitHub Copilot: ", text, re.M | re.S)),
                    key=lambda w: (-speakers.count(w), w))
    if not logins:
        return []
    login = logins[0]
    turns = re.split(rf"^(?={re.escape(login)}: |GitHub Copilot: )", text, flags=re.M)
    return [t[len(login) + 2:].strip() for t in turns if t.startswith(login + ": ")]


def _raw_prompts(text: str, path: str) -> list[str]:
    if path.endswith(".md"):
        return _copilot_turns(text) if re.search(r"^GitHub Copilot: ", text, re.M) else _specstory_turns(text)
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
    if not p or p.startswith(("/", "!", "<command", "<task", "Caveat:", "[Request interrupted", "<local-command")
                             + _BUTTONS) or "<command-" in p:
        return None
    if len(p) < 8 or p.lower() in {"yes", "no", "y", "n", "exit", "clear", "continue", "go ahead", "ok", "proceed"}:
        return None
    if p.count("\n") > 6 or "Traceback" in p or "```" in p or _SECRETISH.search(p):
        return None
    if "This session is being continued" in p or p.startswith("#"):
        return None
    p = _HOME.sub("~", p)
    if _PASTED.search(p) or not all(_PUBLIC_HOSTS.search(h.rstrip(".")) for h in _URL_HOST.findall(p)):
        return None
    return _clean(p, MAX_CHARS)


def _norm(p: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", p.lower()).split())


def _log(git_dir: Path, path: str, kind: str) -> list[tuple[str, str, str]]:
    """(raw prompt, its file, the commit read) in log order. A folder (path ending in "/") is every Markdown file
    ever committed under it, each at its largest stored version, read in name order (SpecStory names begin with
    the date) as one log; files whose session marker names another kind are left out."""
    if not path.endswith("/"):
        text, commit = _largest_version(git_dir, path)
        return [(raw, path, commit) for raw in _raw_prompts(text, path)]
    names = _git(git_dir, "log", "--all", "--format=", "--name-only", "--", path).splitlines()
    out = []
    for name in sorted({n for n in names if n.endswith(".md")}):
        text, commit = _largest_version(git_dir, name)
        if text and _specstory_kind(text) in ("", kind):
            out += [(raw, name, commit) for raw in _raw_prompts(text, name)]
    return out


def prompts(mirror: Path, avoid: list[str]) -> list[dict]:
    rows: list[dict] = []
    seen = [_norm(p) for p in avoid]
    for repo, path, kind in PROMPT_SOURCES:
        kept: list[tuple[str, str, str]] = []
        for raw, name, commit in _log(_mirror(mirror, repo), path, kind):
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
            kept.append((p, name, commit))
        if len(kept) > PER_REPO:  # evenly across the log
            kept = [kept[round(i * (len(kept) - 1) / (PER_REPO - 1))] for i in range(PER_REPO)]
        rows += [{"prompt": p, "source_repo": repo, "source_path": name, "commit": commit, "kind": kind}
                 for p, name, commit in kept]
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
