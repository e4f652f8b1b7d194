"""CLAUDE.md files as Claude Code loads them: root and .claude/CLAUDE.md plus their @-imports, split into lines; and
the other agents' instruction files at the repository root (AGENTS.md for Codex, GEMINI.md for Gemini CLI)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Claude Code follows imports at most five hops deep (code.claude.com/docs/en/memory; vendor-notes/claude-md-imports.md).
MAX_DEPTH = 5
MAX_FILES = 40
MAX_BYTES = 256 * 1024
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")
# An import is `@path` at the start of a line or after whitespace (so e-mail addresses are not imports).
_IMPORT = re.compile(r"(?:^|(?<=[\s(\[]))@([~./A-Za-z0-9_][^\s`'\"()\[\]<>]*)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True)
class MemoryFile:
    """One file Claude Code would load, and at which import depth (0 = a root CLAUDE.md)."""

    path: Path
    text: str
    depth: int


@dataclass(frozen=True)
class Line:
    """A non-blank line of a memory file with the heading it sits under."""

    path: Path
    number: int  # 1-based
    text: str
    heading: str
    in_code: bool


def roots(project_root: Path) -> list[Path]:
    """The project memory files Claude Code reads at the repository root, in its order."""
    return [project_root / "CLAUDE.md", project_root / ".claude" / "CLAUDE.md"]


# Each instruction file `agentctx sync` keeps in step: the root files its agent reads, and whether the agent follows
# `@path` imports in it (Claude Code and Gemini CLI do; Codex reads AGENTS.md as it is). vendor-notes/codex-cli.md,
# gemini-cli.md.
INSTRUCTION_FILES = {
    "CLAUDE.md": (roots, True),
    "AGENTS.md": (lambda root: [root / "AGENTS.md"], False),
    "GEMINI.md": (lambda root: [root / "GEMINI.md"], True),
}


def _read(path: Path) -> str | None:
    from ..base import safeio

    try:  # a repository's file: regular files only (a link to a FIFO or /dev/zero must not hang or flood us), capped
        data = safeio.read_head(str(path), MAX_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def imports(text: str) -> list[str]:
    """The `@path` imports of a memory file, outside fenced code blocks and code spans."""
    found: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in _IMPORT.finditer(_CODE_SPAN.sub(" ", line)):
            found.append(m.group(1))
    return found


def _inside(path: Path, bases: tuple[Path, ...]) -> bool:
    return any(path == b or b in path.parents for b in bases)


def _resolve(ref: str, importer: Path, home: Path) -> Path | None:
    """An import as an existing file path, relative to the importing file; trailing punctuation is forgiven."""
    for candidate in (ref, ref.rstrip(".,;:!?")):
        if not candidate:
            continue
        if candidate.startswith("~/"):
            path = home / candidate[2:]
        else:
            path = Path(candidate)
            if not path.is_absolute():
                path = importer.parent / path
        try:
            path = path.resolve()
        except OSError:
            continue
        if path.is_file():
            return path
    return None


def load(project_root: Path, home: Path | None = None, *, name: str = "CLAUDE.md") -> list[MemoryFile]:
    """The project's CLAUDE.md files (or another instruction file, `name`) and everything they import (breadth
    first, cycle-safe, depth-limited).

    Imports are followed only into the repository or the home directory; a missing file is skipped.
    """
    home = (home or Path.home()).resolve()
    root = project_root.resolve()
    bases = (root, home)
    starts, follow = INSTRUCTION_FILES[name]
    queue: list[tuple[Path, int]] = [(p, 0) for p in starts(root)]
    seen: set[Path] = set()
    out: list[MemoryFile] = []
    while queue and len(out) < MAX_FILES:
        path, depth = queue.pop(0)
        try:
            real = path.resolve()
        except OSError:
            continue
        if real in seen or not real.is_file() or not _inside(real, bases):
            continue
        seen.add(real)
        text = _read(real)
        if text is None:
            continue
        out.append(MemoryFile(real, text, depth))
        if depth >= MAX_DEPTH or not follow:
            continue
        for ref in imports(text):
            target = _resolve(ref, real, home)
            if target is not None and target not in seen:
                queue.append((target, depth + 1))
    return out


def lines(files: list[MemoryFile]) -> list[Line]:
    """Every non-blank line of the files, with its nearest heading; code-block lines are kept but marked."""
    out: list[Line] = []
    for f in files:
        heading = ""
        in_fence = False
        for number, raw in enumerate(f.text.splitlines(), 1):
            if _FENCE.match(raw):
                in_fence = not in_fence
                continue
            if not raw.strip():
                continue
            m = None if in_fence else _HEADING.match(raw)
            if m:  # a heading is itself a statement ("## Use pnpm"), and the context of what follows
                out.append(Line(f.path, number, m.group(2), heading, False))
                heading = m.group(2)
                continue
            out.append(Line(f.path, number, raw.strip(), heading, in_fence))
    return out
