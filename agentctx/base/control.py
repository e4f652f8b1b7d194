"""Per-project control: is agentctx on for this project? Flag files the hooks stat, plus three config keys.

The hooks ask `check(project_id, cwd)` before anything else. It must stay as cheap as the rest of the hook path
(SPEC §4.6): only `os`, `paths` and `jsonfast` here, no `json`, `re` or `fnmatch` (which compiles a regex).

Where each decision lives:
- `agentctx off` / `on` for one project: `$AGENTCTX_HOME/control/off/<project_id>` / `control/on/<project_id>`
  (empty-ish flag files: a stat answers the question; the text inside is for people).
- `agentctx off --all`: `control/off-all`.
- config.json keys `mode` (`all` | `opt-in`), `excludedPaths` (globs) and `notify` (`off` | `brief` | `full`).
- In opt-in mode a repository can opt itself in with a committed marker file `.agentctx/enabled`.
Turning off deletes nothing: the flags only stop the hooks and the MCP tools from reading or writing.
"""

import os

from . import jsonfast, paths

MODES = ("all", "opt-in")
NOTIFY_LEVELS = ("off", "brief", "full")
DEFAULT_MODE = "all"
DEFAULT_NOTIFY = "brief"
MARKER = os.path.join(".agentctx", "enabled")  # a repository's own opt-in, relative to any directory up to its root

# Reasons a project is not remembered (the `reason` of `check`): None means on.
OFF = "off"              # `agentctx off` in this project
OFF_ALL = "off-all"      # `agentctx off --all`
EXCLUDED = "excluded"    # cwd under a glob of `excludedPaths`
NOT_OPTED_IN = "opt-in"  # `mode: opt-in` and neither `agentctx on` nor the marker file


def control_dir() -> str:
    return os.path.join(paths.home_dir(), "control")


def flag_file(kind: str, project_id: str) -> str:
    """`kind` is "off" or "on"."""
    return os.path.join(control_dir(), kind, paths._safe(project_id))


def off_all_file() -> str:
    return os.path.join(control_dir(), "off-all")


def settings() -> "tuple[str, tuple[str, ...], str]":
    """(mode, excludedPaths, notify) from config.json, read without the `config` module (which imports json).

    Lenient like `config.load`: a missing or bad file, or a bad value, gives the default."""
    try:
        with open(os.path.join(paths.home_dir(), "config.json"), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return DEFAULT_MODE, (), DEFAULT_NOTIFY
    if not isinstance(data, dict):
        return DEFAULT_MODE, (), DEFAULT_NOTIFY
    mode = data.get("mode")
    notify = data.get("notify")
    globs = data.get("excludedPaths")
    return (mode if mode in MODES else DEFAULT_MODE,
            tuple(g for g in globs if isinstance(g, str) and g.strip()) if isinstance(globs, list) else (),
            notify if notify in NOTIFY_LEVELS else DEFAULT_NOTIFY)


def check(project_id: str, cwd: str) -> "tuple[str | None, str]":
    """(reason the project is off or None, notify level). Explicit `off` wins over everything, then `--all`, then
    `excludedPaths`; in opt-in mode a project is on only after `agentctx on` or with the marker file."""
    mode, globs, notify = settings()
    if os.path.exists(flag_file(OFF, project_id)):
        return OFF, notify
    if os.path.exists(off_all_file()):
        return OFF_ALL, notify
    if globs and excluded_by(globs, cwd) is not None:
        return EXCLUDED, notify
    if mode == "opt-in" and not os.path.exists(flag_file("on", project_id)) and marker_above(cwd) is None:
        return NOT_OPTED_IN, notify
    return None, notify


def marker_above(cwd: str) -> "str | None":
    """The `.agentctx/enabled` marker in `cwd` or a directory above it, up to the repository root."""
    here = os.path.realpath(cwd or ".")
    while True:
        candidate = os.path.join(here, MARKER)
        if os.path.isfile(candidate):
            return candidate
        if os.path.exists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def excluded_by(globs: "tuple[str, ...] | list[str]", cwd: str) -> "str | None":
    """The first glob that matches `cwd` or a directory above it (a pattern naming a directory covers its tree)."""
    target = _segments(os.path.realpath(cwd or "."))
    for pattern in globs:
        expanded = os.path.expanduser(pattern.strip())
        if not expanded.startswith("/"):
            expanded = "**/" + expanded  # a relative glob ("client-*") matches at any depth
        if _match(_segments(expanded) + ["**"], target):
            return pattern
    return None


def _segments(path: str) -> "list[str]":
    return [s for s in path.replace(os.sep, "/").split("/") if s]


def _match(pattern: "list[str]", parts: "list[str]") -> bool:
    """Glob over path segments: `**` spans any number of segments, `*` and `?` stay inside one."""
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and match_segment(head, parts[0]) and _match(pattern[1:], parts[1:])


def match_segment(pattern: str, text: str) -> bool:
    """`*` (any run) and `?` (one character) within one path segment; everything else is literal: the greedy
    two-pointer match with one backtrack point (linear in practice, never exponential; anchors use it too)."""
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(pattern) and (pattern[p] == "?" or pattern[p] == text[t]):
            p += 1
            t += 1
        elif p < len(pattern) and pattern[p] == "*":
            star_p, star_t = p, t
            p += 1
        elif star_p >= 0:
            p = star_p + 1
            star_t += 1
            t = star_t
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def describe(reason: "str | None") -> str:
    """One line for `status`, the MCP tools and the SessionStart notice."""
    return {
        None: "on",
        OFF: "off for this project (`agentctx on` turns it back on)",
        OFF_ALL: "off for every project (`agentctx on --all` turns it back on)",
        EXCLUDED: "off here: this directory matches excludedPaths in config",
        NOT_OPTED_IN: "off: mode is opt-in and this project has not opted in (`agentctx on`, or a .agentctx/enabled file)",
    }.get(reason, str(reason))


# ---- writing (the CLI only) ----

def _write_flag(path: str, text: str) -> None:
    paths.ensure_private_dir_str(os.path.dirname(path))
    from .safeio import create_private  # the CLI writes flags; the hooks only stat them

    fd = create_private(path)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False


def set_project(project_id: str, name: str, root: str, on: bool) -> None:
    """`agentctx on` / `off` for one project: one flag replaces the other. Nothing else changes."""
    from .ids import now_iso

    _remove(flag_file(OFF if on else "on", project_id))
    _write_flag(flag_file("on" if on else OFF, project_id), f"{name}\t{root}\t{now_iso()}\n")


def set_all(on: bool) -> "list[str]":
    """`agentctx off --all` writes the global switch; `on --all` removes it and every project's off flag.
    Returns the names of the projects whose own off flag was removed."""
    from .ids import now_iso

    if not on:
        _write_flag(off_all_file(), f"{now_iso()}\n")
        return []
    _remove(off_all_file())
    cleared = []
    for project_id, name in off_projects():
        if _remove(flag_file(OFF, project_id)):
            cleared.append(name or project_id)
    return cleared


def off_projects() -> "list[tuple[str, str]]":
    """(project id, name) of every project turned off on its own."""
    directory = os.path.join(control_dir(), OFF)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for project_id in names:
        try:
            with open(os.path.join(directory, project_id), encoding="utf-8") as fh:
                name = fh.read().split("\t", 1)[0].strip()
        except OSError:
            name = ""
        found.append((project_id, name))
    return found
