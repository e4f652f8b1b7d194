"""Codex CLI registration: our hooks in ~/.codex/hooks.json, our MCP table in config.toml, trust through the real
`codex app-server` (when AGENTCTX_CODEX_BIN names one), and an uninstall that gives the user's bytes back."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agentctx.agents import codex_setup as cs
from agentctx.agents import tomltext
from agentctx.base.errors import ConfigError

ARGV = ("/opt/agentctx/bin/python", "-m", "agentctx")
USER_HOOKS = '{\n    "hooks": {\n        "SessionStart": [\n            {"hooks": [{"type": "command", "command": "echo mine"}]}\n        ]\n    }\n}\n'
USER_CONFIG = '# my config\nmodel = "gpt-5.5"   # the default\n\n[features]\nweb_search = true\n\n[mcp_servers.other]\ncommand = "x"\n'
# What `codex app-server` config/batchWrite appends for two trusted hooks (observed with 0.171.0).
TRUST = ('\n[hooks.state]\n\n[hooks.state."{f}:session_start:1:0"]\ntrusted_hash = "sha256:aa"\n\n'
         '[hooks.state."{f}:user_prompt_submit:0:0"]\ntrusted_hash = "sha256:bb"\n')


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_install_keeps_the_users_hooks_and_uninstall_gives_their_bytes_back():
    _write(cs.hooks_file(), USER_HOOKS)
    _write(cs.config_file(), USER_CONFIG)
    assert cs.install_hooks(ARGV) and cs.install_mcp(ARGV)
    data = json.loads(cs.hooks_file().read_text())
    assert data["hooks"]["SessionStart"][0] == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert data["hooks"]["SessionStart"][1]["hooks"][0] == {
        "type": "command", "command": "/opt/agentctx/bin/python -m agentctx hook session-start --agent codex",
        "timeout": 10}
    assert data["hooks"]["PostToolUse"] == [{"matcher": "^(Bash|apply_patch)$", "hooks": [{
        "type": "command", "command": cs.command(ARGV, "post-tool-use"), "timeout": 10}]}]
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] == 3  # Codex's cap (fact 18)
    assert set(cs.registered()) == set(cs.codex.EVENTS)
    config = tomltext.loads(cs.config_file().read_text())
    assert config["mcp_servers"]["agentctx"] == {"command": ARGV[0], "args": ["-m", "agentctx", "mcp"],
                                                 "env_vars": ["AGENTCTX_HOME"]}
    assert config["mcp_servers"]["other"] == {"command": "x"} and cs.config_file().read_text().startswith(USER_CONFIG)
    # Codex then writes the trust of our hooks into config.toml (as `trust` has it do)
    with cs.config_file().open("a", encoding="utf-8") as fh:
        fh.write(TRUST.format(f=cs.hooks_file()))
    keys = cs.our_keys()
    assert f"{cs.hooks_file()}:session_start:1:0" in keys and len(keys) == 7
    assert cs.unwire()
    assert cs.hooks_file().read_text() == USER_HOOKS and cs.config_file().read_text() == USER_CONFIG
    assert not list(cs.hooks_file().parent.glob("*.agentctx-*"))


def test_a_second_install_changes_no_byte_and_uninstall_removes_files_we_created():
    assert cs.install_hooks(ARGV) and cs.install_mcp(ARGV)
    before = cs.hooks_file().read_bytes(), cs.config_file().read_bytes()
    assert not cs.install_hooks(ARGV) and not cs.install_mcp(ARGV)
    assert (cs.hooks_file().read_bytes(), cs.config_file().read_bytes()) == before
    cs.unwire()
    assert not cs.hooks_file().exists() and not cs.config_file().exists()


def test_a_changed_launcher_replaces_our_entries_in_place():
    cs.install_hooks(ARGV)
    cs.install_mcp(ARGV)
    cs.install_hooks(("/usr/local/bin/agentctx",))
    cs.install_mcp(("/usr/local/bin/agentctx",))
    commands = [h["command"] for groups in json.loads(cs.hooks_file().read_text())["hooks"].values()
                for g in groups for h in g["hooks"]]
    assert len(commands) == 7 and all(c.startswith("/usr/local/bin/agentctx hook ") for c in commands)
    config = cs.config_file().read_text()
    assert config.count("[mcp_servers.agentctx]") == 1 and tomltext.loads(config)["mcp_servers"]["agentctx"][
        "command"] == "/usr/local/bin/agentctx"


def test_when_the_user_changed_the_file_meanwhile_only_our_entries_go():
    _write(cs.config_file(), USER_CONFIG)
    cs.install_mcp(ARGV)
    with cs.config_file().open("a", encoding="utf-8") as fh:
        fh.write('\n[profiles.fast]\nmodel = "gpt-5.5-mini"\n')
    cs.unwire()
    text = cs.config_file().read_text()
    assert "agentctx" not in text and tomltext.loads(text)["profiles"] == {"fast": {"model": "gpt-5.5-mini"}}


def test_a_malformed_file_is_refused_and_left_alone():
    _write(cs.hooks_file(), '{"hooks": {"SessionStart": {}}}')
    with pytest.raises(ConfigError):
        cs.install_hooks(ARGV)
    _write(cs.config_file(), "model = \n")
    with pytest.raises(ConfigError):
        cs.install_mcp(ARGV)
    assert cs.config_file().read_text() == "model = \n" and not list(cs.hooks_file().parent.glob("*.agentctx-*"))


def test_the_hooks_flag_is_found_turned_on_and_back_off_at_uninstall():
    original = "[features]\nhooks = false  # I turned them off\nweb_search = true\n"
    _write(cs.config_file(), original)
    assert cs.disabled_flag() == "features.hooks"
    assert "set features.hooks = true" in cs.enable_hooks_flag()
    assert cs.disabled_flag() is None and "hooks = true  # I turned them off" in cs.config_file().read_text()
    cs.install_mcp(ARGV)
    cs.unwire()
    assert cs.config_file().read_text() == original


CODEX = os.environ.get("AGENTCTX_CODEX_BIN")


@pytest.mark.skipif(not CODEX, reason="AGENTCTX_CODEX_BIN is not set (.ci/run installs the pinned Codex CLI)")
def test_trust_goes_through_the_real_app_server_and_uninstall_undoes_it(tmp_path):
    _write(cs.config_file(), USER_CONFIG)
    _write(cs.hooks_file(), USER_HOOKS)
    cs.install_hooks(ARGV)
    assert cs.trust_status(str(tmp_path), codex_bin=CODEX) == {cs.command(ARGV, n): "untrusted"
                                                               for n, _, _ in cs.codex.EVENTS.values()}
    assert cs.trust(str(tmp_path), ARGV, codex_bin=CODEX) == "trusted our 6 Codex hooks (codex app-server: " \
                                                            "hooks/list, config/batchWrite)"
    assert set(cs.trust_status(str(tmp_path), codex_bin=CODEX).values()) == {"trusted"}
    assert cs.trust(str(tmp_path), ARGV, codex_bin=CODEX) == "our Codex hooks were already trusted"
    state = tomltext.loads(cs.config_file().read_text())["hooks"]["state"]
    assert set(state) == set(cs.our_keys())  # the user's own hook stays untrusted: theirs to review
    cs.unwire()
    assert cs.hooks_file().read_text() == USER_HOOKS and cs.config_file().read_text() == USER_CONFIG
