"""Surgical edits of Claude Code's settings: our eight hooks and our MCP entry, nothing else; backups; exact undo."""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import paths, userfiles
from ..base.errors import ConfigError
from . import wiring
from .wiring import MCP_NAME, is_ours

BACKUP_SUFFIX, ABSENT_SUFFIX = userfiles.BACKUP_SUFFIX, userfiles.ABSENT_SUFFIX  # beside the file: the bytes before us

# Claude Code event -> (our kebab event, matcher, extra handler fields); vendor-notes/claude-code-hooks.md.
HOOKS: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    # SessionStart re-runs after compaction (source "compact"): the digest comes back (fact 12).
    "SessionStart": ("session-start", "startup|resume|clear|compact", {"timeout": 10}),
    "UserPromptSubmit": ("user-prompt-submit", None, {"timeout": 10}),
    # Every tool (an anchor may name any tool): records anchored to the edit or command reach the model before it
    # runs, and guards ask or deny (SPEC §4.11). Without an anchor map the hook reads one missing file and exits.
    "PreToolUse": ("pre-tool-use", None, {"timeout": 10}),
    # Only tools whose effects we capture. Synchronous: headless runs cancel async hooks still running at exit and
    # then may skip SessionEnd (async: cancelled in 11 and 4 of 15 runs, SessionEnd skipped in 9 and 1; sync: none;
    # docs/hooks.md). The hook answers at once and captures in a detached child (hooks.later): the agent does not
    # wait for the capture, and nothing cancels it.
    # ctx_get (ours, under either server name): a record fetched after it was delivered before an action (§4.11).
    "PostToolUse": ("post-tool-use", "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*agentctx__ctx_get", {"timeout": 10}),
    # A failed call never reaches PostToolUse: a failing test run or an erroring command comes only here (fact 24).
    "PostToolUseFailure": ("post-tool-use-failure", "Bash", {"timeout": 10}),
    "PreCompact": ("pre-compact", None, {"timeout": 10}),
    "Stop": ("stop", None, {"timeout": 10}),
    # No timeout: a larger one would make every exit wait for it (fact 15); the hook returns at once anyway.
    "SessionEnd": ("session-end", None, {}),
}


@dataclass(frozen=True)
class Launcher:
    """How Claude Code should start agentctx: the PATH command when it is this installation, else absolute."""

    argv: tuple[str, ...]
    on_path: bool

    def command(self, *args: str) -> str:
        return " ".join(shlex.quote(a) for a in (*self.argv, *args))

    def describe(self) -> str:
        if self.on_path:
            return "using `agentctx` from PATH (this installation)"
        return f"using `{self.command()}` (the `agentctx` on PATH is missing or another installation)"


def launcher() -> Launcher:
    """PATH-resolved only when Claude Code's login PATH finds this installation (`agentctx/claude/wiring.py` decides)."""
    choice = wiring.choose()
    return Launcher(choice.argv, choice.on_path)


# --- files --------------------------------------------------------------------------------------------------

def _load(path: Path) -> tuple[dict[str, Any], str | None]:
    """The JSON object in `path` ({} when missing or empty) and its raw text; malformed files are refused.

    Strictly: NaN, Infinity, a number too large for a float and a duplicate key are refused like broken syntax
    (we could not write such a file back as the user wrote it)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        raise ConfigError("file_unreadable", path=str(path), detail=exc.strerror or str(exc)) from None
    if not raw.strip():
        return {}, raw
    try:
        data = userfiles.loads(raw)
    except ValueError as exc:
        raise ConfigError("file_invalid", path=str(path), kind="JSON", detail=userfiles.describe(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError("file_invalid", path=str(path), kind="JSON", detail="not an object")
    return data, raw


def _indent(raw: str | None) -> int | str:
    """Keep the file's own indentation so our edit does not reformat the user's file."""
    if raw:
        m = re.search(r"\n([ \t]+)\S", raw)
        if m:
            return "\t" if m.group(1).startswith("\t") else len(m.group(1))
    return 2


def _dump(data: dict[str, Any], raw: str | None) -> str:
    return userfiles.dumps(data, indent=_indent(raw))  # never text the strict parser would refuse


def _write(path: Path, text: str) -> None:
    userfiles.atomic_write(path, text)  # unique temporary file, fsync, replace; keeps the mode and any symlink


def _apply(path: Path, change: "Any") -> bool:
    """Load, change, and write only when the JSON changed (so a rerun changes no byte); True when written.

    The file behind a symlink is the one edited (and backed up beside it), and the read-modify-write holds the
    user-files lock, so concurrent `init`s register once and back up the user's original, not our edit."""
    with userfiles.locked():
        return _apply_locked(userfiles.real_path(path), change)


def _apply_locked(path: Path, change: "Any") -> bool:
    data, raw = _load(path)
    before = json.dumps(data, sort_keys=False)
    change(data)
    if json.dumps(data, sort_keys=False) == before and raw is not None:
        return False
    userfiles.backup_once(path, raw)
    _write(path, _dump(data, raw))
    return True


