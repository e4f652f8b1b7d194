"""End to end with the REAL Claude Code CLI (pinned): agentctx installed as a Claude Code plugin, nothing by pip.

In a throwaway HOME whose PATH has a Python without agentctx (vendor-notes/claude-code-plugins.md):
  - `claude plugin marketplace add <this checkout>` and `claude plugin install agentctx@agentctx`; the plugin's own
    `agentctx` (from Claude Code's cached copy) creates the store and records a decision; `init` sees the plugin and
    registers nothing;
  - session A: the digest and the prompt's record reach the model, every hook reports exit 0, a Bash call is captured;
  - session B: the model finds and calls the plugin's MCP tool (2.1.332 defers it: ToolSearch first);
  - `claude plugin uninstall` and `marketplace remove` leave the user's settings as they were, and the store;
and, from a git marketplace (as `owner/repo` on GitHub is: cloned, then copied to the plugin cache), an install that
runs from the cache, then `claude plugin update` to a new version that keeps the store.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claude_sandbox import PluginSandbox, Run, claude_bin, wait_for
from messages_standin import MessagesStandIn, _id, has_tool_result, last_user_content, offers_tool, scripted_model, text_of

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

ROOT = Path(__file__).resolve().parents[2]
DECISION = "Use SQLite WAL for the store"
PROMPT_A = "Why do we use WAL mode for the store? Then please create the branch feature/plugin-check"
PROMPT_B = "Please search the memory for WAL"
SEARCH = "mcp__plugin_agentctx_agentctx__ctx_search"  # server `agentctx` of plugin `agentctx`
ALLOWED = (SEARCH, "ToolSearch")
USER_SETTINGS = {"permissions": {"deny": ["WebFetch"]}, "cleanupPeriodDays": 30}


def _system_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] if isinstance(m["content"], str) else text_of(m["content"])
                     for m in body["messages"] if m.get("role") == "system")


def _last_tool_use(body: dict[str, Any]) -> str:
    """The name of the tool the model called last (its answer before the tool result now sent)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in reversed(message["content"]):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    return str(block.get("name"))
    return ""


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: "search the memory" calls the plugin's ctx_search (loading it with ToolSearch first when the
    client defers it); "create the branch" runs one Bash command (scripted_model); anything else says OK."""
    content = last_user_content(body)
    if "search the memory" not in json.dumps(body["messages"][:1]):
        return scripted_model(body)
    if has_tool_result(content):
        if _last_tool_use(body) == "ToolSearch":
            return [{"type": "tool_use", "id": _id("toolu"), "name": SEARCH, "input": {"query": "WAL store"}}]
        return [{"type": "text", "text": "Found it."}]
    if offers_tool(body, SEARCH):
        return [{"type": "tool_use", "id": _id("toolu"), "name": SEARCH, "input": {"query": "WAL store"}}]
    if offers_tool(body, "ToolSearch") and SEARCH in json.dumps(body):  # deferred: its name only, load it first
        return [{"type": "tool_use", "id": _id("toolu"), "name": "ToolSearch", "input": {"query": f"select:{SEARCH}"}}]
    return [{"type": "text", "text": "No such tool."}]


def _all_hooks_succeed(run: Run) -> set[str]:
    responses = run.hook_responses()
    for e in responses:
        assert (e["hook_event"], e["exit_code"], e["outcome"], e["stderr"]) == (e["hook_event"], 0, "success", "")
    return {e["hook_event"] for e in responses}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = PluginSandbox(tmp_path_factory.mktemp("claude-plugin-e2e"), str(CLAUDE))
    settings = box.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2) + "\n", encoding="utf-8")
    w: dict[str, Any] = {"box": box, "settings_before": settings.read_text(encoding="utf-8")}
    w["add"] = box.claude_cli("plugin", "marketplace", "add", str(ROOT))
    w["install"] = box.claude_cli("plugin", "install", "agentctx@agentctx")
    w["installed"] = box.installed()
    w["version"] = box.plugin_cli("--version").stdout
    w["init"] = box.plugin_cli("init").stdout
    w["settings_after_init"] = box.settings()
    w["state_after_init"] = box.claude_state()
    box.plugin_cli("config", "set", "llm", "false")  # extraction would call the stand-in: out of scope here
    box.plugin_cli("record", "--type", "decision", "--title", DECISION,
                   "--body", "We decided to use WAL mode with a busy timeout so concurrent writers never lose a write.")
    box.plugin_cli("consolidate")
    w["status"] = box.plugin_cli("status").stdout
    w["doctor"] = json.loads(box.plugin_cli("doctor", "--json", check=False).stdout)

    with MessagesStandIn(model) as api:
        w["A"] = box.run(PROMPT_A, api.base_url)
        w["A_bodies"] = api.message_bodies()
    sid = w["A"].session_id
    w["A_captured"] = wait_for(lambda: box.query(
        "SELECT count(*) FROM nodes WHERE kind = 'branch' AND name = 'feature/plugin-check'") == [(1,)])
    w["A_closed"] = wait_for(lambda: box.ended_at(sid) is not None)
    with MessagesStandIn(model) as api:
        w["B"] = box.run(PROMPT_B, api.base_url, allowed=ALLOWED)
        w["B_bodies"] = api.message_bodies()
    w["B_closed"] = wait_for(lambda: box.ended_at(w["B"].session_id) is not None)
    w["memo"] = box.home / ".claude" / "plugins" / "data" / "agentctx-agentctx" / "python"
    w["memo_python"] = w["memo"].read_text().strip() if w["memo"].exists() else ""

    w["uninstall"] = box.claude_cli("plugin", "uninstall", "agentctx@agentctx")
    w["settings_after_uninstall"] = box.settings()
    w["remove"] = box.claude_cli("plugin", "marketplace", "remove", "agentctx")
    w["settings_after_remove"] = settings.read_text(encoding="utf-8")
    w["state_after_remove"] = box.claude_state()
    w["records_after_remove"] = box.query("SELECT title FROM records WHERE type = 'decision'")
    return w


def test_the_pinned_cli_validates_the_marketplace_and_the_plugin_strictly(tmp_path):
    """`claude plugin validate --strict`: unknown fields, missing metadata and other warnings fail (exit 1)."""
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    for path in (ROOT, ROOT / "plugin"):
        done = subprocess.run([str(CLAUDE), "plugin", "validate", "--strict", str(path)], capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout + done.stderr


def test_the_plugin_installs_from_the_checkout_with_no_agentctx_on_path(world):
    box: PluginSandbox = world["box"]
    assert shutil.which("agentctx", path=box.env["PATH"]) is None
    assert subprocess.run([str(box.python_dir / "bin" / "python3"), "-I", "-c", "import agentctx"],
                          capture_output=True, cwd=box.tmp).returncode != 0
    from agentctx.base import __version__

    assert world["installed"]["version"] == __version__ and world["version"] == f"agentctx {__version__}\n"
    cached = Path(world["installed"]["installPath"])
    # Claude Code's copy of plugin/ holds the package itself: its link became files
    assert (cached / "agentctx" / "__main__.py").is_file() and not (cached / "agentctx").is_symlink()
    assert world["memo_python"].startswith(str(box.python_dir))  # the hooks' interpreter: the bare one found on PATH


def test_init_sees_the_plugin_and_registers_nothing(world):
    assert "runs from the Claude Code plugin" in world["init"] and "nothing written" in world["init"]
    assert "hooks" not in world["settings_after_init"] and "mcpServers" not in world["state_after_init"]
    assert world["settings_after_init"]["enabledPlugins"] == {"agentctx@agentctx": True}
    assert "claude    plugin agentctx@agentctx" in world["status"] and "(user scope, enabled)" in world["status"]
    plugin_check = [c for c in world["doctor"] if c["name"] == "claude-plugin"]
    assert plugin_check and plugin_check[0]["status"] == "ok", world["doctor"]


def test_a_session_gets_the_digest_and_the_prompts_record_from_the_plugins_hooks(world):
    run: Run = world["A"]
    assert run.returncode == 0 and run.result["subtype"] == "success", run.stderr
    assert {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"} <= _all_hooks_succeed(run)
    digest = run.additional_context("SessionStart")
    assert digest.startswith("Project profile (agentctx):") and f"- {DECISION}:" in digest
    assert f"{SEARCH}(query)" in digest  # the digest names the plugin's tools as Claude Code offers them
    context = run.additional_context("UserPromptSubmit")
    assert context.startswith("Relevant project context (agentctx project memory;") and f"[decision] {DECISION}" in context
    assert f"search it with {SEARCH}" in context  # the block names the plugin's tools too
    first = world["A_bodies"][0]
    assert "SessionStart hook additional context: " + digest in _system_text(first)
    for body in world["A_bodies"]:
        assert "UserPromptSubmit hook additional context: " + context in _system_text(body)
    assert world["A_captured"] and world["A_closed"]  # PostToolUse captured the branch; SessionEnd ran


def test_the_plugins_mcp_tools_are_offered_and_answer_from_the_store(world):
    run: Run = world["B"]
    assert run.returncode == 0 and run.result["result"] == "Found it.", (run.stderr, run.result)
    first = world["B_bodies"][0]
    offered = offers_tool(first, SEARCH) or SEARCH in _system_text(first) + json.dumps(first.get("system", ""))
    assert offered, "the plugin's ctx_search is neither a tool nor a deferred tool of the request"
    last = world["B_bodies"][-1]
    assert has_tool_result(last_user_content(last)) and DECISION in text_of(last_user_content(last))
    assert world["B_closed"]


def test_uninstalling_the_plugin_leaves_the_users_settings_and_the_store(world):
    after = world["settings_after_uninstall"]
    assert after.get("enabledPlugins") == {} and "hooks" not in after
    assert "agentctx" not in json.dumps(world["state_after_remove"].get("mcpServers", {}))
    # What is left is the user's file: their keys as they were, and Claude Code's own emptied bookkeeping.
    left = json.loads(world["settings_after_remove"])
    bookkeeping = {k: left.pop(k) for k in ("enabledPlugins", "extraKnownMarketplaces") if k in left}
    assert left == USER_SETTINGS and all(v == {} for v in bookkeeping.values()), world["settings_after_remove"]
    assert world["records_after_remove"] == [(DECISION,)]  # the store is the user's data: it stays


# --- from a git marketplace: the cached copy runs, and an update keeps the store ---------------------------------

GIT_URL = "https://agentctx.invalid/agentctx.git"  # rewritten by git (url.insteadOf) to a local bare repository


def _marketplace_repo(base: Path, version: str | None = None) -> Path:
    """A git repository holding this checkout's marketplace, plugin and package; `version` bumps all three."""
    src = base / "src"
    if not src.exists():
        src.mkdir()
        shutil.copytree(ROOT / ".claude-plugin", src / ".claude-plugin")
        shutil.copytree(ROOT / "plugin", src / "plugin", symlinks=True)
        shutil.copytree(ROOT / "agentctx", src / "agentctx", ignore=shutil.ignore_patterns("__pycache__"))
    if version:
        for path in (src / ".claude-plugin" / "marketplace.json", src / "plugin" / ".claude-plugin" / "plugin.json"):
            path.write_text(re.sub(r'"version": "[^"]+"', f'"version": "{version}"', path.read_text()))
        init = src / "agentctx" / "base" / "__init__.py"
        init.write_text(re.sub(r'__version__ = "[^"]+"', f'__version__ = "{version}"', init.read_text()))
    git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    if not (src / ".git").exists():
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=src, check=True)
    subprocess.run([*git, "add", "-A"], cwd=src, check=True)
    subprocess.run([*git, "commit", "-qm", f"marketplace {version or 'initial'}"], cwd=src, check=True)
    bare = base / "agentctx.git"
    shutil.rmtree(bare, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(src), str(bare)], check=True)
    return bare


