"""`agentctx init` and `agentctx reset`: create the data directory, store and config; remove a project's data."""

from __future__ import annotations

import sqlite3

from pathlib import Path

from ..base import config, paths
from ..base.project import Project
from ..store import db, records


def initialize() -> list[str]:
    """Create what is missing (data dir 0700, database 0600, config); returns what was done, in words."""
    done: list[str] = []
    home = paths.home()
    existed = home.exists()
    paths.ensure_private_dir(home)
    paths.ensure_private_dir(paths.logs_dir())
    if not existed:
        done.append(f"created {home}")
    db_existed = paths.db_path().exists()
    conn = db.connect(paths.db_path(), create=True)
    conn.close()
    done.append(("opened" if db_existed else "created") + f" {paths.db_path()}")
    if config.ensure_file():
        done.append(f"created {paths.config_path()}")
    done += record_claude_code()
    return done


def record_claude_code() -> list[str]:
    """Remember where the Claude Code CLI is (`claudeCodePath`): hooks and detached extraction run with Claude
    Code's PATH, which may not be this shell's. Says which extraction backend will run."""
    import shutil

    from ..extract.backend import choose

    settings = config.load()
    found = shutil.which("claude")
    done = []
    recorded = settings.get("claudeCodePath")
    if found and (not recorded or not Path(recorded).is_file()):
        found = str(Path(found).absolute())  # the link npm or the installer made: it survives updates
        config.set_value("claudeCodePath", found)
        done.append(f"extraction can run through your Claude Code CLI: {found} (claudeCodePath)")
        settings = config.load()
    choice = choose(settings)
    done.append(f"extraction: {choice.backend} ({choice.reason})" if choice.on else
                f"extraction off: {choice.reason}; only what hooks capture is kept (`agentctx doctor` says how)")
    return done


def reset_project(project: Project) -> int:
    """Delete every record of `project` (global records stay); returns how many were removed."""
    conn = db.connect(paths.db_path())
    try:
        return records.delete_project(conn, project.id)
    finally:
        conn.close()


def wire_claude(*, project_root: Path | None = None, mcp: bool = True, here: Path | None = None,
                force: bool = False) -> list[str]:
    """Register the hooks (user settings, or the project's with `project_root`) and the MCP server; what was done.

    Not while the agentctx plugin is enabled for `here` (the project `init` runs in): its own hooks and server are
    the registration, and both would inject the same records twice. `force` registers anyway (the plugin then
    stands aside); a process started by the plugin never registers itself (its interpreter finds the package only
    through the plugin's launcher)."""
    from . import plugin
    from . import settings as cs
    from . import wiring

    running = plugin.running_from_plugin()
    found = plugin.installs(here if here is not None else project_root)
    active = next((i for i in found if i.enabled), None)
    if running is not None:
        line = (f"this agentctx runs from the Claude Code plugin ({running}), which registers its own hooks and MCP "
                "server: nothing written to Claude Code's settings")
        if active is None:
            line += f"; the plugin is not enabled here: `claude plugin enable {plugin.PLUGIN_ID}`"
        return [line]
    if active is not None and not force:
        return [f"the Claude Code plugin {active.describe()} provides the hooks and the MCP server: nothing written "
                f"to {cs.settings_path(project_root)} or {paths.claude_json()} (`agentctx init --force` registers "
                "them there too, and the plugin then stands aside)"]
    notes = []
    if active is not None:
        notes.append(f"the Claude Code plugin {active.describe()} stands aside while these registrations exist "
                     f"(`agentctx uninstall` removes them; `{plugin.uninstall_hint(active)}` removes the plugin)")
    elif found:
        notes.append(f"the Claude Code plugin {found[0].describe()} is installed; enabled, it would stand aside "
                     "while these registrations exist")

    hooks = wiring.choose(shared=project_root is not None)  # a project's settings are committed and shared
    server = wiring.choose()  # the MCP entry is always the user's own (~/.claude.json)
    if mcp and server == hooks:
        done = [f"hooks and MCP server {hooks.reason}"]
    else:
        done = [f"hooks {hooks.reason}"] + ([f"MCP server {server.reason}"] if mcp else [])
    settings = cs.settings_path(project_root)
    launch = cs.Launcher(hooks.argv, hooks.on_path)
    done.append(("registered hooks in " if cs.install_hooks(settings, launch) else "hooks already registered in ")
                + str(settings))
    if mcp:
        state = paths.claude_json()
        if cs.install_mcp(state, cs.Launcher(server.argv, server.on_path)):
            done.append(f"registered MCP server `agentctx` in {state}")
        elif cs.mcp_theirs(state):
            done.append(f"MCP server `agentctx` in {state} is one you registered yourself: left as it is")
        else:
            done.append(f"MCP server `agentctx` already registered in {state}")
    return done + notes


