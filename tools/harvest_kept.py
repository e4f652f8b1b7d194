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

Every repository of ../shared/bench/kept-apart-repos.txt is left out of both sets (`kept_apart`: the lead's
kept-apart checks use them; eleven earlier sources joined that list and are no longer named here, so the sets
now hold 16 decision repositories, 407 records, and 210 prompts of 23 repositories).
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
    ("GSA-TTS/FAC", "docs/architecture/decisions"),
    ("cisagov/manage.get.gov", "docs/architecture/decisions"),
    ("DFE-Digital/buy-for-your-school", "doc/architecture/decisions"),
    ("Green-Software-Foundation/carbon-aware-sdk", "casdk-docs/docs/architecture/decisions"),
    ("LBHackney-IT/report-a-defect", "doc/architecture/decisions"),
    ("bitzesty/qae", "doc/architecture/decisions"),
    ("DFE-Digital/get-an-identity", "docs/architecture/decisions"),
    ("ONSdigital/eq-survey-runner", "doc/architecture/decisions"),
    ("home-assistant/architecture", "adr"),
    ("guardian/dotcom-rendering", "dotcom-rendering/docs/architecture"),
    ("BrighterCommand/Brighter", "docs/adr"),
    ("cardano-scaling/hydra", "docs/adr"),
    ("SmartBear/git-en-boite", "doc/adr"),
    ("Unleash/unleash", "contributing/ADRs"),
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
    ("learnwithcc/focuslab", ".specstory/history/", "cursor"),  # no marker; .cursor/
    ("VinayakHegde/customer-financial-health", ".specstory/history/", "cursor"),
    ("mehdiihn/policy", ".specstory/history/", "cursor"),  # no marker; .cursor/
    ("AryanSinCel/StreamList", ".specstory/history/", "cursor"),
    ("enrikademi/opsfleet-assignment", ".specstory/history/", "cursor"),
    ("Hornsyld/economic-bc-connector", ".specstory/history/", "copilot"),
    ("jjgordon89/inkwell-ai-weaver", ".specstory/history/", "copilot"),  # no marker; copilot-instructions.md
    ("4D-Happy-Hour/4d-happy-hour", ".specstory/history/", "copilot"),
    ("barbarachbc/esphome-workshop", ".specstory/history/", "copilot"),
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


def _git(repo_dir: Path, *args: str) -> str:
    # errors="replace": a log committed in another encoding must not stop the harvest (such prompts then fail the
    # filters or read with a replacement character, never crash).
    return subprocess.run(["git", "-C", str(repo_dir), *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def kept_apart(path: Path | None = None) -> frozenset[str]:
    """The repositories of ../shared/bench/kept-apart-repos.txt (lower case): the lead's kept-apart checks use them, so
    they are never harvested for fitting or development (some of the sources below joined that list later)."""
    path = path or ROOT.parent / "shared" / "bench" / "kept-apart-repos.txt"
    if not path.is_file():
        return frozenset()
    return frozenset(line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))


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
    apart = kept_apart()
    for repo, folder in ADR_SOURCES:
        if repo.lower() in apart:
            continue
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
    apart = kept_apart()
    for repo, path, kind in PROMPT_SOURCES:
        if repo.lower() in apart:
            continue
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