def _pruned(data: Any) -> Any:
    """`data` without empty containers under `hooks`/`mcpServers`: `{"hooks": {}}` and `{}` say the same."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key in ("hooks", "mcpServers"):
        value = out.get(key)
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if v != []}
            if value:
                out[key] = value
            else:
                del out[key]
    return out


def _restore(path: Path, change: "Any") -> bool:
    """Undo our change; when what remains is what the user had, put back their exact bytes (or no file)."""
    with userfiles.locked():
        return _restore_locked(userfiles.real_path(path), change)


def _restore_locked(path: Path, change: "Any") -> bool:
    backup, absent = path.with_name(path.name + BACKUP_SUFFIX), path.with_name(path.name + ABSENT_SUFFIX)
    if not path.exists():
        backup.unlink(missing_ok=True)
        absent.unlink(missing_ok=True)
        return False
    data, raw = _load(path)
    before = json.dumps(data)
    change(data)
    changed = json.dumps(data) != before
    if absent.exists() and not data:
        path.unlink()
        absent.unlink()
        return True
    original = None
    if backup.exists():
        try:
            original = userfiles.loads(backup.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            original = None
        if _pruned(original) == _pruned(data):
            os.replace(backup, path)  # byte for byte what the user had
            return True
    if changed:
        _write(path, _dump(data, raw))
    if backup.exists() and original is not None and userfiles.leaves_kept(original, data):
        backup.unlink()  # the file still holds all the original held; else the backup stays
    absent.unlink(missing_ok=True)
    return changed


# --- hooks ----------------------------------------------------------------------------------------------------

def settings_path(project_root: Path | None = None) -> Path:
    """User settings, or the project's committed settings with `--project`."""
    if project_root is not None:
        return project_root / ".claude" / "settings.json"
    return paths.claude_home() / "settings.json"


def _desired_group(event: str, launch: Launcher) -> dict[str, Any]:
    kebab, matcher, extra = HOOKS[event]
    group: dict[str, Any] = {}
    if matcher:
        group["matcher"] = matcher
    group["hooks"] = [{"type": "command", "command": launch.command("hook", kebab), **extra}]
    return group


def _strip_ours(groups: list[Any]) -> list[Any]:
    """The event's groups without our handlers; the user's handlers and matchers stay where they were."""
    kept = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(is_ours(h) for h in group["hooks"]):
            rest = [h for h in group["hooks"] if not is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    return kept


def _hooks_table(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("file_invalid", path=str(path), kind="Claude Code settings", detail='"hooks" is not an object')
    for event in HOOKS:
        if event in hooks and not isinstance(hooks[event], list):
            raise ConfigError("file_invalid", path=str(path), kind="Claude Code settings",
                              detail=f'"hooks.{event}" is not an array')
    return hooks


def install_hooks(path: Path, launch: Launcher) -> bool:
    """Register our hooks (`HOOKS`) in `path`; True when the file changed."""
    def change(data: dict[str, Any]) -> None:
        hooks = _hooks_table(data, path)
        for event in HOOKS:
            groups = hooks.get(event, [])
            desired = _desired_group(event, launch)
            ours = [g for g in groups if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or [])]
            if len(ours) == 1 and ours[0] == desired:
                continue  # already exactly right: leave its position alone
            hooks[event] = _strip_ours(groups) + [desired]
    _load(path)  # refuse a malformed file before anything else
    return _apply(path, change)


def remove_hooks(path: Path) -> bool:
    """Remove our hooks from `path` (pruning what becomes empty); True when the file changed."""
    def change(data: dict[str, Any]) -> None:
        hooks = data.get("hooks")
        if not isinstance(hooks, dict):
            return
        emptied = False
        for event in list(hooks):
            if isinstance(hooks[event], list):
                before = hooks[event]
                hooks[event] = _strip_ours(before)
                if not hooks[event] and before:
                    del hooks[event]
                    emptied = True
        if not hooks and emptied:  # prune only what our removal emptied, not the user's own `{}`
            del data["hooks"]
    return _restore(path, change)


# --- MCP ------------------------------------------------------------------------------------------------------

def mcp_entry(launch: Launcher) -> dict[str, Any]:
    return {"type": "stdio", "command": launch.argv[0], "args": [*launch.argv[1:], "mcp"]}


MCP_KEY = "mcpServers.agentctx"  # what userfiles.owned remembers we wrote


def mcp_is_ours(path: Path, entry: Any) -> bool:
    """`mcpServers.agentctx` is ours when we wrote it and it still holds what we wrote; `claude mcp add agentctx`
    makes one of the user's own (it always writes `env`, which ours never has: our mark before agentctx remembered)."""
    def had(text: str) -> bool:
        servers = (userfiles.loads(text or "{}") or {}).get("mcpServers")
        return isinstance(servers, dict) and MCP_NAME in servers
    return isinstance(entry, dict) and userfiles.entry_is_ours(
        path, MCP_KEY, entry, had_entry=had, our_shape=lambda e: set(e) == {"type", "command", "args"})


def install_mcp(path: Path, launch: Launcher) -> bool:
    """Register (or repair) `mcpServers.agentctx` at user scope in ~/.claude.json; a server of that name the user
    registered is left as it is (`mcp_theirs` says so)."""
    def change(data: dict[str, Any]) -> None:
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise ConfigError("file_invalid", path=str(path), kind="Claude Code state", detail='"mcpServers" is not an object')
        current = servers.get(MCP_NAME)
        if current != mcp_entry(launch) and (current is None or mcp_is_ours(path, current)):
            servers[MCP_NAME] = mcp_entry(launch)
            userfiles.own(path, MCP_KEY, mcp_entry(launch))
    _load(path)
    return _apply(path, change)


def mcp_theirs(path: Path) -> bool:
    """A server named agentctx that we did not write (or that was changed since) is registered in `path`."""
    try:
        servers = _load(path)[0].get("mcpServers")
    except ConfigError:
        return False
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    return entry is not None and not mcp_is_ours(path, entry)


def remove_mcp(path: Path) -> bool:
    def change(data: dict[str, Any]) -> None:
        servers = data.get("mcpServers")
        if isinstance(servers, dict) and mcp_is_ours(path, servers.get(MCP_NAME)):
            del servers[MCP_NAME]
            userfiles.disown(path, MCP_KEY)
            if not servers:
                del data["mcpServers"]
    return _restore(path, change)
