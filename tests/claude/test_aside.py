"""When the plugin and `agentctx init`'s registrations are both present, the plugin's hooks and MCP server stand aside
(one injection per prompt, one set of tools); otherwise the plugin runs, and its digest names its own tools."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.claude import aside
from agentctx.claude import settings as cs
from agentctx.memory import consolidate
from agentctx.base.project import detect

ROOT = Path(__file__).resolve().parents[2]
INIT_LAUNCH = cs.Launcher(("/home/me/.local/bin/agentctx",), False)


@pytest.fixture
def as_plugin(monkeypatch):
    """This process as Claude Code runs the plugin's hooks and server: both variables set."""
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(ROOT / "plugin"))
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", str(ROOT / "plugin"))


@pytest.fixture
def user_settings(isolated_home):
    return isolated_home / ".claude" / "settings.json"


def test_hooks_registered_finds_inits_hooks_in_user_and_local_settings(user_settings, repo):
    assert aside.hooks_registered(str(repo)) is None
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]},
                                         "enabledPlugins": {"agentctx@agentctx": True}}))
    assert aside.hooks_registered(str(repo)) is None  # the user's own hooks and the plugin's enabling are not ours
    local = repo / ".claude" / "settings.local.json"
    cs.install_hooks(local, cs.Launcher(("/opt/my agentctx/bin/agentctx",), False))  # a quoted launcher
    assert aside.hooks_registered(str(repo)) == str(local)
    cs.install_hooks(user_settings, cs.Launcher(("/venv/bin/python", "-m", "agentctx"), False))
    assert aside.hooks_registered(str(repo)) == str(user_settings)


def test_a_shared_project_registration_counts_only_when_its_command_runs_here(repo, monkeypatch, tmp_path):
    shared = repo / ".claude" / "settings.json"
    cs.install_hooks(shared, cs.Launcher(("agentctx",), True))  # `init --project`: the bare command
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    assert aside.hooks_registered(str(repo)) is None  # a teammate with only the plugin: it must not stand aside
    (bin_dir / "agentctx").write_text("#!/bin/sh\n")
    (bin_dir / "agentctx").chmod(0o755)
    assert aside.hooks_registered(str(repo)) == str(shared)


def test_mcp_registered_at_user_or_local_scope(isolated_home, repo):
    state = isolated_home / ".claude.json"
    state.write_text(json.dumps({"projects": {"/elsewhere": {"mcpServers": {"agentctx": {"command": "x"}}}}}))
    assert aside.mcp_registered(str(repo)) is None
    state.write_text(json.dumps({"projects": {str(repo): {"mcpServers": {"agentctx": {"command": "x"}}}}}))
    assert aside.mcp_registered(str(repo)) == str(state)
    cs.install_mcp(state, INIT_LAUNCH)
    assert aside.mcp_registered("/elsewhere") == str(state)


# --- the hooks ---------------------------------------------------------------------------------------------------

