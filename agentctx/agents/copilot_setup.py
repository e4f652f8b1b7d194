"""GitHub Copilot CLI's settings: our hooks in ~/.copilot/hooks/agentctx.json, our MCP server in
~/.copilot/mcp-config.json, the `disableAllHooks` switch in settings.json; byte-exact undo
(vendor-notes/copilot-cli.md)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

from ..base import paths, userfiles
from ..base.errors import ConfigError
from . import copilot, files

KIND, MCP_KIND, SETTINGS_KIND = "Copilot CLI hooks file", "Copilot CLI MCP config", "Copilot CLI settings"
MCP_NAME = "agentctx"  # the model sees our tools as agentctx-ctx_search, ... (fact 12)
MCP_KEY = "mcpServers.agentctx"  # what userfiles.owned remembers we wrote
# Our handlers: `… hook <event> --agent copilot`, then the guard below.
_OURS = re.compile(r"(?:^|\s)hook\s+[a-z-]+\s+--agent\s+copilot(?:\s+2>/dev/null\s+\|\|\s+true)?\s*$")
# A preToolUse hook that fails denies the tool call (fact 8), and a missing command is exactly that: the guard keeps
# an uninstalled agentctx from stopping every tool.
GUARD = "2>/dev/null || true"
SWITCH = "disableAllHooks"


def home() -> Path:
    return Path(copilot.home())


def hooks_file() -> Path:
    """User-level hooks: Copilot loads every ~/.copilot/hooks/*.json, trusted folder or not (fact 3). This one is
    ours; a user who adds to it keeps what they added."""
    return home() / "hooks" / "agentctx.json"


def mcp_file() -> Path:
    return home() / "mcp-config.json"


def settings_file() -> Path:
    return home() / "settings.json"


def binary() -> str | None:
    return shutil.which("copilot")


def detected() -> bool:
    """Copilot CLI is installed: on PATH, or its user directory exists (and is not one agentctx created)."""
    where = home()
    return binary() is not None or (where.is_dir() and not userfiles.created_by_us(where))


def command(argv: tuple[str, ...] | list[str], event: str) -> str:
    return " ".join(shlex.quote(a) for a in (*argv, "hook", event, "--agent", copilot.NAME)) + " " + GUARD


def is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("bash"), str) and bool(_OURS.search(handler["bash"]))


def _entry(event: str, argv: tuple[str, ...]) -> dict[str, Any]:
    neutral, matcher, timeout = copilot.EVENTS[event]
    entry: dict[str, Any] = {"type": "command", "bash": command(argv, neutral), "timeoutSec": timeout}
    if matcher:
        entry["matcher"] = matcher
    return entry


def _object(data: dict[str, Any], key: str, path: Path, kind: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError("file_invalid", path=str(path), kind=kind, detail=f'"{key}" is not an object')
    return value


# --- the hooks file --------------------------------------------------------------------------------------------

def install_hooks(argv: tuple[str, ...]) -> bool:
    """Our entry for each event (one each, after any the user added); True when the file changed."""
    def change(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        hooks = _object(data, "hooks", hooks_file(), KIND)
        for event in copilot.EVENTS:
            entries = hooks.get(event, [])
            if not isinstance(entries, list):
                raise ConfigError("file_invalid", path=str(hooks_file()), kind=KIND,
                                  detail=f'"hooks.{event}" is not an array')
            desired = _entry(event, argv)
            if [e for e in entries if is_ours(e)] == [desired]:
                continue
            hooks[event] = [e for e in entries if not is_ours(e)] + [desired]
    return files.json_edit(hooks_file(), KIND, change)


def _remove_hooks(data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        if isinstance(hooks[event], list) and any(is_ours(e) for e in hooks[event]):
            hooks[event] = [e for e in hooks[event] if not is_ours(e)]
            if not hooks[event]:
                del hooks[event]
    if not hooks:
        del data["hooks"]
        if data.get("version") == 1 and len(data) == 1:
            del data["version"]  # what we wrote alone: nothing of the user's is left


def _load(path: Path, kind: str) -> dict[str, Any]:
    try:
        return files.load_json(path.read_text(encoding="utf-8"), path, kind)
    except (OSError, ConfigError):
        return {}


def registered() -> dict[str, str]:
    """Copilot event -> our command registered for it."""
    hooks = _load(hooks_file(), KIND).get("hooks")
    return {event: e["bash"] for event, entries in (hooks.items() if isinstance(hooks, dict) else ())
            for e in (entries if isinstance(entries, list) else ()) if is_ours(e)}


# --- the MCP server --------------------------------------------------------------------------------------------

def mcp_value(argv: tuple[str, ...]) -> dict[str, Any]:
    """No env: Copilot starts a local server with its own environment, AGENTCTX_HOME included (fact 12)."""
    return {"type": "local", "command": argv[0], "args": [*argv[1:], "mcp"], "tools": ["*"]}


def mcp_is_ours(entry: Any) -> bool:
    """`mcpServers.agentctx` is ours when we wrote it and it still holds what we wrote (`copilot mcp add agentctx`
    makes one of the user's own)."""
    def had(text: str) -> bool:
        servers = files.load_json(text, mcp_file(), MCP_KIND).get("mcpServers")
        return isinstance(servers, dict) and MCP_NAME in servers
    return isinstance(entry, dict) and userfiles.entry_is_ours(
        mcp_file(), MCP_KEY, entry, had_entry=had,
        our_shape=lambda e: set(e) == {"type", "command", "args", "tools"} and e["args"][-1:] == ["mcp"])


def install_mcp(argv: tuple[str, ...]) -> str:
    """What became of the MCP server: added, updated, same, or theirs (the user's own, left as it is)."""
    outcome = ["same"]

    def change(data: dict[str, Any]) -> None:
        entry = mcp_value(argv)
        servers = _object(data, "mcpServers", mcp_file(), MCP_KIND)
        current = servers.get(MCP_NAME)
        if current == entry:
            return
        if current is not None and not mcp_is_ours(current):
            outcome[0] = "theirs"
            return
        servers[MCP_NAME] = entry
        userfiles.own(mcp_file(), MCP_KEY, entry)
        outcome[0] = "added" if current is None else "updated"
    files.json_edit(mcp_file(), MCP_KIND, change)
    return outcome[0]


def _remove_mcp(data: dict[str, Any]) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and mcp_is_ours(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
        userfiles.disown(mcp_file(), MCP_KEY)
        if not servers:
            del data["mcpServers"]


def mcp_entry() -> dict[str, Any] | None:
    servers = _load(mcp_file(), MCP_KIND).get("mcpServers")
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


# --- the hooks switch ------------------------------------------------------------------------------------------

def disabled_flag() -> str | None:
    """`disableAllHooks` when it is true in the user's settings.json: then no hook runs (fact 4)."""
    return SWITCH if _load(settings_file(), SETTINGS_KIND).get(SWITCH) is True else None


def _flags_file() -> Path:
    return paths.state_dir() / "copilot-flags.json"


def enable_hooks_flag() -> str:
    """Set disableAllHooks to false (asked first, by the caller); `uninstall` sets it back."""
    if disabled_flag() is None:
        return "Copilot CLI hooks were already on"
    files.json_edit(settings_file(), SETTINGS_KIND, lambda data: data.__setitem__(SWITCH, False))
    paths.ensure_private_dir(paths.state_dir())
    _flags_file().write_text(json.dumps([SWITCH]), encoding="utf-8")
    return f"set {SWITCH} = false in {settings_file()} (it was true: no Copilot CLI hook ran)"


def _restore_flag(data: dict[str, Any]) -> None:
    if data.get(SWITCH) is False:
        data[SWITCH] = True


# --- doing it all ----------------------------------------------------------------------------------------------

def check_files() -> None:
    """A file of ours to edit that we cannot read is refused (ConfigError) before any file is written."""
    for path, kind in ((hooks_file(), KIND), (mcp_file(), MCP_KIND)):
        raw = files.read(path)
        if raw is not None:
            files.load_json(raw, path, kind)


_MCP_SAID = {"added": "registered MCP server `agentctx` in {}", "updated": "updated MCP server `agentctx` in {}",
             "same": "already registered: MCP server `agentctx` in {}",
             "theirs": "MCP server `agentctx` in {} is one you registered yourself: left as it is"}


def wire(argv: tuple[str, ...], *, mcp: bool = True) -> list[str]:
    check_files()
    done = [("registered " if install_hooks(argv) else "already registered: ") + f"{len(copilot.EVENTS)} hooks in "
            f"{hooks_file()}"]
    if mcp:
        done.append(_MCP_SAID[install_mcp(argv)].format(mcp_file()))
    return done


def unwire() -> list[str]:
    done = []
    for path, kind, change, keys in ((hooks_file(), KIND, _remove_hooks, ("hooks",)),
                                     (mcp_file(), MCP_KIND, _remove_mcp, ("mcpServers",))):
        if files.json_restore(path, kind, change, keys):
            done.append(f"removed agentctx's entries from {path}")
        left = files.backup_left(path)
        if left is not None:
            done.append(f"kept {left}: your file before agentctx, which holds something {path.name} no longer does")
    if _flags_file().exists():
        files.json_restore(settings_file(), SETTINGS_KIND, _restore_flag, ())
        _flags_file().unlink(missing_ok=True)
    return done
