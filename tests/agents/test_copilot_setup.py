"""`init`/`doctor`/`status`/`uninstall --agent copilot`: our hooks file in ~/.copilot/hooks, our MCP server in
~/.copilot/mcp-config.json next to the user's own, the disableAllHooks switch, byte-exact undo
(vendor-notes/copilot-cli.md facts 2-4, 12)."""

from __future__ import annotations

import json
from pathlib import Path

from agentctx.agents import copilot, copilot_setup

DATA = Path(__file__).parents[1] / "data" / "userfiles"


def _copilot_dir(home: Path) -> Path:
    (home / ".copilot").mkdir()
    return home / ".copilot"


def test_init_registers_every_event_and_the_mcp_server_and_uninstall_gives_the_bytes_back(run, isolated_home):
    mcp = _copilot_dir(isolated_home) / "mcp-config.json"
    original = (DATA / "copilot-recorded.mcp-config.json").read_text(encoding="utf-8")
    mcp.write_text(original, encoding="utf-8")
    rc, out, _ = run("init", "--agent", "copilot", "--no-profile")
    assert rc == 0 and f"Copilot CLI: registered {len(copilot.EVENTS)} hooks in {copilot_setup.hooks_file()}" in out
    assert f"registered MCP server `agentctx` in {mcp}" in out
    hooks = json.loads(copilot_setup.hooks_file().read_text())
    assert hooks["version"] == 1 and set(hooks["hooks"]) == set(copilot.EVENTS)
    (entry,) = hooks["hooks"]["preToolUse"]
    assert entry["type"] == "command" and entry["bash"].endswith("hook pre-tool-use --agent copilot 2>/dev/null || true")
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert set(servers) == {"github", "playwright", "agentctx"} and servers["agentctx"]["args"][-1] == "mcp"
    assert servers["agentctx"]["type"] == "local" and servers["agentctx"]["tools"] == ["*"]
    before = mcp.read_bytes(), copilot_setup.hooks_file().read_bytes()
    rc, out, _ = run("init", "--agent", "copilot", "--no-profile")
    assert (mcp.read_bytes(), copilot_setup.hooks_file().read_bytes()) == before and "already registered" in out
    rc, out, _ = run("uninstall", "--agent", "copilot")
    assert rc == 0 and mcp.read_text(encoding="utf-8") == original and not copilot_setup.hooks_file().exists()
    assert not (isolated_home / ".copilot" / "hooks").exists()  # we created it; empty now
    assert run("uninstall", "--agent", "copilot")[1].strip() == "nothing of agentctx was registered with Copilot CLI"


def test_the_users_own_server_and_hooks_they_add_to_our_file_stay(run, isolated_home):
    mcp = _copilot_dir(isolated_home) / "mcp-config.json"
    own = '{\n  "mcpServers": {\n    "agentctx": {\n      "tools": [\n        "*"\n      ],\n      "type": "local",\n' \
          '      "command": "agentctx",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n'  # `copilot mcp add`
    mcp.write_text(own, encoding="utf-8")
    rc, out, _ = run("init", "--agent", "copilot", "--no-profile")
    assert "one you registered yourself: left as it is" in out and mcp.read_text() == own
    data = json.loads(copilot_setup.hooks_file().read_text())
    mine = {"type": "command", "bash": "./scripts/audit.sh", "timeoutSec": 5}
    data["hooks"]["preToolUse"].insert(0, mine)
    copilot_setup.hooks_file().write_text(json.dumps(data, indent=2))
    run("init", "--agent", "copilot", "--no-profile")
    assert json.loads(copilot_setup.hooks_file().read_text())["hooks"]["preToolUse"][0] == mine
    run("uninstall", "--agent", "copilot")
    assert mcp.read_text() == own
    assert json.loads(copilot_setup.hooks_file().read_text()) == {"version": 1, "hooks": {"preToolUse": [mine]}}


def test_disable_all_hooks_is_said_and_turned_off_only_when_asked(run, isolated_home):
    settings = _copilot_dir(isolated_home) / "settings.json"
    original = '{\n  "banner": "never",\n  "disableAllHooks": true\n}\n'
    settings.write_text(original, encoding="utf-8")
    rc, out, _ = run("init", "--agent", "copilot", "--no-profile")
    assert "disableAllHooks is true: no hook runs" in out and copilot_setup.disabled_flag() == "disableAllHooks"
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found["copilot-switch"]["status"] == "fail"
    rc, out, _ = run("init", "--agent", "copilot", "--yes", "--no-profile")
    assert "set disableAllHooks = false" in out and copilot_setup.disabled_flag() is None
    run("uninstall", "--agent", "copilot")
    assert settings.read_text() == original


def test_found_by_its_directory_and_known_to_doctor_and_status(run, isolated_home, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    rc, out, _ = run("init", "--no-profile")
    assert "Copilot CLI: registered" not in out and "no `copilot` on PATH" in out
    _copilot_dir(isolated_home)
    rc, out, _ = run("init", "--no-profile")
    assert "Copilot CLI: registered" in out and copilot_setup.registered()
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found["copilot-hooks"]["status"] == "ok" and found["copilot-mcp"]["status"] == "ok"
    assert "copilot" in json.loads(run("status", "--json")[1])["agents"]


def test_copilot_home_is_where_copilot_reads_its_files(run, isolated_home, tmp_path, monkeypatch):
    home = tmp_path / "cphome"
    home.mkdir()
    monkeypatch.setenv("COPILOT_HOME", str(home))
    run("init", "--agent", "copilot", "--no-profile")
    assert (home / "hooks" / "agentctx.json").exists() and (home / "mcp-config.json").exists()
    assert not (isolated_home / ".copilot").exists()


def test_a_file_that_is_not_json_is_refused_before_anything_is_written(run, isolated_home):
    mcp = _copilot_dir(isolated_home) / "mcp-config.json"
    mcp.write_text("{not json", encoding="utf-8")
    rc, out, err = run("init", "--agent", "copilot", "--no-profile")
    assert rc != 0 and err.count("\n") == 1 and mcp.read_text() == "{not json"
    assert not copilot_setup.hooks_file().exists()
