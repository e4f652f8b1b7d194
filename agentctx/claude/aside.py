"""Whether the plugin's copy of agentctx stands aside: `agentctx init` registered its own hooks in Claude Code's
settings, or its MCP server in ~/.claude.json, and those run. Only `os` on the hooks' path (they ask on every event).

Claude Code runs every matching hook from every source (vendor-notes/claude-code-hooks.md fact 1) and starts a
plugin's MCP server beside a user-scope one of another command (vendor-notes/claude-code-mcp-registration.md fact
5): with both registered, each prompt would get the same records twice and the model two sets of tools. The
registration someone made by hand (`init`, `init --force`) wins; `doctor` and `status` say how to keep one."""

import os

# How `init` writes a hook command: `<launcher> hook <event>`, the launcher path possibly quoted (shlex, or JSON-escaped
# double quotes as the plugin's own command has them).
_MARKERS = (b"agentctx hook ", b"agentctx' hook ", b'agentctx\\" hook ')
_LIMIT = 4 * 1024 * 1024
# How Claude Code names our tools for the model: a server registered as `agentctx` (init, `claude mcp add`), and
# server `agentctx` of plugin `agentctx` (mcp__plugin_<plugin>_<server>__; seen with 2.1.197 and 2.1.332).
USER_TOOL_PREFIX = "mcp__agentctx__"
PLUGIN_TOOL_PREFIX = "mcp__plugin_agentctx_agentctx__"


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_LIMIT)
    except OSError:
        return b""


def _project(cwd: str) -> str:
    return os.environ.get("CLAUDE_PROJECT_DIR") or cwd


def hooks_registered(cwd: str) -> "str | None":
    """The settings file in which `agentctx init` registered our hooks (user, the project's local, or its shared
    file when that command runs here), or None. A byte search first: most sessions have none of ours."""
    home = os.path.expanduser("~")
    project = _project(cwd)
    for path, shared in ((os.path.join(home, ".claude", "settings.json"), False),
                         (os.path.join(project, ".claude", "settings.local.json"), False),
                         (os.path.join(project, ".claude", "settings.json"), True)):
        raw = _read(path)
        if any(marker in raw for marker in _MARKERS) and (not shared or _runs_here(raw)):
            return path
    return None


def _runs_here(raw: bytes) -> bool:
    """Whether a shared (committed) settings file's agentctx hook command would start here: `init --project` writes
    a bare `agentctx`, which a teammate who has only the plugin does not have; the plugin must not yield to it."""
    import shlex

    from ..base import jsonfast

    try:
        data = jsonfast.loads(raw)
    except ValueError:
        return False
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for groups in (hooks.values() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            for handler in (group.get("hooks") or ()) if isinstance(group, dict) else ():
                command = handler.get("command") if isinstance(handler, dict) else None
                if not isinstance(command, str) or "agentctx" not in command:
                    continue
                try:
                    program = shlex.split(command)[0]
                except (ValueError, IndexError):
                    continue
                if os.sep in program:
                    if os.access(program, os.X_OK):
                        return True
                elif any(os.access(os.path.join(d, program), os.X_OK)
                         for d in os.environ.get("PATH", "").split(os.pathsep) if d):
                    return True
    return False


def mcp_registered(cwd: str) -> "str | None":
    """~/.claude.json when it registers a server named `agentctx` at user scope, or at local scope for this project
    (what `init` and `claude mcp add` write), else None."""
    path = os.path.join(os.path.expanduser("~"), ".claude.json")
    raw = _read(path)
    if b'"agentctx"' not in raw:
        return None  # SessionStart asks on the plugin's every start: no json module (~4 ms) unless it may be there
    import json

    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    scopes = [data]
    projects = data.get("projects")
    if isinstance(projects, dict):
        project = _project(cwd)
        scopes += [projects.get(key) for key in dict.fromkeys((project, os.path.realpath(project)))]
    for scope in scopes:
        servers = scope.get("mcpServers") if isinstance(scope, dict) else None
        if isinstance(servers, dict) and isinstance(servers.get("agentctx"), dict):
            return path
    return None


def message(where: str) -> str:
    """What the plugin says when it stands aside (SessionStart's systemMessage, the MCP server's instructions)."""
    return (f"agentctx plugin: standing aside, because `agentctx init` also registered agentctx in {where} and that "
            "one runs. To keep only the plugin: `agentctx uninstall`.")
