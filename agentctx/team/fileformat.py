"""The Markdown format of `.agentctx/context.md` and `~/.agentctx/profile/preferences.md`: render and parse, no I/O.

One block per entry: an HTML comment carrying its id and type (invisible on GitHub), a `###` title, the body, a
blank line; a record that carries how it will be asked adds, after its body, an `<!-- agentctx:asked -->` line and
one `- asked: …` line per question and one `- also: …` line per alias (so a teammate without an LLM finds the record
the same way), and one `- governs: kind:value` line per anchor (what the record governs: the pre-action hook shows it
before an edit of those files or that command; a guard is never shared through the file). They are not part of the
entry's content hash: adding them is not an edit of the fact. Blocks are sorted by type section, then title, then id, so two branches that add entries insert them
at different places and git's line merge joins them; there are no counts, dates or machine-specific values, so
the same records give the same bytes on every machine.
"""

from __future__ import annotations

import re

from ..base.ids import sha256_hex
from ..base.models import ALIAS_CHARS, ALIASES_MAX, BODY_MAX, QUESTION_CHARS, QUESTIONS_MAX, TITLE_MAX, record_type

FORMAT_VERSION = 1
FILE_MARKER = "<!-- agentctx:file"
ENTRY_RE = re.compile(r"^<!--\s*agentctx:entry\b(.*?)-->\s*$")
PAIR_RE = re.compile(r"([a-z_]+)=(\S+)")
KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
CONFLICT_RE = re.compile(r"^(<{7}|={7}|>{7})( |$)")
ASKED_MARKER = "<!-- agentctx:asked -->"
ASKED_RE = re.compile(r"^<!--\s*agentctx:asked\b.*-->\s*$")
QUESTION_PREFIX, ALIAS_PREFIX, GOVERNS_PREFIX = "- asked: ", "- also: ", "- governs: "

HEADINGS = {"decision": "Decisions", "convention": "Conventions", "discovery": "Discoveries",
            "preference": "Preferences"}


class Kind(record_type("Kind", "name title types intro")):
    """One file format: its `kind=` tag, its `#` title, the record types it holds (in section order), its preamble."""

    __slots__ = ()


TEAM = Kind("team", "Team context", ("decision", "convention", "discovery"), (
    "Decisions, conventions and discoveries this project's coding agents share, exported by "
    "agentctx (`agentctx team export`). Edit an entry's title or body by hand and run "
    "`agentctx team import`: the edit becomes a supersession of that record. Keep each entry's "
    "`<!-- agentctx:entry … -->` line; a new entry needs one with a new `id=`."))
PROFILE = Kind("profile", "Developer profile", ("preference",), (
    "Global preferences exported by `agentctx profile export`; bring them to another machine with "
    "`agentctx profile import PATH`. Edit an entry by hand and import it: the edit becomes a supersession."))


class Entry(record_type("Entry", "key type title body line questions aliases anchors", defaults=((), (), ()))):
    """One parsed block: its id, type, title and body (normalised), the 1-based line of its marker, how the
    record will be asked (questions, aliases) and what it governs (anchors)."""

    __slots__ = ()

    @property
    def hash(self) -> str:
        return content_hash(self.type, self.title, self.body)


class Parsed(record_type("Parsed", "entries errors seen_keys whole_file_ok")):
    """Valid entries, (line, message) errors, every key named by any block (valid or not), and whether the file
    itself was recognised (when not, nothing in it may be read as a removal)."""

    __slots__ = ()


def normalize_title(title: str) -> str:
    return " ".join(title.split())


