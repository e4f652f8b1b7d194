"""TOML edited as text, table by table: Codex's config.toml keeps the user's comments and layout, so we add and
remove whole tables (`[mcp_servers.agentctx]`, `[hooks.state."<our hook>"]`) and compare documents by their data."""

from __future__ import annotations

import json
import re
from typing import Any, Callable

# A table header line: `[a.b."c d"]` or `[[a.b]]`, an optional comment after it.
_HEADER = re.compile(r"^\s*\[(\[?)\s*(.+?)\s*\]\1\s*(?:#.*)?$")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key_path(text: str) -> tuple[str, ...] | None:
    """The parts of a dotted key (`a."b.c".'d'` -> ("a", "b.c", "d")); None when it is not one."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            try:
                parts.append(json.loads(text[i:j + 1]))
            except ValueError:
                return None
            i = j + 1
        elif i < n and text[i] == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            parts.append(text[i + 1:j])
            i = j + 1
        else:
            m = _BARE.match(text, i)
            if not m:
                return None
            parts.append(m.group(0))
            i = m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i < n:
            if text[i] != ".":
                return None
            i += 1
    return tuple(parts) if parts else None


def quote(part: str) -> str:
    """A key part as TOML writes it: bare when it can be, else a basic string."""
    return part if _BARE.fullmatch(part) else string(part)


def string(value: str) -> str:
    """A TOML basic string (JSON's escapes, without \\u-escaping non-ASCII: TOML refuses lone surrogates)."""
    return json.dumps(value, ensure_ascii=False)


def chunks(text: str) -> list[tuple[tuple[str, ...] | None, list[str]]]:
    """The document as (table path, its lines including the header); the lines before any table come first, with
    path None. Lines keep their newlines, so joining every chunk gives the text back byte for byte."""
    out: list[tuple[tuple[str, ...] | None, list[str]]] = [(None, [])]
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line.rstrip("\r\n"))
        path = key_path(m.group(2)) if m else None
        if m and path is not None:
            out.append((path, [line]))
        else:
            out[-1][1].append(line)
    return out


def drop(text: str, unwanted: Callable[[tuple[str, ...]], bool]) -> str:
    """`text` without the tables whose path is `unwanted` (each with its lines up to the next header). The blank
    lines that separated a dropped table from the one before it go with it."""
    kept: list[list[str]] = []
    for path, lines in chunks(text):
        if path is not None and unwanted(path):
            if kept:
                while kept[-1] and not kept[-1][-1].strip():
                    kept[-1].pop()
            continue
        kept.append(list(lines))
    out = "".join("".join(lines) for lines in kept)
    if kept and any(kept) and text.endswith("\n") and not out.endswith("\n"):
        out += "\n"
    return out


def table_text(text: str, path: tuple[str, ...]) -> str | None:
    """The lines of one table and its sub-tables, or None when it has no header of its own."""
    found = [lines for p, lines in chunks(text) if p is not None and p[:len(path)] == path]
    return "".join("".join(lines) for lines in found) if found else None


def empty_tables(text: str) -> list[tuple[str, ...]]:
    """Tables whose header has nothing under it (no key, no sub-table): what is left of `[hooks.state]` once the
    entries below it are gone."""
    parts = chunks(text)
    out = []
    for n, (path, lines) in enumerate(parts):
        if path is None or any(ln.strip() and not ln.strip().startswith("#") for ln in lines[1:]):
            continue
        if not any(p is not None and p[:len(path)] == path and len(p) > len(path) for p, _ in parts[n + 1:]):
            out.append(path)
    return out


def loads(text: str) -> dict[str, Any]:
    """Parse with `tomllib` (Python 3.11+), else the small reader of base.minitoml; ValueError when it cannot."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        from ..base import minitoml

        return minitoml.loads(text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from None


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v != {}}
    return value


def same(a: str, b: str) -> bool:
    """Two documents that hold the same data (empty tables aside); text equality when either cannot be parsed."""
    try:
        return _pruned(loads(a)) == _pruned(loads(b))
    except ValueError:
        return a.strip() == b.strip()
