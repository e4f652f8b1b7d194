"""What is in an agent's own memory file: one Unit per remembered fact (its file, line and whether the agent loads it
into every session), read bounded and split as Markdown; where each agent keeps the files is `outside.memdirs`.

Read only, bounded: regular files only (no FIFO or device behind a link), at most MAX_FILE_BYTES of each, at most
MAX_FILES files of a directory; what had to be cut or refused is reported in `problems`, never raised.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..base.models import TITLE_MAX

MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 200  # topic files read from one memory directory (a directory of 10,000 files is cut, and said so)
FRONTMATTER_TYPES = {"user": "preference", "feedback": "convention", "project": "decision", "reference": "discovery"}
OUR_SECTION = "Project memory (agentctx)"  # outside.drift.SECTION without its "## "
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+\.md)\)")
OURS = re.compile(r"\(agentctx \w+ [0-9A-Z]{26}\)")  # a bullet `agentctx sync` wrote
_WORD = re.compile(r"[a-z0-9]+")
_CONVENTION = re.compile(r"^(always|never|use|don'?t|do not|avoid|prefer|keep|run|write|name|put|make sure|must)\b"
                         r"|\b(must|should|always|never)\b", re.I)
_PREFERENCE = re.compile(r"\b(i prefer|prefers?|likes?|wants?|the user|developer prefers)\b", re.I)
_DISCOVERY = re.compile(r"\b(bug|bugs|regression|workaround|gotcha|trap|traps|pitfall|crash\w*)\b", re.I)
_DECISION = re.compile(r"\b(decided|decision|chose|chosen|switched|migrat\w*|instead of|we use|we went with)\b", re.I)

AGENT_FILES = {"claude": "Claude Code's auto memory", "codex": "Codex's memories", "gemini": "Gemini CLI's memory"}


@dataclass(frozen=True)
class Unit:
    """One remembered fact in an agent's own file."""

    agent: str
    path: str
    line: int
    text: str
    heading: str = ""
    scope: str = "project"  # "global": a personal fact the agent keeps for every project
    loaded: bool = False  # the agent puts it in front of its model at every session start
    kind: str = ""  # a record type the file itself states (Claude Code's frontmatter `type`)
    title: str = ""

    @property
    def hash(self) -> str:
        return key(self.text)

    @property
    def origin(self) -> str:
        return f"{Path(self.path).name}:{self.line}"


@dataclass
class Found:
    """What one agent's memory holds for a project: its units, the files read, whether it is on, what went wrong."""

    agent: str
    on: bool
    units: list[Unit] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    where: str = ""


# ---- text ----

def read(path: Path, problems: list[str], limit: int = MAX_FILE_BYTES) -> str:
    """A file we do not control, as text: a regular file only, at most `limit` bytes, undecodable bytes replaced."""
    from ..base import safeio

    try:
        data = safeio.read_head(str(path), limit + 1)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        problems.append(f"{path}: not read ({exc.strerror or exc})")
        return ""
    if len(data) > limit:
        problems.append(f"{path}: larger than {limit // 1024} KiB, only its start was read")
        data = data[:limit]
    text = data.decode("utf-8", errors="replace")
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        problems.append(f"{path}: not valid UTF-8, undecodable bytes replaced")
    return text


def read_in(directory: Path, name: str, problems: list[str]) -> str:
    """`directory/name` as `read` does, but only when the file really lies in `directory` (SPEC §3.10): a `MEMORY.md`
    that is a link to a file elsewhere is refused and said so, never followed."""
    path = directory / name
    try:
        if not path.is_file():
            return ""
        if path.resolve().parent != directory.resolve():
            problems.append(f"{path}: a link out of {directory}, not followed")
            return ""
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on older Pythons
        problems.append(f"{path}: not read ({getattr(exc, 'strerror', None) or exc})")
        return ""
    return read(path, problems)


def frontmatter(text: str) -> tuple[dict[str, str], str, int]:
    """`---`-delimited `key: value` lines (nested keys flattened), the rest of the text and the line it starts at."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, min(len(lines), 200)):
        if lines[end].strip() == "---":
            meta = {}
            for line in lines[1:end]:
                name, sep, value = line.strip().partition(":")
                if sep and value.strip():
                    meta[name.strip().lower()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1:]), end + 1
    return {}, text, 0


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


def plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("**", "").replace("__", "")).strip()


def key(text: str) -> str:
    """The identity of a fact's text: its words, lower case (spacing, case and punctuation aside)."""
    return hashlib.sha256(" ".join(_WORD.findall(text.lower())).encode("utf-8")).hexdigest()[:24]


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def title(text: str, heading: str = "") -> str:
    """The first line when it fits; else cut at the first sentence or clause boundary that leaves 20+ characters."""
    first = plain(text).split("\n", 1)[0].rstrip(". ")
    if len(first) > TITLE_MAX:
        cuts = [i for stop in (". ", " — ", " - ", "; ", ": ") if 20 <= (i := first.find(stop)) <= TITLE_MAX]
        first = first[: min(cuts)] if cuts else first[: TITLE_MAX - 1].rstrip() + "…"
    if len(first) < 12 and heading:
        first = f"{plain(heading)}: {first}"
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
