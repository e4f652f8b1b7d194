"""Anchors: what a record governs (paths and globs, symbols, commands, tools), validated and matched.

An anchor is one line `kind:value` (SPEC §3.1): `path:src/payments/**`, `symbol:Client.send`,
`command:alembic upgrade`, `tool:WebFetch`. Anchors are index data about a record, like its questions: they say
when the record applies (the pre-action hook matches them against what a tool call is about to touch or run), and
are never injected as its text.

Matching is bounded by construction: globs are matched segment by segment with `*`, `?` and `**` only (no regular
expressions: a pattern can never backtrack exponentially); commands are read as the shell runs them (base/shell.py)
and matched the way their tool reads its words (base/cmdpattern.py), word prefixes for tools it does not know.
"""

from .control import match_segment as _segment_match  # one glob-segment matcher (the hooks load control anyway)

ANCHOR_KINDS: tuple[str, ...] = ("path", "symbol", "command", "tool")
ANCHORS_MAX = 24
ANCHOR_CHARS = 200
WILDCARDS_MAX = 8  # `*` and `?` in one glob: real rules use two or three

_SYMBOL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:#$<>-")
_TOOL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")


class AnchorError(ValueError):
    """One anchor refused: the message says which and why, in one line (the store wraps it in a ValidationError)."""


def _bad(anchor: str, why: str) -> AnchorError:
    shown = anchor if len(anchor) <= 60 else anchor[:57] + "..."
    return AnchorError(f"anchor {shown!r} {why}")