def unwire_claude(*, project_root: Path | None = None, here: Path | None = None) -> list[str]:
    """Remove our hooks (user and, with `project_root`, project settings) and MCP entry, restoring the user's files;
    an installed agentctx plugin (for `here`, the current project) is left alone, and named with how to remove it."""
    from . import settings as cs

    done = []
    targets = [cs.settings_path(None)] + ([cs.settings_path(project_root)] if project_root is not None else [])
    for settings in targets:
        if cs.remove_hooks(settings):
            done.append(f"removed agentctx hooks from {settings}")
    if cs.remove_mcp(paths.claude_json()):
        done.append(f"removed MCP server `agentctx` from {paths.claude_json()}")
    if cs.mcp_theirs(paths.claude_json()):
        done.append(f"left the MCP server `agentctx` you registered yourself in {paths.claude_json()}")
    done = done or ["nothing of agentctx was registered in Claude Code's settings"]
    from . import plugin

    for install in plugin.installs(here if here is not None else project_root):
        done.append(f"the Claude Code plugin {install.describe()} is still installed: `{plugin.uninstall_hint(install)}` "
                    f"removes it (the store in {paths.home()} stays)")
    return done


def claude_code_state(here: Path) -> dict[str, object]:
    """Which registration runs agentctx in Claude Code for the project at `here`: the plugin, `init`'s entries in
    the settings files, or both (the plugin then stands aside), in one line for `status`."""
    from . import plugin, wiring
    from .settings import settings_path

    active = plugin.active(here)
    settings = bool(wiring.registered([settings_path(None), settings_path(here)], paths.claude_json()))
    if active is not None and settings:
        line = f"plugin {active.describe()} stands aside for what `agentctx init` registered (`agentctx doctor`)"
    elif active is not None:
        line = f"plugin {active.describe()}"
    elif settings:
        line = "hooks and MCP server registered by `agentctx init`"
    else:
        line = "not registered: `agentctx init`, or the Claude Code plugin"
    return {"plugin": active.describe() if active is not None else None, "settings": settings, "line": line}


def profile_and_digest(project: Project) -> list[str]:
    """Detect the project profile, read the repository's rule files (so the first session has them), then compose
    the first SessionStart digest."""
    from ..memory import digest, keep_digests_fresh, profile
    from ..outside import rulefiles

    keep_digests_fresh()
    conn = db.connect(paths.db_path())
    try:
        status = profile.refresh(conn, project)
        try:
            rules = rulefiles.describe(rulefiles.sync(conn, project))[:1]
        except (OSError, sqlite3.Error) as exc:  # the rule files wait for the next consolidation
            rules = [f"rule files: skipped ({type(exc).__name__}: {exc})"]
        digest.refresh(conn, project.id, project=project)
    finally:
        conn.close()
    changed = [f"{title} {state}" for title, state in status.items() if state != "unchanged"]
    return [f"profile: {', '.join(changed) if changed else 'nothing new detected'}", *rules, "digest ready"]


def remove_data() -> str:
    """Delete the data directory (store, config, digests, logs)."""
    import shutil

    home = paths.home()
    shutil.rmtree(home, ignore_errors=True)
    return f"deleted {home}"
