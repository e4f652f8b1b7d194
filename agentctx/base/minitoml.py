"""A small TOML reader for Python 3.10 (no `tomllib`): tables, dotted keys, strings, arrays, inline tables, scalars.

Enough for the manifests profile detection reads (`pyproject.toml`, `Cargo.toml`) and uv's tool receipt. It is
not a validator: it accepts some documents TOML rejects, and dates/times stay strings. Anything it cannot read
raises ValueError, which callers treat like an unreadable file."""

from __future__ import annotations

import re
from typing import Any

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^\s,\]\}#]+")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_TIME = re.compile(r" \d\d:[^\s,\]\}#]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}


def loads(text: str) -> dict[str, Any]:
    """The document as dicts, lists, str, int, float and bool (like `tomllib.loads`, with dates left as str)."""
    return _Parser(text).document()


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text.replace("\r\n", "\n")
        self.i = 0

    def error(self, what: str) -> ValueError:
        line = self.s.count("\n", 0, self.i) + 1
        return ValueError(f"{what} (line {line})")

    # --- whitespace ---------------------------------------------------------------------------------------------
    def skip_ws(self, newlines: bool = False) -> None:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c in " \t" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            else:
                break

    def end_of_line(self) -> None:
        self.skip_ws()
        if self.i < len(self.s) and self.s[self.i] != "\n":
            raise self.error("expected the end of the line")

    # --- document -----------------------------------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        root: dict[str, Any] = {}
        table = root
        while True:
            self.skip_ws(newlines=True)
            if self.i >= len(self.s):
                return root
            if self.s.startswith("[[", self.i):
                self.i += 2
                path = self.key()
                self.expect("]]")
                self.end_of_line()
                parent = self.descend(root, path[:-1])
                items = parent.setdefault(path[-1], [])
                if not isinstance(items, list):
                    raise self.error(f"{'.'.join(path)} is not an array of tables")
                table = {}
                items.append(table)
            elif self.s[self.i] == "[":
                self.i += 1
                path = self.key()
                self.expect("]")
                self.end_of_line()
                table = self.descend(root, path)
            else:
                self.pair(table)
                self.end_of_line()

    def descend(self, table: dict[str, Any], path: list[str]) -> dict[str, Any]:
        for part in path:
            nxt = table.setdefault(part, {})
            if isinstance(nxt, list) and nxt and isinstance(nxt[-1], dict):
                nxt = nxt[-1]  # [[a]] then [a.b]: b belongs to the last element
            if not isinstance(nxt, dict):
                raise self.error(f"{part} is not a table")
            if isinstance(nxt, _Inline):  # as TOML (and tomllib): an inline table is complete where it is written
                raise self.error(f"{part} is an inline table and cannot be extended")
            table = nxt
        return table

    def pair(self, table: dict[str, Any]) -> None:
        path = self.key()
        self.skip_ws()
        self.expect("=")
        self.skip_ws()
        target = self.descend(table, path[:-1])
        target[path[-1]] = self.value()

    def expect(self, token: str) -> None:
        if not self.s.startswith(token, self.i):
            raise self.error(f"expected {token!r}")
        self.i += len(token)

    # --- keys ---------------------------------------------------------------------------------------------------
    def key(self) -> list[str]:
        parts = []
        while True:
            self.skip_ws()
            c = self.s[self.i:self.i + 1]
            if c == '"':
                parts.append(self.basic_string())
            elif c == "'":
                parts.append(self.literal_string())
            else:
                m = _BARE.match(self.s, self.i)
                if not m:
                    raise self.error("expected a key")
                parts.append(m.group())
                self.i = m.end()
            self.skip_ws()
            if self.s.startswith(".", self.i):
                self.i += 1
                continue
            return parts

    # --- values -------------------------------------------------------------------------------------------------
    def value(self) -> Any:
        s, i = self.s, self.i
        if s.startswith('"""', i):
            return self.multiline('"""')
        if s.startswith("'''", i):
            return self.multiline("'''")
        c = s[i:i + 1]
        if c == '"':
            return self.basic_string()
        if c == "'":
            return self.literal_string()
        if c == "[":
            return self.array()
        if c == "{":
            return self.inline_table()
        m = _SCALAR.match(s, i)
        if not m:
            raise self.error("expected a value")
        end = m.end()
        if _DATE.fullmatch(m.group()):
            time = _TIME.match(s, end)  # "1979-05-27 07:32:00": a date, a space, then the time
            end = time.end() if time else end
        self.i = end
        token = s[i:end]
        return _scalar(token)

    def basic_string(self) -> str:
        s, start = self.s, self.i + 1
        end = start
        while True:  # the closing quote is the first one not escaped
            end = s.find('"', end)
            newline = s.find("\n", start)
            if end < 0 or 0 <= newline < end:
                raise self.error("unterminated string")
            if not _escaped(s, start, end):
                break
            end += 1
        self.i = end + 1
        return self.unescape(s[start:end], multiline=False)

    def unescape(self, raw: str, *, multiline: bool) -> str:
        out, j = [], 0
        while True:
            k = raw.find("\\", j)
            if k < 0:
                out.append(raw[j:])
                return "".join(out)
            out.append(raw[j:k])
            code = raw[k + 1:k + 2]
            if code in _ESCAPES:
                out.append(_ESCAPES[code])
                j = k + 2
            elif code in ("u", "U"):
                width = 4 if code == "u" else 8
                digits = raw[k + 2:k + 2 + width]
                if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                    raise self.error("bad unicode escape")
                out.append(chr(int(digits, 16)))
                j = k + 2 + width
            elif multiline and raw[k + 1:].lstrip(" \t").startswith("\n"):
                # A line-ending backslash drops the newline and the whitespace after it.
                rest = raw[k + 1:]
                j = k + 1 + len(rest) - len(rest.lstrip(" \t\n"))
            else:
                raise self.error(f"bad escape \\{code}")

    def literal_string(self) -> str:
        end = self.s.find("'", self.i + 1)
        newline = self.s.find("\n", self.i + 1)
        if end < 0 or 0 <= newline < end:
            raise self.error("unterminated string")
        text = self.s[self.i + 1:end]
        self.i = end + 1
        return text

    def multiline(self, quote: str) -> str:
        literal = quote[0] == "'"
        self.i += 3
        if self.s.startswith("\n", self.i):
            self.i += 1  # a newline right after the opening quotes is trimmed
        end = self.i
        while True:
            end = self.s.find(quote, end)
            if end < 0:
                raise self.error("unterminated string")
            if literal or not _escaped(self.s, self.i, end):
                break
            end += 1
        extra = 0
        while extra < 2 and self.s.startswith(quote[0], end + 3 + extra):
            extra += 1  # up to two quotes may stand right before the closing three
        raw = self.s[self.i:end + extra]
        self.i = end + extra + 3
        return raw if literal else self.unescape(raw, multiline=True)

    def array(self) -> list[Any]:
        self.i += 1
        items: list[Any] = []
        while True:
            self.skip_ws(newlines=True)
            if self.s.startswith("]", self.i):
                self.i += 1
                return items
            items.append(self.value())
            self.skip_ws(newlines=True)
            if self.s.startswith(",", self.i):
                self.i += 1
            elif not self.s.startswith("]", self.i):
                raise self.error("expected ',' or ']' in an array")

    def inline_table(self) -> dict[str, Any]:
        self.i += 1
        table: dict[str, Any] = _Inline()
        self.skip_ws()
        if self.s.startswith("}", self.i):
            self.i += 1
            return table
        while True:
            self.pair(table)
            self.skip_ws()
            if self.s.startswith("}", self.i):
                self.i += 1
                return table
            self.expect(",")


class _Inline(dict):  # type: ignore[type-arg]
    """An inline table (`{a = 1}`): a dict that a later header or dotted key may not add to."""


def _escaped(s: str, start: int, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes (inside s[start:at])."""
    before = s[start:at]
    return (len(before) - len(before.rstrip("\\"))) % 2 == 1


def _scalar(token: str) -> Any:
    if token == "true":
        return True
    if token == "false":
        return False
    plain = token.replace("_", "")
    try:
        if plain[:2] in ("0x", "0o", "0b"):
            return int(plain, {"x": 16, "o": 8, "b": 2}[plain[1]])
        return int(plain)
    except ValueError:
        pass
    if plain in ("inf", "+inf", "-inf", "nan", "+nan", "-nan"):
        return float(plain)
    try:
        return float(plain)
    except ValueError:
        return token  # a date, time or datetime: kept as written
