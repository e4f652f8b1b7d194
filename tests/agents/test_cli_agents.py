"""`init --agent`, `doctor`, `uninstall` and `off`/`on` across Claude Code, Codex CLI and Gemini CLI."""

from __future__ import annotations

import io
import json
import sys

import pytest

from agentctx.agents import codex_setup, gemini_setup
from agentctx.base import paths


@pytest.fixture
def installed(isolated_home):
    """Codex CLI and Gemini CLI as a first run leaves them: their user directories (not `codex`/`gemini` on PATH:
    trust would then start it)."""
    for agent in ("codex", "gemini"):
        (isolated_home / f".{agent}").mkdir()


def test_init_names_each_agent_and_what_it_did(run, installed):
    rc, out, _ = run("init", "--agent", "codex", "--agent", "gemini", "--no-profile")
    assert rc == 0
    assert f"Codex CLI: registered hooks in {codex_setup.hooks_file()}" in out
    assert f"Codex CLI: registered MCP server `agentctx` in {codex_setup.config_file()}" in out
    assert "Codex CLI: Codex CLI is not on PATH, so agentctx could not trust its hooks" in out  # said, not hidden
    assert f"Gemini CLI: registered hooks and MCP server `agentctx` in {gemini_setup.settings_file()}" in out
    assert "Gemini CLI: it does not trust" in out
    assert not (paths.claude_home() / "settings.json").exists()  # not asked for, not installed here
    assert len(codex_setup.registered()) == 7 and len(gemini_setup.registered()) == 6


def test_init_wires_the_agents_it_finds_and_says_when_there_is_none(run, isolated_home):
    rc, out, _ = run("init", "--no-profile")
    assert rc == 0 and "no coding agent found here" in out and "nothing wired" in out
    assert not (paths.claude_home() / "settings.json").exists() and not paths.claude_home().exists()
    (isolated_home / ".gemini").mkdir()
    rc, out, _ = run("init", "--no-profile")
    assert rc == 0 and gemini_setup.registered() and not codex_setup.registered()
    rc, out, _ = run("init", "--agent", "all", "--no-profile")
    assert "Codex CLI: not installed here" in out and not codex_setup.registered()
    rc, out, _ = run("init", "--agent", "all", "--force", "--no-profile")
    assert codex_setup.registered() and gemini_setup.registered() and "wired anyway (--force)" in out


def test_uninstall_gives_every_agent_its_files_back(run, isolated_home, installed):
    originals = {
        paths.claude_home() / "settings.json": '{\n  "model": "opus"\n}\n',
        codex_setup.config_file(): '# mine\nmodel = "gpt-5.5"\n',
        gemini_setup.settings_file(): '{"theme": "dark"}',
    }
    for path, text in originals.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert run("init", "--agent", "all", "--no-profile")[0] == 0
    assert all(path.read_text() != text for path, text in originals.items())
    rc, out, _ = run("uninstall")
    assert rc == 0 and "Codex CLI: removed agentctx hooks" in out and "Gemini CLI: removed agentctx hooks" in out
    assert {p: p.read_text() for p in originals} == originals
    assert not codex_setup.hooks_file().exists()  # it did not exist before


def test_uninstall_of_one_agent_leaves_the_others(run, installed):
    run("init", "--agent", "all", "--no-profile")
    rc, out, _ = run("uninstall", "--agent", "gemini")
    assert rc == 0 and not gemini_setup.registered() and len(codex_setup.registered()) == 7
    assert run("uninstall", "--agent", "gemini")[1].strip() == "nothing of agentctx was registered with Gemini CLI"


def test_a_switched_off_agent_is_asked_about_and_left_alone_without_a_yes(run, monkeypatch, installed):
    gemini_setup.settings_file().write_text('{"hooksConfig": {"enabled": false}}')
    rc, out, _ = run("init", "--agent", "gemini", "--no-profile")  # no terminal: nobody to ask, so no change
    assert "Gemini CLI: hooksConfig.enabled is false: no hook runs, agentctx's included; left as it is" in out
    assert gemini_setup.disabled_flag() == "hooksConfig.enabled"
    rc, out, _ = run("init", "--agent", "gemini", "--yes", "--no-profile")
    assert "Gemini CLI: set hooksConfig.enabled = true" in out and gemini_setup.disabled_flag() is None


def test_doctor_covers_codex_and_gemini(run, installed):
    run("init", "--agent", "codex", "--agent", "gemini", "--no-profile")
    rc, out, _ = run("doctor", "--json")
    found = {c["name"]: c for c in json.loads(out)}
    assert found["codex-hooks"]["status"] == "ok" and found["gemini-hooks"]["status"] == "ok"
    assert found["codex-mcp"]["status"] == "ok" and found["gemini-mcp"]["status"] == "ok"
    assert found["codex-trust"]["status"] == "warn" and "not on PATH" in found["codex-trust"]["detail"]
    assert found["gemini-folder"]["status"] == "warn"
    assert found["codex-command"]["status"] in ("ok", "warn", "fail")  # probed from a login environment
    codex_setup.hooks_file().write_text('{"hooks": {}}')
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found["codex-hooks"]["status"] == "warn" and found["codex-hooks"]["fix"] == "agentctx init --agent codex"


def test_off_and_on_cover_every_agent(run, add, repo, monkeypatch, capsys):
    from agentctx.hooks import run as hook

    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    prompt = "sqlite storage decision: WAL and busy timeout"

    def injected(agent: str, event: str) -> bool:
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"session_id": f"s-{agent}", "cwd": str(repo),
                                                                  "hook_event_name": event, "prompt": prompt})))
        hook(["user-prompt-submit", "--agent", agent])
        return "Storage decision" in capsys.readouterr().out

    run("off")
    assert not injected("codex", "UserPromptSubmit") and not injected("gemini", "BeforeAgent")
    run("on")
    assert injected("codex", "UserPromptSubmit") and injected("gemini", "BeforeAgent")


def test_doctor_does_not_ask_a_codex_only_user_to_register_with_claude_code(run, monkeypatch, isolated_home, installed):
    from agentctx.cli import agents

    run("init", "--agent", "codex", "--no-profile")
    monkeypatch.setitem(agents.DETECT, "claude", lambda: False)  # no `claude`, no ~/.claude
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found["claude-code"]["status"] == "ok" and "runs with Codex CLI" in found["claude-code"]["detail"]
    monkeypatch.setitem(agents.DETECT, "claude", lambda: True)  # installed, not wired: still said, with the command
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found["claude-code"]["status"] == "warn" and found["claude-code"]["fix"] == "agentctx init --agent claude"
