"""What each agent loads by itself: the one skip set the digest, the prompt hook, the pre-action hook and search share.

A record an agent already has in front of its model (a rule file it reads, a line of its own memory) is never sent
to it again by any channel, and still reaches every other agent. Rule files are decided here from their format and
path (vendor-notes/rule-files.md), the agents' memory from the skip set `outside.agentmem` keeps in the store. The
hooks import this module: only the standard library and `base` on its import path.
"""


TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Iterable, Mapping

    from ..base.models import Record

# Every agent this decides for (`agents.NAMES`).
AGENTS = ("claude", "codex", "gemini", "copilot")

# Format -> the agents that load a file of it themselves, wherever their session started (vendor-notes/rule-files.md):
#   claude_rules: Claude Code loads `.claude/rules` without `paths` at start, with `paths` when it Reads, Writes or
#                 Edits a matching file (facts 5, 6, 8a: 2.1.332; see VERSIONED for 2.1.197).
#   claude_md:    a nested CLAUDE.md loads when Claude Code reads files in its folder (fact 7).
#   gemini_md:    Gemini CLI loads a folder's GEMINI.md just in time when a tool touches it (fact 17).
#   copilot:      Copilot CLI loads `.github/instructions/*.instructions.md` by `applyTo` and `.claude/rules` by
#                 `paths` when a matching file is read, those without `paths` at start, and the AGENTS.md,
#                 CLAUDE.md and GEMINI.md of a folder whose file it reads (vendor-notes/copilot-cli.md fact 13,
#                 observed; its docs: "any directories nested in the path of a file it is working on").
#   cursor:       no agent agentctx serves reads `.cursor/rules`.
ALWAYS: dict[str, frozenset[str]] = {
    "claude_rules": frozenset({"claude", "copilot"}), "claude_md": frozenset({"claude", "copilot"}),
    "gemini_md": frozenset({"gemini", "copilot"}), "copilot": frozenset({"copilot"}),
    "agents_md": frozenset({"copilot"}), "cursor": frozenset()}
# Format -> the agents that load a file of it only when their session's working directory is at or below the
# file's folder: Codex builds its AGENTS.md chain once, from the project root down to its working directory
# (developers.openai.com/codex/guides/agents-md; openai/codex#12115), so `web/AGENTS.md` reaches a Codex started at
# the root at none of the edits it governs.
AT_START_BELOW: dict[str, frozenset[str]] = {"agents_md": frozenset({"codex"})}
# (agent, format) -> (the first version known to load it as ALWAYS says, what older versions miss). Claude Code
# 2.1.197 did not load a `paths` rule after a Write of a matching file (fact 8a): a caller that knows the version
# passes it; the hooks do not (no agent sends its version), so they follow the current behaviour.
VERSIONED: dict[tuple[str, str], str] = {("claude", "claude_rules"): "2.1.332"}  # path-scoped rules only

_TAGS = {".cursor/rules/": "cursor", ".claude/rules/": "claude_rules", ".github/instructions/": "copilot",
         "AGENTS.md": "agents_md", "CLAUDE.md": "claude_md", "GEMINI.md": "gemini_md"}


class Native(tuple):  # type: ignore[type-arg]
    """(always, below): the agents that load a record themselves in every session, and agent -> the folder a
    session must have started in (or below) for that agent to load it. A plain tuple: the hooks build none of it."""

    __slots__ = ()

    def __new__(cls, always: "frozenset[str]" = frozenset(), below: "Mapping[str, str] | None" = None) -> "Native":
        return tuple.__new__(cls, (always, dict(below or {})))

    @property
    def always(self) -> "frozenset[str]":
        return self[0]

    @property
    def below(self) -> "dict[str, str]":
        return self[1]


def rule_paths(record: "Record") -> "list[str]":
    """The rule files a rule_file record was read from, from its title (`rulefiles.title_of`)."""
    if record.source != "rule_file":
        return []
    head = record.title.split(": ", 1)[0]
    first, _, also = head.partition(" (also ")
    return [first] + [p.strip() for p in also.rstrip(")").split(",") if p.strip()]


def _format_of(path: str) -> "str | None":
    from .rulefmt import format_of

    fmt = format_of(path)
    if fmt:
        return fmt
    for tag, name in _TAGS.items():  # a copy named only by its format (rulefiles.title_of)
        if path == tag or (tag.endswith("/") and path.startswith(tag)):
            return name
    return None


def _older(version: str, than: str) -> bool:
    def parts(v: str) -> "tuple[int, ...]":
        out = []
        for p in v.split("."):
            digits = "".join(c for c in p if c.isdigit())
            out.append(int(digits) if digits else 0)
        return tuple(out)

    return parts(version) < parts(than)


