"""Guards checked against one action (SPEC §4.11): every command of a shell line as the shell runs it, every file
the action writes, `always` as "ran before and succeeded", a line that cannot be read in full stopped when it names
what a guard forbids."""

import os

from ..base import anchors, cmdpattern, guards
from ..base.shell import mentions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .action import Target

_GLOB = frozenset("*?[")
_CONTAINERS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "eval"})


def stop(entry: dict, target: "Target") -> "tuple[str, str]":  # type: ignore[type-arg]
    """(`ask` or `deny`, why beyond the record) when the entry's guard stops this action; ("", "") otherwise."""
    text = entry.get("guard")
    parsed = guards.parse(text) if isinstance(text, str) else None
    if parsed is None:
        return "", ""
    mode, decision, patterns = parsed
    if mode == "never":
        for pattern in patterns:
            why = _never(pattern, target)
            if why is not None:
                return decision, why
        return "", ""
    scope = tuple(a for a in entry.get("anchors") or () if isinstance(a, str))
    why = _always(scope, patterns, target)
    return (decision, why) if why is not None else ("", "")


def _has_symbol(symbol: str, text: str) -> bool:
    """Whether `text` names the symbol: its last part (`send` of `Client.send`) as a whole identifier."""
    name = symbol
    for sep in (".", ":", "#"):
        name = name.rsplit(sep, 1)[-1]
    if not name:
        return False
    at = text.find(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name)] if at + len(name) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        at = text.find(name, at + 1)
    return False


def matches(anchor: str, target: "Target") -> bool:
    """Whether one stored anchor (`kind:value`) governs the target (base/anchors.py's bounded matchers)."""
    kind, _, value = anchor.partition(":")
    if kind == "path":
        return any(anchors.path_matches(value, p) for p in target.paths)
    if kind == "command":
        if not target.command:
            return False
        from ..base.cmdpattern import matches as command_matches

        return any(command_matches(value, c.words) for c in target.shell().commands)
    if kind == "tool":
        return bool(target.tool) and anchors.tool_matches(value, target.tool)
    if kind == "symbol":
        return bool(target.text) and _has_symbol(value, target.text)
    return False


# --- never ----------------------------------------------------------------------------------------------------


def _never(pattern: str, target: "Target") -> "str | None":
    """None when the pattern does not name this action; else "" or a note on why it was taken to."""
    kind, value = anchors.split(pattern)
    if kind == "path":
        return "" if any(_covers(value, f, target) for f in _files(target)) else None
    if kind == "tool":
        return "" if target.tool and anchors.tool_matches(value, target.tool) else None
    if kind != "command" or not target.command:
        return None
    line = target.shell()
    if any(cmdpattern.matches(value, c.words) for c in line.commands):
        return ""
    if line.unreadable and named(value, target.command):
        return f"the command line could not be read in full ({line.unreadable}) and names `{value}`"
    for c in line.commands:
        if c.splits and _may_hold(value, c):
            return f"`{' '.join(c.words)[:80]}` has a variable that may hold what `{value}` forbids"
        code = inline_code(c)
        if code and named(value, code):
            return f"the code `{c.words[0]}` runs names `{value}`"
    return None


_INTERPRETERS = {"node": ("-e", "--eval", "-p", "--print"), "deno": ("eval",), "bun": ("-e", "--eval"),
                 "perl": ("-e", "-E"), "ruby": ("-e",), "php": ("-r",), "osascript": ("-e",)}


def inline_code(c: "object") -> str:
    """The code an interpreter runs from the line itself (`python -c CODE`, `python - <<EOF`, `node -e CODE`,
    `perl -e CODE`), or "": a guarded command it names may be run from there (`os.system("git push -f")`)."""
    words = c.words  # type: ignore[attr-defined]
    if not words:
        return ""
    head = words[0]
    flags = ("-c",) if head.startswith("python") or head in ("py", "pypy3") else _INTERPRETERS.get(head, ())
    for k, w in enumerate(words[1:-1], 1):
        if w in flags:
            return words[k + 1]
    if flags and c.heredoc and (len(words) == 1 or words[1] == "-"):  # type: ignore[attr-defined]
        return c.heredoc  # type: ignore[attr-defined]
    return ""


def _may_hold(pattern: str, c: "object") -> bool:
    """Whether a command with unquoted expansions (`git push $FLAGS`) matches the pattern once they are taken to hold
    the pattern's options: the shell splits them into words, options included."""
    words = [w for k, w in enumerate(c.words) if k not in c.splits]  # type: ignore[attr-defined]
    want = cmdpattern._spelled(pattern.split())
    extra = [w for w in want[1:] if w.startswith("-")]
    return bool(extra) and cmdpattern.matches(pattern, words + extra)


