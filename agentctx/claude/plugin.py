"""agentctx as a Claude Code plugin: whether it is installed and enabled (read from Claude Code's own files), whether
this process runs from it, and the plugin's hooks file as our hook table says it must be.

The plugin is `plugin/` in the repository, listed by `.claude-plugin/marketplace.json`; its hooks and MCP server run
`plugin/bin/agentctx`, which starts the package beside it with a Python found on the machine. The plugin and a tool
install wired by `agentctx init` share one store and must not both inject: `init` registers nothing while the plugin
is enabled (unless forced). Claude Code's files and fields: vendor-notes/claude-code-plugins.md."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import paths
from .wiring import json_object

PLUGIN_NAME = "agentctx"
MARKETPLACE_NAME = "agentctx"
PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
# Set by plugin/bin/agentctx for the process it starts: the plugin directory the package was imported from.
ROOT_ENV = "AGENTCTX_PLUGIN_ROOT"
# What every hook of the plugin runs: its launcher, through sh (a copy that lost its executable bit still runs).
HOOK_COMMAND = 'sh "${CLAUDE_PLUGIN_ROOT}/bin/agentctx" hook '


@dataclass(frozen=True)
class Install:
    """One installation of the plugin as Claude Code recorded it, and whether it is enabled where it applies."""

    id: str  # agentctx@<marketplace>
    scope: str  # user, project, local (managed: set by an administrator)
    path: str  # the copy in Claude Code's plugin cache
    version: str
    project: str | None  # the project a project or local install belongs to
    enabled: bool

    def describe(self) -> str:
        where = f"{self.scope} scope" + (f", {self.project}" if self.project else "")
        return f"{self.id} {self.version} ({where}, {'enabled' if self.enabled else 'disabled'})"


def running_from_plugin() -> str | None:
    """The plugin directory when this process was started by the plugin's launcher, else None."""
    return os.environ.get(ROOT_ENV) or None


def installed_file() -> Path:
    """Claude Code's record of installed plugins: id -> one entry per scope (scope, installPath, version, …)."""
    return paths.claude_home() / "plugins" / "installed_plugins.json"


def _settings_files(project_root: Path | None) -> list[Path]:
    """Where `enabledPlugins` can be, highest precedence first: local, then project, then user settings."""
    files = []
    if project_root is not None:
        files += [project_root / ".claude" / "settings.local.json", project_root / ".claude" / "settings.json"]
    return files + [paths.claude_home() / "settings.json"]


def is_enabled(plugin_id: str, project_root: Path | None) -> bool:
    """`enabledPlugins[plugin_id]` as Claude Code merges settings (the most specific file that names it decides)."""
    for path in _settings_files(project_root):
        enabled = json_object(path).get("enabledPlugins")
        if isinstance(enabled, dict) and plugin_id in enabled:
            return enabled[plugin_id] is True
    return False


def _same_dir(a: str, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def installs(project_root: Path | None = None) -> list[Install]:
    """Installs of the agentctx plugin that apply here: user and managed scope, and project or local scope of
    `project_root`. Empty when Claude Code has none (or its file is unreadable)."""
    data = json_object(installed_file()).get("plugins")
    out = []
    for plugin_id, entries in (data.items() if isinstance(data, dict) else []):
        if not isinstance(plugin_id, str) or plugin_id.split("@", 1)[0] != PLUGIN_NAME:
            continue
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            scope = str(entry.get("scope") or "user")
            project = entry.get("projectPath") if isinstance(entry.get("projectPath"), str) else None
            if scope in ("project", "local") and (project_root is None or project is None
                                                   or not _same_dir(project, project_root)):
                continue  # another project's install
            out.append(Install(plugin_id, scope, str(entry.get("installPath") or ""), str(entry.get("version") or "?"),
                               project, is_enabled(plugin_id, project_root)))
    return out


def active(project_root: Path | None = None) -> Install | None:
    """The enabled install that provides the hooks here, if any."""
    return next((i for i in installs(project_root) if i.enabled), None)


def uninstall_hint(install: Install) -> str:
    scope = "" if install.scope == "user" else f" --scope {install.scope}"
    return f"claude plugin uninstall {install.id}{scope}"


# --- the plugin's own files -------------------------------------------------------------------------------------

def hooks_document() -> dict[str, Any]:
    """plugin/hooks/hooks.json: the events, matchers and timeouts of `settings.HOOKS`, each running the launcher."""
    from .settings import HOOKS

    hooks: dict[str, Any] = {}
    for event, (kebab, matcher, extra) in HOOKS.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": HOOK_COMMAND + kebab, **extra}]
        hooks[event] = [group]
    return {"description": "agentctx: the digest at SessionStart, the relevant records with each prompt, the "
                           "records anchored to an edit or a command before it runs, capture after tool calls, "
                           "extraction and consolidation in the background",
            "hooks": hooks}
