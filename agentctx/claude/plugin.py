"""agentctx as a Claude Code plugin: its names, and the plugin's hooks file as our hook table says it must be.

The plugin is `plugin/` in the repository, listed by `.claude-plugin/marketplace.json`; its hooks and MCP server run
`plugin/bin/agentctx`, which starts the package beside it with a Python found on the machine."""

from __future__ import annotations

from typing import Any

PLUGIN_NAME = "agentctx"
MARKETPLACE_NAME = "agentctx"
PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
# What every hook of the plugin runs: its launcher, through sh (a copy that lost its executable bit still runs).
HOOK_COMMAND = 'sh "${CLAUDE_PLUGIN_ROOT}/bin/agentctx" hook '


# --- the plugin's own files -------------------------------------------------------------------------------------

def hooks_document() -> dict[str, Any]:
    """plugin/hooks/hooks.json: the events, matchers and timeouts of `settings.HOOKS`, each running the launcher."""
    from .settings import HOOKS

    hooks: dict[str, Any] = {}
    for event, (kebab, matcher, extra) in HOOKS.items():
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": HOOK_COMMAND + kebab, **extra}]
        hooks[event] = [group]
    return {"description": "agentctx: the digest at SessionStart, the relevant records with each prompt, capture "
                           "after tool calls, extraction and consolidation in the background",
            "hooks": hooks}