def named(pattern: str, text: str) -> bool:
    """Whether raw text names a command pattern: its tool and subcommands as words, and each of its options in one
    of its spellings (`-f`, `--force`, `--force-with-lease`): what a line that could not be read is searched for.
    A line with an expansion (`$GIT push -f`) may run any tool: then the tool's name need not be there."""
    words = cmdpattern._spelled(pattern.split())
    if not words:
        return False
    expands = "$" in text or "`" in text
    if words[0] not in cmdpattern.TOOLS:
        return (expands or mentions(text, words[0])) and all(mentions(text, w) for w in words[1:])
    positional, options = cmdpattern.read(words)
    if not (expands or mentions(text, positional[0])) or not all(mentions(text, w) for w in positional[1:]):
        return False
    return all(any(mentions(text, s) for s in _spellings(words[0], o)) for o in options)


def _spellings(tool: str, option: str) -> "set[str]":
    spec = cmdpattern.TOOLS[tool]
    out = {option, "-" + option.lstrip("-")} if spec.get("dash_long") else {option}
    for table in spec.get("aliases", {}).values():
        out.update(k for k, v in table.items() if option in v.split())
    out.update(k for k, v in spec.get("implies", {}).items() if v == option)
    return out


# --- always ---------------------------------------------------------------------------------------------------


def _always(scope: "tuple[str, ...]", patterns: "tuple[str, ...]", target: "Target") -> "str | None":
    """None when every part of the action inside the scope also matches a pattern; else "" or a note."""
    files = _files(target)
    for f in files:  # every file the action writes, on its own
        if any(anchors.split(a)[0] == "path" and _covers(anchors.split(a)[1], f, target) for a in scope):
            if not any(_file_satisfies(p, f, target) for p in patterns):
                return ""
    if target.command:
        line = target.shell()
        commands = line.commands
        for j, c in enumerate(commands):  # every command the line runs, with what ran before it
            if any(k == "command" and cmdpattern.matches(v, c.words) for k, v in map(anchors.split, scope)):
                if not any(_command_satisfies(p, commands, j, target) for p in patterns):
                    return ""
        if line.unreadable:
            for a in scope:
                kind, value = anchors.split(a)
                if kind == "command" and named(value, target.command):
                    return f"the command line could not be read in full ({line.unreadable}) and names `{value}`"
    for a in scope:  # a tool or a symbol scope: the action as a whole
        kind, value = anchors.split(a)
        if kind in ("tool", "symbol") and _whole(a, target):
            if not any(_whole(p, target) for p in patterns):
                return ""
    return None


def _file_satisfies(pattern: str, f: str, target: "Target") -> bool:
    kind, value = anchors.split(pattern)
    if kind == "path":
        return _covers(value, f, target)
    if kind == "tool":
        return anchors.tool_matches(value, target.tool)
    return False


def _command_satisfies(pattern: str, commands: tuple, j: int, target: "Target") -> bool:  # type: ignore[type-arg]
    kind, value = anchors.split(pattern)
    if kind == "tool":
        return anchors.tool_matches(value, target.tool)
    if kind != "command":
        return False
    if cmdpattern.matches(value, commands[j].words):
        return True
    return ran_before(commands, j, lambda c: cmdpattern.matches(value, c.words))


def ran_before(commands: tuple, j: int, wanted: "object") -> bool:  # type: ignore[type-arg]
    """Whether a command `wanted` accepts ran, and succeeded, before commands[j]: it is joined to it by `&&` only
    (`A && B`, `A && x && B`), also from inside a nested shell (`A && bash -c "B"`, `bash -c "A && B"`)."""
    k = j
    while True:
        c = commands[k]
        if c.op == "&&":
            p = k - 1
            while p >= 0 and commands[p].depth > c.depth:
                p -= 1
            if p < 0 or commands[p].depth != c.depth:
                return False
            if not commands[p].negated and (wanted(commands[p]) or _ends_with(commands, p, wanted)):  # type: ignore[operator]
                return True
            k = p
        elif c.op == "" and c.depth > 0:  # first of a nested line: it runs after what its container ran after
            p = k - 1
            while p >= 0 and commands[p].depth >= c.depth:
                p -= 1
            if p < 0:
                return False
            k = p
        else:
            return False


def _ends_with(commands: tuple, p: int, wanted: "object") -> bool:  # type: ignore[type-arg]
    """A nested shell (`bash -c "x; make test"`) succeeds when its last command ran and succeeded."""
    c = commands[p]
    if not c.words or c.words[0] not in _CONTAINERS:
        return False
    last = None
    for q in range(p + 1, len(commands)):
        if commands[q].depth <= c.depth:
            break
        if commands[q].depth == c.depth + 1:
            last = q
    return last is not None and commands[last].op != "||" and bool(wanted(commands[last]))  # type: ignore[operator]


def _whole(anchor: str, target: "Target") -> bool:
    return matches(anchor, target)


# --- paths ----------------------------------------------------------------------------------------------------


def _files(target: "Target") -> "tuple[str, ...]":
    return target.writes or target.paths


def _covers(glob: str, path: str, target: "Target") -> bool:
    """Whether a guard's path pattern covers a file the action writes: the names as given, and with symlinked
    folders inside the repository resolved on both sides (`db -> migrations`); a glob the shell has not expanded
    (`rm migrations/*`) or a folder above the pattern (`rm -rf migrations`, `git checkout -- .`) covers it too."""
    for g in _real_globs(glob, target):
        for p in _real_paths(path, target):
            if _one_covers(g, p):
                return True
    return False


