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


def _table_starts(text: str) -> list[bool]:
    """For each line: whether it starts at the top level of the document, where a `[table]` header may stand (not
    inside a multi-line string, nor inside an array or inline table spanning lines). A scanner of TOML's lexical
    structure: strings (all four kinds, with escapes), comments and bracket depth."""
    out: list[bool] = []
    state, depth = "", 0  # state: "" or the open multi-line quote ('"""' or "'''")
    for line in text.splitlines(keepends=True):
        top = not state and depth == 0
        out.append(top)
        header = top and line.lstrip(" \t").startswith("[")
        i, n = 0, len(line)
        while i < n:
            if state:
                j = line.find(state, i)
                if state == '"""':
                    while j > 0 and _odd_backslashes(line, i, j):
                        j = line.find(state, j + 1)
                if j < 0:
                    break
                i = j + 3
                while i < n and line[i] == state[0]:
                    i += 1  # up to two quotes of the content may stand before the closing three
                state = ""
                continue
            c = line[i]
            if c == "#":
                break
            if line.startswith(('"""', "'''"), i):
                state, i = line[i:i + 3], i + 3
            elif c == '"':
                j = i + 1
                while j < n and line[j] not in '"\n':
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
            elif c == "'":
                j = line.find("'", i + 1)
                i = n if j < 0 else j + 1
            else:
                if not header:
                    depth += 1 if c in "[{" else -1 if c in "]}" and depth else 0
                i += 1
    return out


def _odd_backslashes(line: str, start: int, at: int) -> bool:
    before = line[start:at]
    return (len(before) - len(before.rstrip("\\"))) % 2 == 1


def chunks(text: str) -> list[tuple[tuple[str, ...] | None, list[str]]]:
    """The document as (table path, its lines including the header); the lines before any table come first, with
    path None. Lines keep their newlines, so joining every chunk gives the text back byte for byte. Only a line at
    the document's top level is a header: `[mcp_servers.agentctx]` inside a multi-line string is text."""
    out: list[tuple[tuple[str, ...] | None, list[str]]] = [(None, [])]
    lines = text.splitlines(keepends=True)
    for line, top in zip(lines, _table_starts(text)):
        m = _HEADER.match(line.rstrip("\r\n")) if top else None
        path = key_path(m.group(2)) if m else None
        if m and path is not None:
            out.append((path, [line]))
        else:
            out[-1][1].append(line)
    return out


def drop(text: str, unwanted: Callable[[tuple[str, ...]], bool]) -> str:
    """`text` without the tables whose path is `unwanted` (each with its lines up to the next header, except its
    comment lines, which stay). The blank lines that separated a dropped table from the one before it go with it."""
    kept: list[list[str]] = []
    for path, lines in chunks(text):
        if path is not None and unwanted(path):
            if kept:
                while kept[-1] and not kept[-1][-1].strip():
                    kept[-1].pop()
            notes = comments(lines)
            if notes:  # we write no comments: these are the user's (often about the table after ours), and stay
                kept.append((["\n"] if kept and any(kept) else []) + notes)
            continue
        kept.append(list(lines))
    out = "".join("".join(lines) for lines in kept)
    if kept and any(kept) and text.endswith("\n") and not out.endswith("\n"):
        out += "\n"
    return out


def comments(lines: list[str]) -> list[str]:
    """The comment lines below a table's header (a comment on the header line itself goes with the header)."""
    return [line if line.endswith("\n") else line + "\n" for line in lines[1:] if line.lstrip().startswith("#")]


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


def pruned(value: Any) -> Any:
    """The data without empty tables (`[hooks.state]` with nothing under it says nothing)."""
    if isinstance(value, dict):
        out = {k: pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v != {}}
    return value


def same(a: str, b: str) -> bool:
    """Two documents that hold the same data (empty tables aside); text equality when either cannot be parsed."""
    try:
        return pruned(loads(a)) == pruned(loads(b))
    except ValueError:
        return a.strip() == b.strip()
