"""`agentctx import claude-memory`: propose records from Claude Code's auto memory and the project's CLAUDE.md.

Read only: nothing here writes to Claude Code's files (vendor-notes/claude-code-auto-memory.md for the layout).
Each bullet, or each section of prose, becomes one proposal; a topic file with frontmatter (one memory per file,
as Claude Code writes them) becomes one proposal. Proposals already in the store, or imported before (the
ledger `imports/claude-memory-<project>.txt`), are dropped, so a rerun proposes only what is new.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..base import paths
from ..base.models import BODY_MAX, TITLE_MAX

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

SOURCE = "claude_memory"
SANITIZED_MAX = 200  # Claude Code's sanitizePath keeps 200 characters, then appends a hash we cannot recompute
MAX_FILE_BYTES = 256 * 1024
FRONTMATTER_TYPES = {"user": "preference", "feedback": "convention", "project": "decision", "reference": "discovery"}

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+\.md)\)")
OUR_SECTION = "Project memory (agentctx)"  # drift.SECTION without its "## "
_OURS = re.compile(r"\(agentctx \w+ [0-9A-Z]{26}\)")  # a bullet `agentctx sync` wrote into CLAUDE.md
_WORD = re.compile(r"[a-z0-9]+")
_CONVENTION = re.compile(r"^(always|never|use|don'?t|do not|avoid|prefer|keep|run|write|name|put|make sure|must)\b"
                         r"|\b(must|should|always|never)\b", re.I)
_PREFERENCE = re.compile(r"\b(i prefer|prefers?|likes?|wants?|the user|developer prefers)\b", re.I)
_DISCOVERY = re.compile(r"\b(bug|bugs|regression|workaround|gotcha|trap|traps|pitfall|crash\w*)\b", re.I)
_DECISION = re.compile(r"\b(decided|decision|chose|chosen|switched|migrat\w*|instead of|we use|we went with)\b", re.I)


@dataclass(frozen=True)
class Proposal:
    """One record to import, with where it came from."""

    type: str
    title: str
    body: str
    origin: str  # "MEMORY.md:12" or "CLAUDE.md:4"
    key: str     # hash of the normalised text: the import ledger and the dedup key
    rules: bool = False  # from CLAUDE.md or a rules file (what the project states), not Claude's own memory

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "title": self.title, "body": self.body, "origin": self.origin}


# ---- where Claude Code keeps it ----

def sanitize(path: str) -> str:
    """Claude Code's directory name for a path: every character outside [A-Za-z0-9] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def claude_config_home() -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(os.path.expanduser(override)) if override else paths.claude_home()


def canonical_root(root: Path) -> Path:
    """The main work tree of a repository: Claude Code keys auto memory by it, so worktrees share one directory."""
    dot_git = root / ".git"
    if not dot_git.is_file():
        return root
    try:
        text = _read(dot_git).strip()
    except OSError:
        return root
    if not text.startswith("gitdir:"):
        return root
    git_dir = (root / text[len("gitdir:"):].strip()).resolve()
    common = git_dir
    try:
        pointer = _read(git_dir / "commondir").strip()
        if pointer:
            common = (git_dir / pointer).resolve()
    except OSError:
        pass
    return common.parent if common.name == ".git" else root


def _setting_dir(settings_file: Path) -> Path | None:
    try:
        import json

        value = json.loads(_read(settings_file)).get("autoMemoryDirectory")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(value, str) or not value.strip():
        return None
    return Path(os.path.expanduser(value.strip()))


def memory_dir(project_root: Path) -> Path | None:
    """The project's auto memory directory, as Claude Code resolves it, if it exists.

    Order: `autoMemoryDirectory` in the local project settings, then in the user settings (Claude Code ignores it
    in the shared project settings), then `<config home>/projects/<sanitized main work tree>/memory`."""
    home = claude_config_home()
    for settings_file in (project_root / ".claude" / "settings.local.json", home / "settings.json"):
        found = _setting_dir(settings_file)
        if found is not None:
            return found if found.is_dir() else None
    name = sanitize(str(canonical_root(project_root)))
    projects = home / "projects"
    candidate = projects / name / "memory"
    if len(name) <= SANITIZED_MAX:
        return candidate if candidate.is_dir() else None
    prefix = name[:SANITIZED_MAX] + "-"  # long paths end in a hash of Claude Code's runtime: match the prefix
    try:
        matches = sorted(p / "memory" for p in projects.iterdir() if p.name.startswith(prefix))
    except OSError:
        return None
    return next((m for m in matches if m.is_dir()), None)