def normalize_body(body: str) -> str:
    """What survives a round trip through the file: LF line ends, no trailing spaces, no blank edges."""
    lines = [line.rstrip() for line in body.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n").strip()


def content_hash(type_: str, title: str, body: str) -> str:
    return sha256_hex(f"{type_}\n{normalize_title(title)}\n{normalize_body(body)}")[:32]


def _escape(line: str, headings: set[str]) -> str:
    # A body line that would read as an entry marker, a section heading or an escape of its own gets a backslash
    # (Markdown shows the line as written).
    if ENTRY_RE.match(line) or ASKED_RE.match(line) or line in headings or line.startswith(FILE_MARKER) \
            or re.match(r"^\\+(<!--|## )", line):
        return "\\" + line
    return line


def _unescape(line: str) -> str:
    return line[1:] if re.match(r"^\\+(<!--|## )", line) else line


def sort_key(type_: str, title: str, key: str, kind: Kind) -> tuple[int, str, str]:
    return (kind.types.index(type_), normalize_title(title).casefold(), key)


def render(kind: Kind, entries: "list[tuple]") -> str:
    """The file for (key, type, title, body[, questions, aliases]) entries: every section heading always present (two
    branches adding the first entry of a section must not both add its heading), entries in `sort_key` order."""
    headings = {f"## {HEADINGS[t]}" for t in kind.types}
    by_type: dict[str, list[tuple]] = {t: [] for t in kind.types}
    for entry in entries:
        by_type[entry[1]].append(entry)
    out = [f"# {kind.title}", "", f"{FILE_MARKER} kind={kind.name} version={FORMAT_VERSION} -->", kind.intro, ""]
    for type_ in kind.types:
        out += [f"## {HEADINGS[type_]}", ""]
        for key, _, title, body, *asked in sorted(by_type[type_], key=lambda e: sort_key(e[1], e[2], e[0], kind)):
            out += [f"<!-- agentctx:entry id={key} type={type_} -->", f"### {normalize_title(title)}", ""]
            out += [_escape(line, headings) for line in normalize_body(body).split("\n")]
            questions, aliases, anchors = (list(asked) + [(), (), ()])[:3]
            if questions or aliases or anchors:
                out += ["", ASKED_MARKER]
                out += [QUESTION_PREFIX + normalize_title(q) for q in questions]
                out += [ALIAS_PREFIX + normalize_title(a) for a in aliases]
                out += [GOVERNS_PREFIX + a for a in anchors]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def parse(text: str, kind: Kind) -> Parsed:
    """Entries of a file; a malformed block is reported with its line and skipped, the rest is read."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    errors: list[tuple[int, str]] = []
    if not any(line.startswith(FILE_MARKER) and f"kind={kind.name}" in line for line in lines[:40]):
        errors.append((1, f"not an agentctx {kind.name} file (no `{FILE_MARKER} kind={kind.name} …-->` line)"))
        return Parsed((), tuple(errors), frozenset(), False)
    headings = {f"## {h}" for h in HEADINGS.values()}
    blocks: list[tuple[int, str, list[str]]] = []  # (marker line number, marker attributes, content lines)
    current: tuple[int, str, list[str]] | None = None
    for number, line in enumerate(lines, 1):
        m = ENTRY_RE.match(line)
        if m:
            current = (number, m.group(1), [])
            blocks.append(current)
        elif line in headings:
            current = None  # a section heading ends the block above it
        elif current is not None:
            current[2].append(line)
    entries: list[Entry] = []
    seen: set[str] = set()
    valid: set[str] = set()
    for number, attrs, content in blocks:
        fields = dict(PAIR_RE.findall(attrs))
        key = fields.get("id", "")
        if key:
            seen.add(key)
        problem = _check_block(key, fields.get("type", ""), content, kind)
        if problem is None and key in valid:
            problem = f"duplicate id {key!r} (each entry needs its own id)"
        if problem is not None:
            errors.append((number, problem))
            continue
        content, questions, aliases, anchors = _asked(content, with_anchors=True)
        title_at = next(i for i, line in enumerate(content) if line.strip())
        title = normalize_title(content[title_at].strip()[4:])
        body = normalize_body("\n".join(_unescape(line) for line in content[title_at + 1:]))
        entries.append(Entry(key, fields["type"], title, body, number, questions, aliases, anchors))
        valid.add(key)
    return Parsed(tuple(entries), tuple(errors), frozenset(seen), True)


def _asked(content: list[str], with_anchors: bool = False) -> "tuple":  # type: ignore[type-arg]
    """(the block's lines before its asked marker, its questions, its aliases[, its anchors]). Lines under the
    marker that are no `- asked:`/`- also:`/`- governs:` item are ignored; items past the store's limits, and
    anchors it refuses, are left out (a hand-edited file is a teammate's input: it may not make a record
    unstorable)."""
    at = next((i for i, line in enumerate(content) if ASKED_RE.match(line)), None)
    if at is None:
        return (content, (), (), ()) if with_anchors else (content, (), ())
    if with_anchors:
        return (*_asked(content), _governs(content[at + 1:]))
    questions: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for line in content[at + 1:]:
        for prefix, into, chars in ((QUESTION_PREFIX, questions, QUESTION_CHARS), (ALIAS_PREFIX, aliases, ALIAS_CHARS)):
            if line.startswith(prefix.rstrip()) and line[len(prefix.rstrip()):].strip():
                item = normalize_title(line[len(prefix.rstrip()):])
                if len(item) <= chars:
                    into.setdefault(item.casefold(), item)
    return content[:at], tuple(questions.values())[:QUESTIONS_MAX], tuple(aliases.values())[:ALIASES_MAX]


def _governs(lines: list[str]) -> "tuple[str, ...]":
    """The anchors of `- governs:` lines, each in stored form; a line the store would refuse is left out."""
    from ..base.anchors import ANCHORS_MAX, AnchorError, normalize

    out: dict[str, None] = {}
    head = GOVERNS_PREFIX.rstrip()
    for line in lines:
        if line.startswith(head) and line[len(head):].strip() and len(out) < ANCHORS_MAX:
            try:
                out.setdefault(normalize(line[len(head):].strip()), None)
            except AnchorError:
                continue
    return tuple(out)


def _check_block(key: str, type_: str, content: list[str], kind: Kind) -> str | None:
    if not key:
        return "entry without an id (add id=<any new id> to its agentctx:entry line)"
    if not KEY_RE.match(key):
        return f"bad id {key!r} (letters, digits, '.', '_' or '-', at most 64)"
    if type_ not in kind.types:
        return f"type {type_!r} is not one of {', '.join(kind.types)}"
    if any(CONFLICT_RE.match(line) for line in content):
        return "unresolved git merge conflict markers"
    content = _asked(content)[0]
    text = [line for line in content if line.strip()]
    if not text or not text[0].strip().startswith("### "):
        return "entry without a `### title` line"
    title = normalize_title(text[0].strip()[4:])
    if not title:
        return "blank title"
    if len(title) > TITLE_MAX:
        return f"title is {len(title)} characters; the limit is {TITLE_MAX}"
    title_at = content.index(text[0])
    body = normalize_body("\n".join(content[title_at + 1:]))
    if not body:
        return "entry without a body"
    if len(body) > BODY_MAX:
        return f"body is {len(body)} characters; the limit is {BODY_MAX}"
    return None