def _plain(text: str, anchor: str) -> None:
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise _bad(anchor, "contains control characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate escape: bytes that were not UTF-8 on the command line
        raise _bad(anchor.encode("utf-8", "replace").decode("utf-8"), "is not valid UTF-8") from None


def normalize_path(value: str, anchor: str, root: str | None = None) -> str:
    """A repository-relative POSIX glob: `./` and repeated `/` dropped, `\\` read as `/`; absolute paths (unless
    inside `root`) and `..` segments refused; `**` alone refused (it governs everything)."""
    value = value.strip().replace("\\", "/")
    if root and value.startswith("/"):
        base = root.rstrip("/") + "/"
        if value.startswith(base):
            value = value[len(base):]
    if value.startswith("/") or (len(value) > 1 and value[1] == ":" and value[0].isalpha()):
        raise _bad(anchor, "is an absolute path: anchors are relative to the repository")
    parts = [p for p in value.split("/") if p not in ("", ".")]
    if not parts:
        raise _bad(anchor, "names no path")
    if ".." in parts:
        raise _bad(anchor, "has a '..' segment: anchors stay inside the repository")
    if all(p == "**" or set(p) <= {"*"} for p in parts):
        raise _bad(anchor, "matches every file: name a folder or a pattern")
    if sum(p.count("*") + p.count("?") for p in parts if p != "**") + parts.count("**") > WILDCARDS_MAX:
        raise _bad(anchor, f"has more than {WILDCARDS_MAX} wildcards")
    if any("**" in p and p != "**" for p in parts):  # `a**b`: fold to `*` like git does within a segment
        parts = [p if p == "**" else _fold_stars(p) for p in parts]
    folded: list[str] = []
    for p in parts:  # `**/**` is `**`
        if not (p == "**" and folded and folded[-1] == "**"):
            folded.append(p)
    trailing = "/" if value.endswith("/") and folded[-1] != "**" else ""
    if value.startswith("./") and len(folded) == 1 and not trailing:
        return "./" + folded[0]  # a name at the repository root only (`./*.md`); `*.md` is any depth
    return "/".join(folded) + trailing


def _fold_stars(segment: str) -> str:
    while "**" in segment:
        segment = segment.replace("**", "*")
    return segment


def normalize_command(value: str, anchor: str) -> str:
    words = value.split()
    if not words:
        raise _bad(anchor, "names no command")
    if len(value) >= 2 and value.strip().startswith("/") and value.strip().endswith("/"):
        raise _bad(anchor, "is a regular expression: command anchors are the command's first words")
    if words[0] in ("*", "**"):
        raise _bad(anchor, "matches every command: name the command")
    return " ".join(words)


def normalize(anchor: str, root: str | None = None) -> str:
    """One anchor in its stored form `kind:value`, or AnchorError. A value with no kind is a path."""
    if not isinstance(anchor, str):
        raise AnchorError("anchors must be strings")
    text = anchor.strip()
    if not text:
        raise _bad(anchor, "is blank")
    _plain(text, anchor)
    kind, sep, value = text.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in ANCHOR_KINDS:
        kind, value = "path", text
    value = value.strip()
    if kind == "path":
        value = normalize_path(value, anchor, root)
    elif kind == "command":
        value = normalize_command(value, anchor)
    elif kind == "symbol":
        if not value or not set(value) <= _SYMBOL_CHARS:
            raise _bad(anchor, "is not a symbol name (letters, digits, _ . : # only)")
    elif not value or not set(value) <= _TOOL_CHARS:  # tool
        raise _bad(anchor, "is not a tool name")
    out = f"{kind}:{value}"
    if len(out) > ANCHOR_CHARS:
        raise _bad(anchor, f"is {len(out)} characters; the limit is {ANCHOR_CHARS}")
    return out


def normalize_all(items: "object", root: str | None = None) -> tuple[str, ...]:
    """Anchors in stored form, repeats dropped, order kept; AnchorError on the first bad one or over the limit.
    A string counts as one anchor per line."""
    if items is None:
        return ()
    if isinstance(items, str):
        items = items.splitlines()
    if not isinstance(items, (list, tuple)):
        raise AnchorError("anchors must be a list of strings")
    if len(items) > ANCHORS_MAX * 4:  # refuse 10,000 globs before looking at each
        raise AnchorError(f"{len(items)} anchors; the limit is {ANCHORS_MAX}")
    out: dict[str, None] = {}
    for item in items:
        if isinstance(item, str) and not item.strip():
            continue
        out.setdefault(normalize(item, root), None)
    if len(out) > ANCHORS_MAX:
        raise AnchorError(f"{len(out)} anchors; the limit is {ANCHORS_MAX}")
    return tuple(out)


def split(anchor: str) -> tuple[str, str]:
    """(kind, value) of a stored anchor."""
    kind, _, value = anchor.partition(":")
    return kind, value


# --- matching ---------------------------------------------------------------------------------------------------


def _segments_match(pats: list[str], parts: list[str]) -> bool:
    """Segments with `**` (zero or more segments): dynamic programming over both lists, O(len * len)."""
    n, m = len(pats), len(parts)
    reach = [False] * (m + 1)  # reach[j]: pats[:i] matches parts[:j]
    reach[0] = True
    for i in range(n):
        pat = pats[i]
        nxt = [False] * (m + 1)
        if pat == "**":
            seen = False
            for j in range(m + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(m):
                if reach[j] and _segment_match(pat, parts[j]):
                    nxt[j + 1] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[m]


def path_matches(glob: str, relpath: str) -> bool:
    """Whether a repository-relative path is governed by a stored path anchor's glob.

    A glob without `/` matches a file name at any depth (`*.sql`, `Makefile`), and at the root only when it starts
    with `./` (`./*.md`); a literal path matches that file and everything under it (`src/payments`); otherwise the
    glob is matched from the repository root (`src/**/*.py`)."""
    parts = [p for p in relpath.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        return False
    if glob.startswith("./"):
        name = glob[2:]
        return _segment_match(name, parts[0]) and (len(parts) == 1 or not any(c in name for c in "*?"))
    folder = glob.endswith("/")
    pats = glob.rstrip("/").split("/")
    if len(pats) == 1 and not folder:
        return _segment_match(pats[0], parts[-1]) or (pats[0] == parts[0] and len(parts) > 1 and
                                                      not any(c in pats[0] for c in "*?"))
    if folder and any(c in glob for c in "*?"):  # `**/docs/`: a folder the glob names, and everything under it
        return _segments_match(pats + ["**"], parts)
    if not any(c in glob for c in "*?") or folder:  # a folder or a file: itself and everything under it
        return len(parts) >= len(pats) and all(_segment_match(p, s) for p, s in zip(pats, parts))
    return _segments_match(pats, parts)


def commands(line: str) -> "list[tuple[str, ...]]":
    """The words of each command a shell line runs, as base/shell.py reads them (wrappers and assignments gone,
    nested shells and substitutions included)."""
    from .shell import parse

    return [c.words for c in parse(line).commands if c.words]


def command_matches(prefix: str, line: str) -> bool:
    """Whether any command in a shell line is what the anchor names (`pip install` matches
    `cd x && sudo pip install -U y`; `npm` matches `npm test`, never `npmx`; `git push --force` matches
    `git -C . push -f`): base/cmdpattern.py on each command base/shell.py reads."""
    from .cmdpattern import matches

    return any(matches(prefix, words) for words in commands(line))


def tool_matches(name: str, tool: str) -> bool:
    return name.casefold() == tool.casefold()


# --- index keys: which anchors a target can possibly match, without matching them all -------------------------


def index_key(anchor: str) -> str:
    """The bucket of a stored anchor in a project's anchor map: a target is matched only against the anchors of
    the buckets its own keys name (`target_keys`) and the catch-all `*`. Exact: an anchor outside those buckets
    cannot match the target."""
    kind, value = split(anchor)
    if kind == "command":
        from .cmdpattern import names

        found = names(value.split())
        return "c/" + (found[0] if found else "")
    if kind == "tool":
        return "t/" + value.casefold()
    if kind == "symbol":
        return "s"
    if value.startswith("./"):  # rooted: the same bucket as the name at any depth (the match itself is exact)
        value = value[2:]
    glob = value.rstrip("/")
    parts = glob.split("/")
    if len(parts) == 1 and not value.endswith("/"):
        if not any(c in glob for c in "*?"):
            return "n/" + glob  # a file name at any depth, or the first folder
        if glob.startswith("*.") and not any(c in glob[2:] for c in "*?"):
            return "x/" + glob[2:]  # `*.sql`: by extension
        return "*"
    head = parts[0]
    return "*" if any(c in head for c in "*?") else "p/" + head


def target_keys(paths: "tuple[str, ...] | list[str]", commands: "list[tuple[str, ...]] | tuple[tuple[str, ...], ...]",
                tool: str, has_text: bool) -> "list[str]":
    """The buckets (`index_key`) whose anchors may match a target: its paths, the commands of its line (their words
    as base/shell.py reads them), its tool."""
    keys = ["*", "t/" + tool.casefold()] if tool else ["*"]
    for path in paths:
        parts = [p for p in path.split("/") if p]
        if not parts:
            continue
        name = parts[-1]
        keys += ["p/" + parts[0], "n/" + name, "n/" + parts[0]]
        dot = name.find(".")
        while dot >= 0:  # `a.tar.gz` is `*.tar.gz` and `*.gz`
            keys.append("x/" + name[dot + 1:])
            dot = name.find(".", dot + 1)
    if commands:
        from .cmdpattern import names

        for words in commands:
            if words:
                keys.append("c/" + words[0])  # as a map written before base/cmdpattern.py keyed it
                keys += ["c/" + n for n in names(words)]
    if has_text:
        keys.append("s")
    return keys
