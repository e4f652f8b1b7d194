"""The rule files teams keep for agents, parsed: each format's frontmatter, globs and activation, read as anchors.

Formats (vendor-notes/rule-files.md): Cursor `.cursor/rules/**/*.mdc` (`description`, `globs`, `alwaysApply`),
Claude Code `.claude/rules/**/*.md` (`paths`), GitHub Copilot `.github/instructions/**/*.instructions.md`
(`applyTo`), and nested `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` (the directory that holds them). Pure functions:
text in, a `ParsedRule` out; reading files and the store live in outside/rulefiles.py.
"""

from __future__ import annotations

from ..base.models import record_type

# How a rule applies, in each format's own terms (SPEC §4.12):
#   globs:       when a file matching its globs is worked on (Cursor auto-attached, `paths`, `applyTo`)
#   directory:   when a file in its directory is worked on (a nested AGENTS.md, CLAUDE.md or GEMINI.md)
#   always:      in every session (Cursor `alwaysApply`, a `.claude/rules` file without `paths`, `applyTo: "**"`)
#   description: when the task is about what its description says (Cursor "agent requested")
#   manual:      only when a person names it (Cursor `@rule`; Copilot without `applyTo`): never delivered by us
#   root:        a repository-wide file its own agent loads at start (AGENTS.md, CLAUDE.md, GEMINI.md at the root)
MODES = ("globs", "directory", "always", "description", "manual", "root")
DELIVERED_MODES = frozenset({"globs", "directory", "always", "description"})
EXPANSIONS_MAX = 24  # anchors one rule may produce once braces are expanded (base/anchors.ANCHORS_MAX)
# Bounds checked before a glob's braces are expanded (a rule file is someone else's input): its length, its brace
# groups (which also bounds how deep they nest), and how many globs it would become, repeats counted. Real rules use
# one or two groups of a few alternatives; `{a,a}` thirty times is 2**30 globs and is refused, not expanded.
GLOB_CHARS = 1000
BRACES_MAX = 16
ALTERNATIVES_MAX = 256
GLOBS_MAX = 96  # globs of one rule looked at (base/anchors.normalize_all refuses more than 4 x ANCHORS_MAX too)
_MATCH_ALL = frozenset({"**", "**/*", "**/**", "*/**", "**/*.*"})
NESTED_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")


class ParsedRule(record_type("ParsedRule", "path format mode title description body globs anchors notes")):
    """One rule file read: its repository-relative path, format (`cursor`, `claude_rules`, `copilot`, `agents_md`,
    `claude_md`, `gemini_md`), mode (MODES), a title, the description its format gives (or ""), the body without
    frontmatter, the globs as written, the anchors they became, and notes on what could not be kept."""

    __slots__ = ()


def format_of(relpath: str) -> str | None:
    """Which rule format a repository-relative path is, or None."""
    parts = relpath.split("/")
    name = parts[-1]
    if ".cursor/rules/" in relpath and (name.endswith(".mdc") or name.endswith(".md")) and _under(parts, ".cursor", "rules"):
        return "cursor"
    if name.endswith(".md") and _under(parts, ".claude", "rules"):
        return "claude_rules"
    if name.endswith(".instructions.md") and _under(parts, ".github", "instructions"):
        return "copilot"
    if name in NESTED_NAMES:
        if len(parts) >= 2 and parts[-2] == ".claude":
            return "claude_md" if name == "CLAUDE.md" else None  # only Claude Code reads a `.claude` folder
        return {"AGENTS.md": "agents_md", "CLAUDE.md": "claude_md", "GEMINI.md": "gemini_md"}[name]
    return None


def _under(parts: list[str], first: str, second: str) -> bool:
    # Only the repository's own folders: `.cursor/rules` at the root (a vendored copy elsewhere is not this repo's).
    return len(parts) >= 3 and parts[0] == first and parts[1] == second


# --- frontmatter ------------------------------------------------------------------------------------------------