def _one_covers(glob: str, path: str) -> bool:
    if path == "":  # the repository itself (`rm -rf .`)
        return True
    if anchors.path_matches(glob, path):
        return True
    parts = [p for p in path.split("/") if p]
    if any(c in _GLOB for c in path):  # the shell's own glob, from where the line runs: segment by segment
        if anchors._segments_match(parts, [p for p in glob.split("/") if p]):
            return True
    head = _literal_head(glob)
    return bool(parts) and len(parts) <= len(head) and head[:len(parts)] == parts  # a folder at or above it


def _literal_head(glob: str) -> "list[str]":
    out = []
    for seg in glob.rstrip("/").split("/"):
        if any(c in "*?" for c in seg):
            break
        out.append(seg)
    if len(out) == 1 and "/" not in glob:  # a bare name matches at any depth: no folder above it
        return []
    return out


def _real_paths(path: str, target: "Target") -> "list[str]":
    out = [path]
    real = _real(path, target.root)
    if real is not None and real != path:
        out.append(real)
    return out


def _real_globs(glob: str, target: "Target") -> "list[str]":
    """The glob, and with its literal folders resolved when one is a symlink inside the repository."""
    out = [glob]
    head = _literal_head(glob)
    if head and target.root:
        real = _real("/".join(head), target.root)
        if real is not None and real != "/".join(head):
            rest = glob.rstrip("/").split("/")[len(head):]
            out.append("/".join([real, *rest]) + ("/" if glob.endswith("/") else ""))
    return out


def _real(rel: str, root: str) -> "str | None":
    """`rel` with symlinks resolved, relative to the repository; None when it resolves outside it."""
    if not root or any(c in _GLOB for c in rel):
        return None
    base = os.path.realpath(root)
    full = os.path.realpath(os.path.join(base, rel))
    if full == base:
        return ""
    return full[len(base) + 1:] if full.startswith(base + "/") else None


# --- what enforces the guards ---------------------------------------------------------------------------------

# `agentctx` subcommands that change, move or lift a guard, or stop guards being enforced: run by the agent through
# its shell they are the agent's, not the user's, and are stopped (asked) while the project has a guard.
PROTECTED = frozenset({"guard", "off", "forget", "delete", "reset", "uninstall", "supersede", "config", "review"})
# The agents' settings files that register hooks: editing them can unregister the pre-action hook.
AGENT_SETTINGS = ("/.claude/settings.json", "/.claude/settings.local.json", "/.codex/hooks.json",
                  "/.codex/config.toml", "/.gemini/settings.json", "/.copilot/settings.json",
                  "/.copilot/config.json")
_GLOBALS = frozenset({"-C", "--project-dir"})


def tamper(target: "Target", home: str) -> str:
    """Why this action would change or switch off what enforces the user's guards, or "": an `agentctx` command
    in PROTECTED (or `record --supersedes`), a write into agentctx's own directory (the store, the anchor map, the
    on/off switches, config.json), to the repository's opt-in marker `.agentctx/enabled` or to a file where an agent
    registers its hooks (AGENT_SETTINGS, ~/.copilot/hooks/), `sqlite3` on the store, or a request to the
    dashboard's guard endpoint."""
    for path in target.outside:
        if _under(path, home):
            return f"it writes agentctx's own files ({path})"
        if path.endswith(AGENT_SETTINGS) or "/.copilot/hooks/" in path:
            return f"it writes {path}, where the agent's hooks (agentctx's guards among them) are registered"
    for path in target.writes:
        if path == ".agentctx" or path.startswith(".agentctx/enabled"):
            return f"it writes {path}, agentctx's switch for this repository"
        if ("/" + path).endswith(AGENT_SETTINGS) or path.startswith((".claude", ".codex", ".gemini")) and \
                path.count("/") == 0:
            return f"it writes {path}, where the agent's hooks (agentctx's guards among them) are registered"
    if not target.command:
        return ""
    for c in target.shell().commands:
        words = list(c.words)
        if not words:
            continue
        forms = cmdpattern.forms(words)
        for form in forms:
            if form and form[0] == "agentctx":
                sub = _subcommand(form)
                if sub in PROTECTED or (sub == "record" and any(w.startswith("--supersedes") for w in form)):
                    return f"`agentctx {sub}` changes what the user's guards enforce"
        if words[0].startswith("sqlite3") and any("agentctx" in w for w in words[1:]):
            return "it opens agentctx's store with sqlite3"
        if words[0] in ("curl", "wget", "http", "https", "xh") and any("/api/records/" in w and "guard" in w
                                                                      for w in words[1:]):
            return "it calls the dashboard's guard endpoint"
    return ""


def _subcommand(words: "list[str]") -> str:
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _GLOBALS else 1
    return words[i] if i < len(words) else ""


def _under(path: str, home: str) -> bool:
    for base in {home.rstrip("/"), os.path.realpath(home).rstrip("/")}:
        if base and (path == base or path.startswith(base + "/")):
            return True
    return False