def rules_files(project_root: Path) -> list[Path]:
    """The project's own CLAUDE.md rules (not the user's ~/.claude/CLAUDE.md, which is not this project's)."""
    found = [project_root / "CLAUDE.md", project_root / ".claude" / "CLAUDE.md", project_root / "CLAUDE.local.md"]
    rules = project_root / ".claude" / "rules"
    if rules.is_dir():
        found += sorted(rules.glob("*.md"))
    return [p for p in found if p.is_file()]


# ---- reading ----

def _read(path: Path) -> str:
    from ..base import safeio

    try:  # files we do not control: regular files only (no FIFO or device behind a link), capped
        return safeio.read_head(str(path), MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _frontmatter(text: str) -> tuple[dict[str, str], str]:
    """`---`-delimited `key: value` lines (nested `metadata:` keys flattened) and the rest of the text."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta = {}
            for line in lines[1:end]:
                key, sep, value = line.strip().partition(":")
                if sep and value.strip():
                    meta[key.strip().lower()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1:])
    return {}, text


def units(text: str) -> list[tuple[int, str, str]]:
    """(line number, section heading, text): one per top-level bullet (with its continuation lines) and one
    per section of prose. Code blocks, tables, HTML comments and `@` imports are left out."""
    out: list[tuple[int, str, str]] = []
    heading = ""
    in_fence = in_comment = False
    bullet: list[str] = []
    bullet_at = 0
    prose: list[str] = []
    prose_at = 0

    def flush_bullet() -> None:
        nonlocal bullet
        if bullet:
            out.append((bullet_at, heading, " ".join(bullet)))
        bullet = []

    def flush_prose() -> None:
        nonlocal prose
        if prose:
            out.append((prose_at, heading, "\n".join(prose)))
        prose = []

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if _FENCE.match(line):
            in_fence = not in_fence
            flush_bullet()
            continue
        if in_fence:
            continue
        if in_comment or line.lstrip().startswith("<!--"):
            in_comment = "-->" not in line
            continue
        stripped = line.strip()
        if not stripped:
            flush_bullet()
            continue
        match = _HEADING.match(line)
        if match:
            flush_bullet()
            flush_prose()
            heading = match.group(1)
            continue
        if stripped.startswith("|") or stripped.startswith("@"):
            continue
        match = _BULLET.match(line)
        if match and len(match.group(1)) < 2:  # a top-level bullet; nested ones continue their parent
            flush_bullet()
            bullet, bullet_at = [match.group(2).strip()], number
        elif bullet:
            bullet.append(match.group(2).strip() if match else stripped)
        else:
            if not prose:
                prose_at = number
            prose.append(stripped)
    flush_bullet()
    flush_prose()
    return out


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("**", "").replace("__", "")).strip()


def _key(text: str) -> str:
    return hashlib.sha256(" ".join(_WORD.findall(text.lower())).encode("utf-8")).hexdigest()[:24]


def _title(text: str, heading: str = "") -> str:
    """The first line when it fits; else cut at the first sentence or clause boundary that leaves 20+ characters."""
    first = _plain(text).split("\n", 1)[0].rstrip(". ")
    if len(first) > TITLE_MAX:
        cuts = [i for stop in (". ", " — ", " - ", "; ", ": ") if 20 <= (i := first.find(stop)) <= TITLE_MAX]
        first = first[: min(cuts)] if cuts else first[: TITLE_MAX - 1].rstrip() + "…"
    if len(first) < 12 and heading:
        first = f"{_plain(heading)}: {first}"
    return first if len(first) <= TITLE_MAX else first[: TITLE_MAX - 1].rstrip() + "…"


def classify(text: str, *, rules: bool) -> str:
    """A record type for one memory: preferences and decisions by their wording, rules (CLAUDE.md, imperative
    bullets) as conventions, anything else as a discovery."""
    if _PREFERENCE.search(text):
        return "preference"
    if _DECISION.search(text):
        return "decision"
    if _DISCOVERY.search(text):  # a trap or a bug someone hit: knowledge, not a rule, even when it says "must"
        return "discovery"
    if rules or _CONVENTION.search(text):
        return "convention"
    return "discovery"


def _proposal(kind: str, text: str, heading: str, origin: str, *, title: str | None = None) -> Proposal | None:
    from ..stash.redact import scrub_text

    text = scrub_text(text.strip())
    if len(_WORD.findall(text.lower())) < 3:  # a bare link, a label: nothing to remember
        return None
    where = f"\n\n(Imported from Claude Code: {origin}{f', section {_plain(heading)}' if heading else ''}.)"
    if len(text) + len(where) > BODY_MAX:  # keep where it came from: the rest is one `--dir` read away
        text = text[: BODY_MAX - len(where) - 1].rstrip() + "…"
    body = text + where
    return Proposal(kind, scrub_text(title) if title else _title(text, heading), body, origin, _key(text))


def _topic(path: Path, label: str) -> list[Proposal]:
    meta, rest = _frontmatter(_read(path))
    if meta.get("name") or meta.get("description"):  # Claude Code's one-memory-per-file format
        kind = FRONTMATTER_TYPES.get(meta.get("type", ""), "")
        text = rest.strip() or meta.get("description", "")
        title = meta.get("description") or meta.get("name", "").replace("-", " ").replace("_", " ")
        found = _proposal(kind or classify(text, rules=False), text, "", label, title=_title(title))
        return [found] if found else []
    return [p for p in (_proposal(classify(t, rules=False), t, h, f"{label}:{n}") for n, h, t in units(rest)) if p]


def propose(project_root: Path, memory: Path | None) -> list[Proposal]:
    """Every proposal from the auto memory directory (MEMORY.md first, then its topic files) and CLAUDE.md."""
    found: list[Proposal] = []
    if memory is not None and memory.is_dir():
        index = memory / "MEMORY.md"
        linked: list[Path] = []
        for number, heading, text in units(_read(index)):
            targets = [memory / m.group(2) for m in _LINK.finditer(text)]
            found_targets = [t for t in targets if t.is_file()]
            if found_targets:  # an index line pointing at a topic file: the file holds the memory
                linked += found_targets
                continue
            text = _LINK.sub(lambda m: m.group(1), text)  # a dangling link: the index line is all there is
            p = _proposal(classify(text, rules=False), text, heading, f"MEMORY.md:{number}")
            if p:
                found.append(p)
        topics = linked + sorted(p for p in memory.glob("*.md") if p.name != "MEMORY.md" and p not in linked)
        for path in dict.fromkeys(topics):
            if path.resolve().parent == memory.resolve():  # never follow a link out of the memory directory
                found += _topic(path, path.name)
    for path in rules_files(project_root):
        label = str(path.relative_to(project_root))
        for number, heading, text in units(_read(path)):
            if heading.strip() == OUR_SECTION or _OURS.search(text):  # what `agentctx sync` wrote: ours already
                continue
            p = _proposal(classify(text, rules=True), text, heading, f"{label}:{number}")
            if p:
                found.append(replace(p, rules=True))
    return found


# ---- dedup and the ledger ----

def ledger_file(project_id: str) -> str:
    return os.path.join(paths.home_dir(), "imports", f"claude-memory-{paths._safe(project_id)}.txt")


def ledger(project_id: str) -> set[str]:
    try:
        with open(ledger_file(project_id), encoding="utf-8") as fh:
            return set(fh.read().split())
    except OSError:
        return set()


def remember(project_id: str, keys: list[str]) -> None:
    path = ledger_file(project_id)
    paths.ensure_private_dir_str(os.path.dirname(path))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        fh.write("".join(k + "\n" for k in keys))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def new_only(proposals: list[Proposal], existing: list[tuple[str, str, str]], imported: set[str]) -> list[Proposal]:
    """Drop proposals imported before, repeated within this run, or already in the store: the same words as a
    record's title or first body paragraph, or a Jaccard similarity >= 0.8 with them (as extraction's dedup), or
    said in other words (memory.paraphrase) by a proposal kept before it. CLAUDE.md's lines are weighed first: a
    memory of Claude's that restates one is dropped, not the line."""
    from ..memory import paraphrase

    seen_keys = set(imported)
    stored = []
    said: list[paraphrase.Statement] = []  # what this run keeps (a stored record's words: known_to_store, with why)
    for title, body, _source in existing:
        first = body.split("\n\n", 1)[0]
        stored.append((_key(first), _key(title), _words(f"{title} {first}")))
    kept_at: dict[int, Proposal] = {}
    order = sorted(range(len(proposals)), key=lambda i: not proposals[i].rules)  # stable: rules first
    for i in order:
        p = proposals[i]
        if p.key in seen_keys:
            continue
        text = p.body.split("\n\n(Imported from Claude Code", 1)[0]
        words = _words(text)
        statement = paraphrase.statement(text)
        duplicate = any(paraphrase.says(known, statement) for known in said)
        for body_key, title_key, stored_words in stored:
            if p.key in (body_key, title_key):
                duplicate = True
                break
            union = words | stored_words
            if union and len(words & stored_words) / len(union) >= 0.8:
                duplicate = True
                break
        if not duplicate:
            kept_at[i] = p
            seen_keys.add(p.key)
            said.append(statement)  # a later memory that restates it is a repeat
    return [kept_at[i] for i in sorted(kept_at)]