def split_frontmatter(text: str) -> tuple[dict[str, object], str]:
    """(fields, body) of a Markdown file with an optional `---` YAML block at its top. Only the subset rule files
    use: `key: scalar`, `key: [a, b]`, and `key:` followed by `- item` lines; anything else is ignored."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, text
    fields: dict[str, object] = {}
    key = None
    for raw in lines[1:end]:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        stripped = raw.strip()
        if stripped.startswith("- ") or stripped == "-":
            if key is not None:
                value = fields.get(key)
                items = value if isinstance(value, list) else ([] if value in (None, "") else [value])
                items.append(_scalar(stripped[1:].strip()))
                fields[key] = items
            continue
        if raw[:1] in (" ", "\t") or ":" not in stripped:
            continue  # a nested mapping or a continuation: not part of any rule format we read
        name, _, rest = stripped.partition(":")
        key = name.strip()
        rest = rest.strip()
        if rest.startswith("[") and rest.endswith("]"):
            fields[key] = [_scalar(p.strip()) for p in _split_top(rest[1:-1]) if p.strip()]
        else:
            fields[key] = _scalar(rest)
    return fields, "\n".join(lines[end + 1:])


def _scalar(text: str) -> object:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if " #" in text:
        text = text.split(" #", 1)[0].rstrip()
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("", "null", "~"):
        return ""
    return text


def _split_top(text: str) -> list[str]:
    """`text` cut at commas outside braces and quotes (`src/*.{ts,tsx}, docs/**` is two globs)."""
    out, cur, depth, quote = [], [], 0, ""
    for c in text:
        if quote:
            if c == quote:
                quote = ""
            else:
                cur.append(c)
            continue
        if c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
            cur.append(c)
        elif c == "}":
            depth = max(0, depth - 1)
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


# --- globs ------------------------------------------------------------------------------------------------------


def glob_list(value: object) -> list[str]:
    """A frontmatter glob field as a list: a YAML list, or one string of comma-separated globs (Cursor, `applyTo`)."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.extend(p.strip().strip("'\"").strip() for p in _split_top(item))
    return [g for g in out if g]


def glob_problem(glob: str) -> str | None:
    """Why a glob's braces are not expanded (too long, too many or too deeply nested groups, too many alternatives),
    or None: checked by counting, never by expanding, so any input costs time linear in its length."""
    if len(glob) > GLOB_CHARS:
        return f"glob of {len(glob)} characters not kept (the limit is {GLOB_CHARS})"
    if glob.count("{") > BRACES_MAX:
        return f"glob {_shown(glob)} not kept: more than {BRACES_MAX} brace groups"
    if _alternatives(glob, ALTERNATIVES_MAX) > ALTERNATIVES_MAX:
        return f"glob {_shown(glob)} not kept: its braces expand to more than {ALTERNATIVES_MAX} globs"
    return None


def _shown(glob: str) -> str:
    return repr(glob if len(glob) <= 60 else glob[:57] + "...")


def _group(glob: str) -> tuple[int, int] | None:
    """(start, end) of the first balanced brace group, or None when there is none (an unbalanced one is literal)."""
    start = glob.find("{")
    if start < 0:
        return None
    depth = 0
    for end in range(start, len(glob)):
        if glob[end] == "{":
            depth += 1
        elif glob[end] == "}":
            depth -= 1
            if depth == 0:
                return start, end
    return None


def _alternatives(glob: str, cap: int) -> int:
    """How many globs `expand_braces` would go through for `glob` before dropping repeats, counted up to just over
    `cap` (the recursion is at most one level per brace group: glob_problem bounds those first)."""
    found = _group(glob)
    if found is None:
        return 1
    start, end = found
    options = _split_top(glob[start + 1:end])
    if len(options) < 2:
        return _alternatives(glob[end + 1:], cap)
    total = 0
    for option in options:
        total += _alternatives(glob[:start] + option + glob[end + 1:], cap)
        if total > cap:
            break
    return total


def expand_braces(glob: str, limit: int = EXPANSIONS_MAX) -> list[str]:
    """`src/**/*.{ts,tsx}` as `src/**/*.ts` and `src/**/*.tsx` (nested braces too); at most `limit` results (the
    rest are dropped: a rule never becomes thousands of anchors). A brace without a comma stays literal. A glob
    `glob_problem` refuses expands to nothing."""
    if glob_problem(glob) is not None:
        return []
    return _expand(glob, limit)


def _expand(glob: str, limit: int) -> list[str]:
    found = _group(glob)
    if found is None:
        return [glob]
    start, end = found
    options = _split_top(glob[start + 1:end])
    if len(options) < 2:
        return [glob[:end + 1] + x for x in _expand(glob[end + 1:], limit)][:limit]
    out: list[str] = []
    for option in options:
        for tail in _expand(glob[:start] + option + glob[end + 1:], limit):
            if tail not in out:
                out.append(tail)
            if len(out) >= limit:
                return out
    return out


def anchor_glob(glob: str, fmt: str | None) -> str:
    """One expanded glob as the anchor value that matches what its format's agent matches (vendor-notes/rule-files.md,
    "Globs"): Cursor documents `*.ts` as the root's files only (`./*.ts`); Claude Code matches `paths` as gitignore
    patterns (a name without `/` at any depth, a leading `/` or `./` the root); VS Code's Copilot puts `**/` before
    any glob that does not start with `/` or `**/`. A glob with a `/` inside is matched from the root in all three
    (Copilot's gets its `**/`). `fmt` None: as written, in base/anchors' own terms."""
    one = glob.strip()
    rooted = one.startswith(("./", "/"))
    while one.startswith("./"):
        one = one[2:]
    one = one.lstrip("/")
    if fmt is None or not one:
        return one
    inner = "/" in one.rstrip("/")
    if fmt == "copilot" and not rooted:
        return one if one.startswith("**/") else "**/" + one
    if not inner and not one.endswith("/") and (fmt == "cursor" or rooted):
        return "./" + one
    return one


