"""Gemini CLI registration: our hooks and MCP server in ~/.gemini/settings.json (guarded so a missing agentctx
cannot block a prompt), the hooks switch, folder trust, and an uninstall that gives the user's bytes back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentctx.agents import gemini, gemini_setup as gs
from agentctx.base.errors import ConfigError

ARGV = ("/opt/agentctx/bin/python", "-m", "agentctx")
USER = ('{\n  "security": {"auth": {"selectedType": "gemini-api-key"}},\n  "hooks": {"AfterTool": [{"matcher": '
        '"write_file", "hooks": [{"type": "command", "command": "prettier --write"}]}]},\n  "mcpServers": {"other": '
        '{"command": "x"}}\n}\n')


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_install_merges_with_the_users_settings_and_uninstall_restores_their_bytes():
    _write(gs.settings_file(), USER)
    assert gs.wire(ARGV) == [f"registered hooks and MCP server `agentctx` in {gs.settings_file()}"]
    data = json.loads(gs.settings_file().read_text())
    assert data["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    after_tool = data["hooks"]["AfterTool"]
    assert after_tool[0]["hooks"][0]["command"] == "prettier --write"
    assert after_tool[1] == {"matcher": gemini.EVENTS["AfterTool"][1], "hooks": [{
        "type": "command", "name": "agentctx-post-tool-use",
        "command": "/opt/agentctx/bin/python -m agentctx hook post-tool-use --agent gemini 2>/dev/null || true",
        "timeout": 10000}]}  # milliseconds (fact 17)
    assert set(data["hooks"]) == {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}
    assert data["hooks"]["BeforeAgent"][0]["hooks"][0]["command"].startswith(
        "/opt/agentctx/bin/python -m agentctx hook user-prompt-submit --agent gemini")
    assert data["mcpServers"] == {"other": {"command": "x"}, "agentctx": {
        "command": ARGV[0], "args": ["-m", "agentctx", "mcp"]}}  # no cwd, no env (fact 20)
    assert gs.wire(ARGV) == [f"already registered: hooks and MCP server `agentctx` in {gs.settings_file()}"]
    assert gs.unwire()
    assert gs.settings_file().read_text() == USER and not list(gs.settings_file().parent.glob("*.agentctx-*"))


def test_uninstall_removes_a_file_we_created():
    gs.wire(ARGV)
    assert gs.unwire() and not gs.settings_file().exists()


def test_the_guard_keeps_a_missing_agentctx_silent_and_exit_0(tmp_path):
    """A missing command exits 127 and says "not found": Gemini would block every prompt (fact 16)."""
    line = gs.command((str(tmp_path / "gone" / "agentctx"),), "user-prompt-submit")
    done = subprocess.run(["bash", "-c", line], input="{}", capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert gs.is_ours({"command": line})


def test_the_hooks_switch_is_turned_on_when_asked_and_back_at_uninstall():
    original = '{"hooksConfig": {"enabled": false}}\n'
    _write(gs.settings_file(), original)
    assert gs.disabled_flag() == "hooksConfig.enabled"
    assert "set hooksConfig.enabled = true" in gs.enable_hooks_flag()
    gs.wire(ARGV)
    assert gs.disabled_flag() is None
    gs.unwire()
    assert gs.settings_file().read_text() == original


def test_a_malformed_settings_file_is_refused():
    _write(gs.settings_file(), '{"hooks": []}')
    with pytest.raises(ConfigError):
        gs.wire(ARGV)
    assert gs.settings_file().read_text() == '{"hooks": []}'


def test_folder_trust_reads_trusted_folders(tmp_path, monkeypatch):
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    root = str(tmp_path / "work" / "repo")
    assert gs.folder_trusted(root) is False
    _write(gs.trusted_folders_file(), json.dumps({str(tmp_path / "work"): "TRUST_FOLDER"}))
    assert gs.folder_trusted(root) is True
    _write(gs.trusted_folders_file(), json.dumps({str(tmp_path / "work"): "TRUST_FOLDER", root: "DO_NOT_TRUST"}))
    assert gs.folder_trusted(root) is False
    _write(gs.trusted_folders_file(), json.dumps({str(tmp_path / "work" / "other"): "TRUST_PARENT"}))
    assert gs.folder_trusted(root) is True
    _write(gs.settings_file(), '{"security": {"folderTrust": {"enabled": false}}}')
    assert gs.folder_trusted(root) is None
