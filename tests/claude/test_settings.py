from __future__ import annotations

import json

import pytest

from agentctx.claude import settings as cs
from agentctx.cli import main
from agentctx.base.errors import ConfigError

LAUNCH = cs.Launcher(("agentctx",), True)
USER = {"model": "opus", "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}],
                                   "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}


def test_install_is_idempotent_and_keeps_user_hooks(tmp_path):
    path = tmp_path / "settings.json"
    original = json.dumps(USER, indent=4) + "\n"
    path.write_text(original, encoding="utf-8")
    assert cs.install_hooks(path, LAUNCH)
    first = path.read_bytes()
    assert not cs.install_hooks(path, LAUNCH) and path.read_bytes() == first
    data = json.loads(first)
    assert set(data["hooks"]) == set(cs.HOOKS) and data["model"] == "opus"
    assert data["hooks"]["PostToolUse"][0] == USER["hooks"]["PostToolUse"][0]
    ours = data["hooks"]["PostToolUse"][1]
    assert ours["matcher"] and "async" not in ours["hooks"][0]  # synchronous since issue 18 (docs/hooks.md)
    assert '\n    "model"' in first.decode()  # the user's 4-space indentation is kept
    assert cs.remove_hooks(path)
    assert path.read_text(encoding="utf-8") == original


def test_install_repairs_missing_entry(tmp_path):
    path = tmp_path / "settings.json"
    cs.install_hooks(path, LAUNCH)
    data = json.loads(path.read_text())
    del data["hooks"]["Stop"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert cs.install_hooks(path, LAUNCH)
    assert "Stop" in json.loads(path.read_text())["hooks"]


def test_absent_file_is_removed_on_uninstall(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    cs.install_hooks(path, LAUNCH)
    assert path.exists()
    cs.remove_hooks(path)
    assert not path.exists() and list(path.parent.iterdir()) == []


@pytest.mark.parametrize("text", ["{not json", "[]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_malformed_refused_untouched(tmp_path, text):
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError):
        cs.install_hooks(path, LAUNCH)
    assert path.read_text(encoding="utf-8") == text
    assert not (tmp_path / ("settings.json" + cs.BACKUP_SUFFIX)).exists()


def test_user_edit_after_install_survives_uninstall(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(USER, indent=2) + "\n")
    cs.install_hooks(path, LAUNCH)
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    path.write_text(json.dumps(data, indent=2) + "\n")
    cs.remove_hooks(path)
    after = json.loads(path.read_text())
    assert after == {**USER, "theme": "dark"}


def test_mixed_group_keeps_user_command_and_matcher(tmp_path):
    path = tmp_path / "settings.json"
    mixed = {"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
        {"type": "command", "command": "fmt"}, {"type": "command", "command": "agentctx hook post-tool-use"}]}]}}
    path.write_text(json.dumps(mixed))
    cs.install_hooks(path, LAUNCH)
    cs.remove_hooks(path)
    assert json.loads(path.read_text()) == {"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
        {"type": "command", "command": "fmt"}]}]}}


def test_mcp_entry_and_absolute_launcher(tmp_path):
    path = tmp_path / ".claude.json"
    path.write_text('{"numStartups": 3}')
    launch = cs.Launcher(("/venv/bin/python", "-m", "agentctx"), False)
    assert cs.install_mcp(path, launch) and not cs.install_mcp(path, launch)
    assert json.loads(path.read_text())["mcpServers"]["agentctx"] == {
        "type": "stdio", "command": "/venv/bin/python", "args": ["-m", "agentctx", "mcp"]}
    assert cs.is_ours({"command": launch.command("hook", "stop")})
    cs.remove_mcp(path)
    assert path.read_text() == '{"numStartups": 3}'


def test_init_and_uninstall_restore_bytes(repo, monkeypatch, capsys):
    from pathlib import Path

    home = Path.home()
    (home / ".claude").mkdir()
    settings = home / ".claude" / "settings.json"
    settings.write_text('{\n  "hooks": {}\n}\n')
    (home / ".claude.json").write_text('{"a":1}')
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "registered hooks" in out and "hooks and MCP server using" in out
    before = settings.read_bytes()
    assert main(["init"]) == 0 and settings.read_bytes() == before
    assert main(["uninstall"]) == 0
    assert settings.read_text() == '{\n  "hooks": {}\n}\n' and (home / ".claude.json").read_text() == '{"a":1}'


def test_init_refuses_corrupt_settings(repo, monkeypatch, capsys):
    from pathlib import Path

    (Path.home() / ".claude").mkdir()
    (Path.home() / ".claude" / "settings.json").write_text("{oops")
    monkeypatch.chdir(repo)
    assert main(["init"]) != 0
    assert "not valid JSON" in capsys.readouterr().err


def test_uninstall_data_needs_confirmation(repo, monkeypatch):
    monkeypatch.chdir(repo)
    assert main(["init", "--no-mcp"]) == 0
    assert main(["uninstall", "--data"]) != 0
    assert main(["uninstall", "--data", "--force"]) == 0
    from agentctx.base import paths

    assert not paths.db_path().exists()