def anchors_for(globs: list[str], fmt: str | None = None) -> tuple[tuple[str, ...], list[str], bool]:
    """(anchors, notes, matches_all) for a rule's globs in format `fmt` (`anchor_glob`): braces expanded, negations
    and unusable globs left out with a note; `matches_all` when a glob governs every file (`**`), which makes the
    rule one that always applies."""
    from ..base.anchors import ANCHORS_MAX, AnchorError, normalize

    anchors: dict[str, None] = {}
    notes: list[str] = []
    matches_all = False
    if len(globs) > GLOBS_MAX:
        notes.append(f"{len(globs)} globs: only the first {GLOBS_MAX} read")
        globs = globs[:GLOBS_MAX]
    for glob in globs:
        if glob.startswith("!"):
            notes.append(f"negated glob {_shown(glob)} not kept (anchors only include)")
            continue
        problem = glob_problem(glob)
        if problem is not None:
            notes.append(problem)
            continue
        for one in _expand(glob, EXPANSIONS_MAX):
            bare = anchor_glob(one, None)
            if bare in _MATCH_ALL or set(bare) <= {"*", "/"}:
                matches_all = True
                continue
            try:
                anchors.setdefault(normalize("path:" + anchor_glob(one, fmt)), None)
            except AnchorError as exc:
                notes.append(str(exc))
            if len(anchors) >= ANCHORS_MAX:
                notes.append(f"more than {ANCHORS_MAX} globs: the rest not kept")
                return tuple(anchors), notes, matches_all
    return tuple(anchors), notes, matches_all


# --- one file ---------------------------------------------------------------------------------------------------


def _heading(body: str) -> str:
    for line in body.splitlines():
        s = line.strip()
        if s.startswith("#"):
            return s.lstrip("#").strip()
        if s:
            return s[:80]
    return ""


def _text(value: object) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def parse(relpath: str, text: str) -> ParsedRule | None:
    """The rule a file at `relpath` (repository-relative, POSIX) with contents `text` states, or None when the path
    is not a rule file."""
    fmt = format_of(relpath)
    if fmt is None:
        return None
    if fmt in ("agents_md", "claude_md", "gemini_md"):
        return _nested(relpath, fmt, text)
    fields, body = split_frontmatter(text)
    description = _text(fields.get("description"))
    key = {"cursor": "globs", "claude_rules": "paths", "copilot": "applyTo"}[fmt]
    globs = glob_list(fields.get(key))
    anchors, notes, matches_all = anchors_for(globs, fmt)
    if fmt == "cursor":
        always = fields.get("alwaysApply") is True
        if isinstance(fields.get("alwaysApply"), str):
            notes.append("alwaysApply is not a boolean: read as false (as Cursor does)")
        mode = ("always" if always or (matches_all and not anchors) else "globs" if anchors
                else "description" if description else "manual")
    elif fmt == "claude_rules":
        # A rule file without `paths` is loaded in every session, like CLAUDE.md (vendor-notes/rule-files.md).
        mode = "globs" if anchors else "always"
    else:  # copilot: without applyTo an instructions file is not applied on its own
        mode = "globs" if anchors else "always" if matches_all else "description" if description else "manual"
    if mode == "always":
        anchors = ()  # on purpose: it applies everywhere, its globs say nothing more (so no note about them)
    elif globs and not anchors and not matches_all:
        notes.append("no glob could be kept: " + ", ".join(globs))
    label = description or _heading(body) or relpath.rsplit("/", 1)[-1]
    return ParsedRule(relpath, fmt, mode, label, description, body.strip(), tuple(globs), anchors, tuple(notes))


def _nested(relpath: str, fmt: str, text: str) -> ParsedRule:
    folder = relpath.rsplit("/", 1)[0] if "/" in relpath else ""
    if folder.endswith("/.claude") or folder == ".claude":
        folder = folder[: -len(".claude")].rstrip("/")
    body = text.lstrip("\ufeff").strip()
    label = _heading(body) or relpath
    if not folder:
        return ParsedRule(relpath, fmt, "root", label, "", body, (), (), ())
    from ..base.anchors import AnchorError, normalize

    try:
        anchors: tuple[str, ...] = (normalize("path:" + folder + "/"),)
        notes: tuple[str, ...] = ()
    except AnchorError as exc:
        anchors, notes = (), (str(exc),)
    return ParsedRule(relpath, fmt, "directory" if anchors else "manual", label, "", body, (folder + "/**",),
                      anchors, notes)
