"""Gemini CLI's settings: our hooks and MCP server in ~/.gemini/settings.json, the hooks switch, folder trust as
`doctor` sees it; byte-exact undo (vendor-notes/gemini-cli.md)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

from ..base import paths, userfiles
from ..base.errors import ConfigError
from . import files, gemini

KIND = "Gemini CLI settings"
MCP_NAME = "agentctx"  # no underscore: Gemini names MCP tools mcp_<server>_<tool> and splits on it (fact 9)
MCP_KEY = "mcpServers.agentctx"  # what userfiles.owned remembers we wrote
# Our handlers: `… hook <event> --agent gemini`, then the guard below.
_OURS = re.compile(r"(?:^|\s)hook\s+[a-z-]+\s+--agent\s+gemini(?:\s+2>/dev/null\s+\|\|\s+true)?\s*$")
# A hook that exits non-zero after printing anything blocks the prompt, and a missing command is exactly that (127
# and "not found", fact 16): the guard keeps an uninstalled agentctx silent and the exit 0.
GUARD = "2>/dev/null || true"


def settings_file() -> Path:
    return paths.gemini_home() / "settings.json"


def trusted_folders_file() -> Path:
    return paths.gemini_trusted_folders()


def binary() -> str | None:
    return shutil.which("gemini")


def detected() -> bool:
    """Gemini CLI is installed: on PATH, or its user directory exists (and is not one agentctx created)."""
    home = paths.gemini_home()
    return binary() is not None or (home.is_dir() and not userfiles.created_by_us(home))


def command(argv: tuple[str, ...] | list[str], event: str) -> str:
    return " ".join(shlex.quote(a) for a in (*argv, "hook", event, "--agent", gemini.NAME)) + " " + GUARD


def is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) and bool(_OURS.search(handler["command"]))


def _group(event: str, argv: tuple[str, ...]) -> dict[str, Any]:
    neutral, matcher, timeout = gemini.EVENTS[event]
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [{"type": "command", "name": f"agentctx-{neutral}", "command": command(argv, neutral),
                       "timeout": timeout}]
    return group


def _strip(groups: list[Any]) -> list[Any]:
    kept = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(handlers, list) and any(is_ours(h) for h in handlers):
            rest = [h for h in handlers if not is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    return kept


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError("file_invalid", path=str(settings_file()), kind=KIND, detail=f'"{key}" is not an object')
    return value


def install(argv: tuple[str, ...], *, mcp: bool = True) -> tuple[bool, str]:
    """Our five hooks (user scope: no fingerprint warning, fact 7) and the MCP server; whether the file changed, and
    what became of the MCP server (added, updated, same, theirs; none without `mcp`)."""
    def change(data: dict[str, Any]) -> None:
        hooks = _object(data, "hooks")
        for event in gemini.EVENTS:
            groups = hooks.get(event, [])
            if not isinstance(groups, list):
                raise ConfigError("file_invalid", path=str(settings_file()), kind=KIND,
                                  detail=f'"hooks.{event}" is not an array')
            desired = _group(event, argv)
            ours = [g for g in groups if isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or [])]
            if len(ours) == 1 and ours[0] == desired:
                continue
            hooks[event] = _strip(groups) + [desired]
        if mcp:
            # No cwd (it would become the project agentctx serves) and no env: Gemini passes AGENTCTX_HOME on and
            # refuses PYTHONPATH (fact 20).
            entry = mcp_value(argv)
            servers = _object(data, "mcpServers")
            current = servers.get(MCP_NAME)
            if current == entry:
                outcome[0] = "same"
            elif current is not None and not mcp_is_ours(current):
                outcome[0] = "theirs"  # `gemini mcp add agentctx …`: the user's, left as it is
            else:
                servers[MCP_NAME] = entry
                userfiles.own(settings_file(), MCP_KEY, entry)
                outcome[0] = "added" if current is None else "updated"
    outcome = ["none"]
    changed = files.json_edit(settings_file(), KIND, change)
    return changed, outcome[0]


def mcp_value(argv: tuple[str, ...]) -> dict[str, Any]:
    return {"command": argv[0], "args": [*argv[1:], "mcp"]}


def mcp_is_ours(entry: Any) -> bool:
    """`mcpServers.agentctx` is ours when we wrote it and it still holds what we wrote (`gemini mcp add agentctx`
    makes one of the user's own). Before agentctx remembered: our exact shape, in a file whose original had none."""
    def had(text: str) -> bool:
        servers = files.load_json(text, settings_file(), KIND).get("mcpServers")
        return isinstance(servers, dict) and MCP_NAME in servers
    return isinstance(entry, dict) and userfiles.entry_is_ours(
        settings_file(), MCP_KEY, entry, had_entry=had,
        our_shape=lambda e: set(e) == {"command", "args"} and isinstance(e["args"], list) and e["args"][-1:] == ["mcp"])


def _remove(data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        emptied = False
        for event in list(hooks):
            if isinstance(hooks[event], list) and hooks[event]:
                hooks[event] = _strip(hooks[event])
                if not hooks[event]:
                    del hooks[event]
                    emptied = True
        if not hooks and emptied:
            del data["hooks"]
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and mcp_is_ours(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
        userfiles.disown(settings_file(), MCP_KEY)
        if not servers:
            del data["mcpServers"]
    for key in _flags_set():
        section = data.get("hooksConfig")
        if isinstance(section, dict) and section.get(key) is True:
            section[key] = False


def check_settings() -> None:
    """A settings.json we cannot read is refused (ConfigError) before any file is written."""
    raw = files.read(settings_file())
    if raw is not None:
        files.load_json(raw, settings_file(), KIND)


def _settings() -> dict[str, Any]:
    try:
        return files.load_json(settings_file().read_text(encoding="utf-8"), settings_file(), KIND)
    except (OSError, ConfigError):
        return {}


def registered() -> dict[str, str]:
    """Gemini event -> our command registered for it."""
    hooks = _settings().get("hooks")
    out: dict[str, str] = {}
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            for handler in (group.get("hooks") or []) if isinstance(group, dict) else ():
                if is_ours(handler):
                    out[event] = handler["command"]
    return out


def mcp_entry() -> dict[str, Any] | None:
    servers = _settings().get("mcpServers")
    entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


# --- the hooks switch and folder trust ------------------------------------------------------------------------

def disabled_flag() -> str | None:
    """`hooksConfig.enabled` when it is false: then no hook runs (fact 7)."""
    section = _settings().get("hooksConfig")
    return "hooksConfig.enabled" if isinstance(section, dict) and section.get("enabled") is False else None


def _flags_file() -> Path:
    return paths.state_dir() / "gemini-flags.json"


def _flags_set() -> list[str]:
    try:
        return [k for k in json.loads(_flags_file().read_text(encoding="utf-8")) if isinstance(k, str)]
    except (OSError, ValueError, TypeError):
        return []


def enable_hooks_flag() -> str:
    """Set hooksConfig.enabled to true (asked first, by the caller); `uninstall` sets it back."""
    if disabled_flag() is None:
        return "Gemini CLI hooks were already on"
    files.json_edit(settings_file(), KIND, lambda data: _object(data, "hooksConfig").__setitem__("enabled", True))
    paths.ensure_private_dir(paths.state_dir())
    _flags_file().write_text(json.dumps(["enabled"]), encoding="utf-8")
    return f"set hooksConfig.enabled = true in {settings_file()} (it was false: no Gemini CLI hook ran)"


def folder_trusted(root: str) -> bool | None:
    """Whether Gemini CLI trusts `root` (trustedFolders.json, fact 5); None when folder trust is off."""
    security = _settings().get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return None
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True
    try:
        rules = json.loads(trusted_folders_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    verdict, depth = False, -1
    for folder, level in (rules.items() if isinstance(rules, dict) else ()):
        base = os.path.dirname(folder) if level == "TRUST_PARENT" else folder
        inside = root == base or root.startswith(base.rstrip(os.sep) + os.sep)
        if inside and len(base) > depth:  # the most specific rule wins
            verdict, depth = level in ("TRUST_FOLDER", "TRUST_PARENT"), len(base)
    return verdict


# --- doing it all ----------------------------------------------------------------------------------------------

_MCP_SAID = {"added": "registered hooks and MCP server `agentctx` in {}", "updated": "registered hooks and MCP server "
             "`agentctx` in {}", "same": "", "theirs": "MCP server `agentctx` in {} is one you registered yourself: "
             "left as it is", "none": ""}


def wire(argv: tuple[str, ...], *, mcp: bool = True) -> list[str]:
    changed, server = install(argv, mcp=mcp)
    where = settings_file()
    if server in ("added", "updated"):
        return [_MCP_SAID[server].format(where)]
    what = "hooks and MCP server `agentctx`" if server == "same" else "hooks"
    done = [("registered " if changed else "already registered: ") + f"{what} in {where}"]
    return done + ([_MCP_SAID[server].format(where)] if server == "theirs" else [])


def unwire() -> list[str]:
    changed = files.json_restore(settings_file(), KIND, _remove, ("hooks", "mcpServers", "hooksConfig"))
    _flags_file().unlink(missing_ok=True)
    done = [f"removed agentctx hooks and settings from {settings_file()}"] if changed else []
    left = files.backup_left(settings_file())
    if left is not None:
        done.append(f"kept {left}: your file before agentctx, which holds something {settings_file().name} no "
                    "longer does")
    return done