def _bash_agentctx(box: PluginSandbox) -> tuple[Run, str]:
    """A session whose model asks Bash which `agentctx` it has: the plugin's bin/ on the Bash tool's PATH."""
    def ask(body: dict[str, Any]) -> list[dict[str, Any]]:
        if has_tool_result(last_user_content(body)):
            return [{"type": "text", "text": "Done."}]
        return [{"type": "tool_use", "id": _id("toolu"), "name": "Bash",
                 "input": {"command": "command -v agentctx && agentctx --version", "description": "which agentctx"}}]

    with MessagesStandIn(ask) as api:
        run = box.run("Why do we use WAL mode for the store?", api.base_url)
        bodies = api.message_bodies()
    return run, text_of(last_user_content(bodies[-1]))


def test_from_a_git_marketplace_the_cached_copy_runs_and_an_update_keeps_the_store(tmp_path):
    box = PluginSandbox(tmp_path / "box", str(CLAUDE))
    bare = _marketplace_repo(tmp_path)
    with open(box.home / ".gitconfig", "a", encoding="utf-8") as fh:
        fh.write(f'[url "{bare}"]\n\tinsteadOf = {GIT_URL}\n')
    box.claude_cli("plugin", "marketplace", "add", GIT_URL)
    box.claude_cli("plugin", "install", "agentctx@agentctx")
    first = box.installed()
    assert Path(first["installPath"]).parents[2] == box.home / ".claude" / "plugins" / "cache"

    # The first session: no `agentctx init` was run; the plugin sets the project up itself, and says so.
    run, said = _bash_agentctx(box)
    assert run.returncode == 0, run.stderr
    _all_hooks_succeed(run)
    (start,) = run.hook_responses("SessionStart")
    assert "setting up this project" in json.loads(start["output"])["systemMessage"]
    assert said.startswith(f"{first['installPath']}/bin/agentctx\nagentctx {first['version']}"), said
    digests = box.home / ".agentctx" / "digests"
    assert wait_for(lambda: digests.is_dir() and any(digests.iterdir()), timeout=30), "the plugin set nothing up"
    box.plugin_cli("config", "set", "llm", "false")
    box.plugin_cli("record", "--type", "decision", "--title", DECISION, "--body", "WAL mode with a busy timeout.")
    box.plugin_cli("consolidate")

    from agentctx.base import __version__

    bumped = ".".join([*__version__.split(".")[:2], str(int(__version__.split(".")[2]) + 1)])
    _marketplace_repo(tmp_path, bumped)
    box.claude_cli("plugin", "marketplace", "update", "agentctx")
    updated = box.claude_cli("plugin", "update", "agentctx@agentctx")
    second = box.installed()
    assert second["version"] == bumped and Path(second["installPath"]).name == bumped, updated.stdout

    run, said = _bash_agentctx(box)
    assert run.returncode == 0, run.stderr
    _all_hooks_succeed(run)
    assert said.startswith(f"{second['installPath']}/bin/agentctx\nagentctx {bumped}"), said
    assert f"- {DECISION}:" in run.additional_context("SessionStart")  # the store and its digest, kept
    assert box.query("SELECT title FROM records WHERE type = 'decision'") == [(DECISION,)]