def of_record(record: "Record", versions: "Mapping[str, str] | None" = None) -> Native:
    """Who loads a rule-file record themselves (nobody, for any other record): `versions` (agent -> version),
    when known, drops an agent whose version predates the behaviour (VERSIONED)."""
    always: set[str] = set()
    below: dict[str, str] = {}
    for path in rule_paths(record):
        fmt = _format_of(path)
        if fmt is None:
            continue
        for agent in ALWAYS.get(fmt, ()):
            first = VERSIONED.get((agent, fmt))
            # What changed is loading at a Write of a matching file: a rule for every session loads at start in all.
            if first and not record.pinned and versions and versions.get(agent) and _older(versions[agent], first):
                continue
            always.add(agent)
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        for agent in AT_START_BELOW.get(fmt, ()):
            if not folder:  # at the root: every session's chain starts there
                always.add(agent)
                continue
            # Of two copies, the shallower folder is the one more sessions start in or below.
            if agent not in below or len(folder) < len(below[agent]):
                below[agent] = folder
    return Native(frozenset(always), {a: f for a, f in below.items() if a not in always})


def at_start(record: "Record", n: "Native | None" = None) -> "frozenset[str]":
    """Of the agents that load a record themselves in every session (`n.always`), those that have it from the
    session's start: all of them for a rule that applies everywhere (`pinned`), and Codex for an AGENTS.md at the
    root. The others load it when their own read or edit tool touches a matching file, never for a shell line."""
    n = of_record(record) if n is None else n
    if record.pinned:
        return n.always
    out = set()
    for path in rule_paths(record):
        fmt = _format_of(path)
        if fmt and "/" not in path:
            out.update(a for a in AT_START_BELOW.get(fmt, ()) if a in n.always)
    return frozenset(out)


def within(cwd_rel: str, folder: str) -> bool:
    """Whether a session started at `cwd_rel` (repository-relative, "" the root) is at or below `folder`."""
    return not folder or cwd_rel == folder or cwd_rel.startswith(folder.rstrip("/") + "/")


def native_agents(record: "Record", *, cwd: "str | None" = None,
                  versions: "Mapping[str, str] | None" = None) -> "frozenset[str]":
    """The agents that load this record's rule themselves: those that always do, and, for a session started at
    `cwd` (repository-relative; None: not known, so none of these), those whose chain from the root reaches it."""
    n = of_record(record, versions)
    if cwd is None:
        return n.always
    return n.always | {a for a, folder in n.below.items() if within(cwd, folder)}


def entry_skips(entry: "Mapping[str, object]", agent: str, cwd_rel: str, shell: bool = False) -> bool:
    """Whether `agent`, in a session started at `cwd_rel`, loads an anchor-map entry's record itself for this call
    (the map keeps `skip_agents`, `skip_start` and `skip_below` from `of_record`). For a call whose files come from a
    shell line (`shell`: `sed -i`, `>`, `cat`...) only what the agent has from the start counts: no agent loads a
    path rule for a shell edit or read. What the pre-action hook asks: no import, no store."""
    skips = entry.get("skip_start" if shell else "skip_agents") or ()
    if agent in skips:  # type: ignore[operator]
        return True
    below = entry.get("skip_below")
    folder = below.get(agent) if isinstance(below, dict) else None
    return isinstance(folder, str) and within(cwd_rel, folder)


def loaded_ids(conn: "sqlite3.Connection", project_id: str, agent: str, records: "Iterable[Record]",
               cwd_rel: "str | None" = None) -> "set[str]":
    """Of `records`, the ids `agent` loads itself: its own memory's (the store's skip set) and the rule files it
    reads. What the prompt hook leaves out."""
    from ..store.agentmem import skip_ids

    out = set(skip_ids(conn, project_id, agent)) if agent else set()
    for r in records:
        if r.source == "rule_file" and agent in native_agents(r, cwd=cwd_rel):
            out.add(r.id)
    return out


def loaded_by(conn: "sqlite3.Connection", project_id: str, records: "Iterable[Record]") -> "dict[str, list[str]]":
    """Record id -> the agents that load it themselves (rule files and the agents' memories): what `ctx_search`
    marks, so an agent knows it already has the text."""
    from ..store.agentmem import skip_rows

    out: "dict[str, set[str]]" = {}
    wanted = {r.id: r for r in records}
    try:
        for agent, rid, _why in skip_rows(conn, project_id):
            if rid in wanted:
                out.setdefault(rid, set()).add(agent)
    except Exception:  # a store before migration 16: only rule files are marked
        pass
    for rid, r in wanted.items():
        if r.source == "rule_file":
            agents = native_agents(r)
            if agents:
                out.setdefault(rid, set()).update(agents)
    return {rid: sorted(a) for rid, a in out.items()}


def provenance(record: "Record") -> "tuple[str, str]":
    """(title, label) a rule-file record is shown with: the rule's own title and " (rule file: <path>)", its first
    file (a copy elsewhere says the same; the team file does not carry these); any other record: its title and ""."""
    paths = rule_paths(record)
    if not paths:
        return record.title, ""
    head, sep, label = record.title.partition(": ")
    return (label if sep and label else record.title), f" (rule file: {paths[0]})"