def known_to_store(conn: "sqlite3.Connection", project_id: str,
                   proposals: list[Proposal]) -> tuple[list[Proposal], list[tuple[Proposal, str]]]:
    """Proposals no record of the project already states, of any type, current or superseded; and the others with
    why. Matched as `agentctx sync` matches CLAUDE.md lines to records (memory.drift): a proposal that states a
    superseded fact is skipped (importing it would put back what the store replaced), and one a current record
    covers is a duplicate whatever its type."""
    from ..memory import claudemd, drift
    from ..store import records

    if not proposals:
        return [], []
    lines = [claudemd.Line(Path(p.origin), i + 1, p.body.split("\n\n(Imported from Claude Code", 1)[0], "", False)
             for i, p in enumerate(proposals)]
    matcher = drift.Matcher(lines)
    current: dict[int, str] = {}
    stale: dict[int, str] = {}
    for record in records.visible_history(conn, project_id):
        if not matcher.informative(record):
            continue
        m = matcher.match(record)
        if m.score < drift.COVERED or m.line is None:
            continue
        index = m.line.number - 1
        if record.is_current:
            current.setdefault(index, f"already stored as {record.type} {record.id} ({record.title})")
            continue
        head = records.head(conn, record)
        if head.is_current:
            if drift.states_new(matcher, record, head, matcher.units[index]):
                continue  # the line states the new fact: the current record's match speaks for it
            stale[index] = (f"states what {record.id} said before it was superseded by {head.id} ({head.title}): "
                            "`agentctx sync` proposes the CLAUDE.md change")
        else:
            stale.setdefault(index, f"states a retired record {record.id}")
    why = {**current, **stale}
    # What a current record says in other words (memory.paraphrase): "Tests are written with pytest, not unittest"
    # over a record "Use pytest for all tests; never unittest".
    from ..memory import paraphrase

    said = [(r, paraphrase.statement(f"{r.title}. {drift._what(r.body)}"))
            for r in records.current(conn, project_id) if r.type != "profile"]
    for i, line in enumerate(lines):
        if i in why:
            continue
        new = paraphrase.statement(line.text)
        found = next((r for r, known in said if paraphrase.says(known, new)), None)
        if found is not None:
            why[i] = f"already stored as {found.type} {found.id} ({found.title}), in other words"
    kept = [p for i, p in enumerate(proposals) if i not in why]
    return kept, [(proposals[i], reason) for i, reason in sorted(why.items())]


def write(conn: "sqlite3.Connection", project_id: str, proposals: list[Proposal]) -> list[str]:
    """Store the proposals as explicit records (source claude_memory) and add them to the ledger; returns ids."""
    from ..base.models import NewRecord
    from ..store import records

    ids = []
    for p in proposals:
        record, _ = records.insert(conn, NewRecord(type=p.type, title=p.title, body=p.body, project_id=project_id,
                                                   confidence="explicit", source=SOURCE))
        ids.append(record.id)
        remember(project_id, [p.key])  # one at a time: an interrupted import keeps what it wrote
    return ids