@pytest.fixture
def seeded(add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    return repo


def test_the_plugins_hooks_run_while_nothing_else_is_registered(seeded, hook, as_plugin, user_settings):
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(json.dumps({"enabledPlugins": {"agentctx@agentctx": True}}))
    out = hook("session-start", {"session_id": "s1", "cwd": str(seeded), "source": "startup"})
    assert "Storage decision" in out["hookSpecificOutput"]["additionalContext"]
    out = hook("user-prompt-submit", {"session_id": "s2", "cwd": str(seeded),  # s1's digest carried it already
                                      "prompt": "sqlite storage decision: WAL and busy timeout"})
    assert "[decision] Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def test_the_plugins_hooks_stand_aside_for_inits_and_say_so_at_session_start(seeded, hook, as_plugin, user_settings):
    cs.install_hooks(user_settings, INIT_LAUNCH)
    out = hook("session-start", {"session_id": "s1", "cwd": str(seeded), "source": "startup"})
    assert out == {"systemMessage": aside.message(str(user_settings))} and "hookSpecificOutput" not in out
    assert "`agentctx uninstall`" in out["systemMessage"]
    assert hook("user-prompt-submit", {"session_id": "s1", "cwd": str(seeded),
                                       "prompt": "sqlite storage decision: WAL and busy timeout"}) is None


def test_inits_own_hooks_never_stand_aside(seeded, hook, user_settings, monkeypatch):
    """A settings hook that runs the plugin's launcher (AGENTCTX_PLUGIN_ROOT set, CLAUDE_PLUGIN_ROOT not) is the
    registration itself."""
    cs.install_hooks(user_settings, INIT_LAUNCH)
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", str(ROOT / "plugin"))
    out = hook("user-prompt-submit", {"session_id": "s1", "cwd": str(seeded),
                                      "prompt": "sqlite storage decision: WAL and busy timeout"})
    assert "[decision] Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def test_the_plugins_digest_names_the_plugins_tools(seeded, hook, as_plugin, isolated_home):
    text = hook("session-start", {"session_id": "s1", "cwd": str(seeded), "source": "startup"}
                )["hookSpecificOutput"]["additionalContext"]
    assert "mcp__plugin_agentctx_agentctx__ctx_search(query)" in text and "mcp__agentctx__" not in text
    cs.install_mcp(isolated_home / ".claude.json", INIT_LAUNCH)  # the plugin's server stands aside: init's names
    text = hook("session-start", {"session_id": "s2", "cwd": str(seeded), "source": "startup"}
                )["hookSpecificOutput"]["additionalContext"]
    assert "mcp__agentctx__ctx_search(query)" in text and "mcp__plugin_" not in text


def test_a_tool_installs_digest_keeps_the_user_scope_names(seeded, hook):
    text = hook("session-start", {"session_id": "s1", "cwd": str(seeded), "source": "startup"}
                )["hookSpecificOutput"]["additionalContext"]
    assert "mcp__agentctx__ctx_search(query)" in text


# As tests/hooks/test_hot_path.py probes the tool install's prompt hook.
HEAVY = ("json", "re", "enum", "dataclasses", "inspect", "typing", "pathlib", "shlex", "agentctx.claude.plugin",
         "agentctx.cli", "agentctx.base.project")
HOT_PATH_CODE = """
import io, sys
sys.path.insert(0, {root!r})
sys.stdin = io.StringIO({payload!r})
from agentctx import hooks
out, real = io.StringIO(), sys.stdout
sys.stdout = out
hooks.run([{event!r}])
sys.stdout = real
modules = sorted(sys.modules)
import json
print(json.dumps({{"output": out.getvalue(), "modules": modules}}))
"""


@pytest.mark.parametrize("event, payload, expect", [
    ("user-prompt-submit", {"prompt": "sqlite storage decision: WAL and busy timeout"}, "[decision] Storage decision"),
    ("session-start", {"source": "startup"}, "mcp__plugin_agentctx_agentctx__ctx_search"),
])
def test_the_plugin_route_loads_no_heavy_module(seeded, user_settings, isolated_home, event, payload, expect):
    """The plugin's checks read settings files and ~/.claude.json as bytes: no json, re or pathlib on the prompt's
    path or SessionStart's."""
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(json.dumps({"enabledPlugins": {"agentctx@agentctx": True}}, indent=2))
    (isolated_home / ".claude.json").write_text(json.dumps({"numStartups": 3, "projects": {str(seeded): {}}}))
    code = HOT_PATH_CODE.format(root=str(ROOT), payload=json.dumps({"session_id": "s1", "cwd": str(seeded), **payload}),
                                event=event)
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(ROOT / "plugin"), "AGENTCTX_PLUGIN_ROOT": str(ROOT / "plugin")}
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    got = json.loads(done.stdout)
    assert expect in got["output"]
    assert [m for m in HEAVY if m in got["modules"]] == []


# --- the MCP server ---------------------------------------------------------------------------------------------

def _serve(repo: Path, *, aside_why: str | None) -> list[dict]:
    from agentctx.mcp.handlers import ToolContext
    from agentctx.mcp.server import serve

    lines = [json.dumps(m).encode() + b"\n" for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ctx_search", "arguments": {"query": "x"}}})]
    out = io.BytesIO()
    tools = ToolContext(project=detect(repo))
    try:
        serve(io.BytesIO(b"".join(lines)), out, tools, aside=aside_why)
    finally:
        tools.close()
    return [json.loads(line)["result"] for line in out.getvalue().splitlines()]


def test_the_plugins_server_stands_aside_for_inits(seeded, isolated_home, monkeypatch):
    from agentctx.mcp.server import plugin_aside

    env = {"CLAUDE_PLUGIN_ROOT": "/p", "AGENTCTX_PLUGIN_ROOT": "/p"}
    assert plugin_aside(env, str(seeded)) is None
    cs.install_mcp(isolated_home / ".claude.json", INIT_LAUNCH)
    assert plugin_aside({"AGENTCTX_PLUGIN_ROOT": "/p"}, str(seeded)) is None  # init's own server: never aside
    why = plugin_aside(env, str(seeded))
    assert why == aside.message(str(isolated_home / ".claude.json"))
    init, listed, called = _serve(seeded, aside_why=why)
    assert init["instructions"] == why and listed == {"tools": []}
    assert called["isError"] is True and called["content"][0]["text"] == why
    init, listed, called = _serve(seeded, aside_why=None)
    assert len(listed["tools"]) == 7 and not called.get("isError")
