"""`init`/`status`/`doctor`/`uninstall` on the cases a second week of use found (issue 34): an agent that is not
installed, a config.toml whose multi-line string holds our table's header, the user's own `agentctx` MCP entry,
GEMINI_CLI_HOME, a rerun after Codex wrote its trust."""

from __future__ import annotations

import json

import pytest

from agentctx.agents import codex_setup, gemini_setup, tomltext
from agentctx.base import paths
from agentctx.claude import settings as claude_settings

# What `codex mcp add agentctx -- agentctx mcp` wrote into an empty config.toml (Codex 0.171.0).
CODEX_USERS_OWN = '[mcp_servers.agentctx]\ncommand = "agentctx"\nargs = ["mcp"]\n'
# What `gemini mcp add -s user --trust agentctx agentctx mcp` wrote (Gemini CLI 0.61.0).
GEMINI_USERS_OWN = '{\n  "mcpServers": {\n    "agentctx": {\n      "command": "agentctx",\n      "args": [\n        "mcp"\n      ],\n      "trust": true\n    }\n  }\n}'
# What `claude mcp add -s user agentctx -- agentctx mcp` wrote into ~/.claude.json (Claude Code 2.1.197).
CLAUDE_USERS_OWN = {"type": "stdio", "command": "agentctx", "args": ["mcp"], "env": {}}
# A config.toml whose instructions quote our table's header: the file is valid, the header is text.
QUOTING = ('model = "gpt-5.5"\ndeveloper_instructions = """\nWhen asked about memory, say it lives in\n'
           '[mcp_servers.agentctx]\nand nowhere else.\n"""\n\n[features]\nweb_search = true\n')


def _user_dirs(home):
    return {p.name for p in home.iterdir()} - {".agentctx"}


# --- 10: an agent that is not installed ---------------------------------------------------------------------------

@pytest.mark.parametrize("agent,label", [("codex", "Codex CLI"), ("gemini", "Gemini CLI"), ("claude", "Claude Code")])
def test_an_agent_that_is_not_installed_is_said_and_nothing_is_written(run, isolated_home, agent, label):
    rc, out, err = run("init", "--agent", agent, "--no-profile")
    assert rc != 0 and err.count("\n") == 1 and f"{label} is not installed here" in err and "--force" in err
    assert _user_dirs(isolated_home) == set()  # no ~/.codex, ~/.gemini, ~/.claude, ~/.claude.json


@pytest.mark.parametrize("agent,label", [("codex", "Codex CLI"), ("gemini", "Gemini CLI")])
def test_forced_wiring_is_reported_not_installed_and_uninstall_leaves_no_empty_directory(run, isolated_home, agent,
                                                                                          label):
    rc, out, _ = run("init", "--agent", agent, "--force", "--no-profile")
    assert rc == 0 and f"{label}: not installed here" in out and "wired anyway (--force)" in out
    assert f"that {label} will not have on its PATH" in out or "virtualenv" not in out  # 26: the agent set up
    assert "Claude Code will not have" not in out
    status = json.loads(run("status", "--json")[1])
    assert status["agents"] == [agent] and status["agents_not_installed"] == [agent]
    assert "(not installed here)" in run("status")[1]
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert found[f"{agent}-installed"]["status"] == "warn" and "not installed here" in found[f"{agent}-installed"]["detail"]
    rc, out, _ = run("uninstall", "--agent", agent)
    assert rc == 0 and f"removed {isolated_home / ('.' + agent)}" in out
    assert _user_dirs(isolated_home) == set()


def test_uninstall_keeps_a_directory_it_did_not_create_even_empty(run, isolated_home):
    (isolated_home / ".codex").mkdir()
    run("init", "--agent", "codex", "--no-profile")
    run("uninstall", "--agent", "codex")
    assert (isolated_home / ".codex").is_dir() and not any((isolated_home / ".codex").iterdir())


# --- 14: a header inside a multi-line string ------------------------------------------------------------------------

def test_a_header_inside_a_multiline_string_is_text_and_every_step_keeps_the_file_valid(run, isolated_home):
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(QUOTING, encoding="utf-8")
    rc, out, err = run("init", "--agent", "codex", "--no-profile")
    assert rc == 0, err
    text = config.read_text()
    assert text.startswith(QUOTING) and tomltext.loads(text)["developer_instructions"] == tomltext.loads(QUOTING)[
        "developer_instructions"]
    assert tomltext.loads(text)["mcp_servers"]["agentctx"]["env_vars"] == ["AGENTCTX_HOME"]
    run("uninstall", "--agent", "codex")
    assert config.read_text() == QUOTING


def test_the_chunks_of_a_document_see_headers_only_at_the_top_level():
    text = ('a = """\n[x]\n\\"""\n[y]\n"""\nb = \'\'\'\n[z]\n\'\'\'\'\nc = [\n  "q",\n[1, 2],\n]\n'
            '[real] # [fake]\nd = "[not]"\n')
    assert [p for p, _ in tomltext.chunks(text)] == [None, ("real",)]
    assert "".join("".join(lines) for _, lines in tomltext.chunks(text)) == text


def test_a_step_that_refuses_writes_nothing(run, isolated_home):
    (isolated_home / ".codex").mkdir()
    bad = 'mcp_servers = { other = { command = "x" } }\n'  # valid TOML; our table cannot be added to an inline one
    codex_setup.config_file().write_text(bad, encoding="utf-8")
    rc, out, err = run("init", "--agent", "codex", "--no-profile")
    assert rc != 0 and "nothing was written" in err and err.count("\n") == 1
    assert not codex_setup.hooks_file().exists() and codex_setup.config_file().read_text() == bad
    assert not list(codex_setup.config_file().parent.glob("*.agentctx-*"))


# --- 15: the user's own MCP entry -------------------------------------------------------------------------------------

def test_the_users_own_codex_server_survives_init_and_uninstall_and_so_does_the_backup(run, isolated_home):
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_USERS_OWN, encoding="utf-8")
    rc, out, _ = run("init", "--agent", "codex", "--no-profile")
    assert "one you registered yourself: left as it is" in out and config.read_text() == CODEX_USERS_OWN
    run("uninstall", "--agent", "codex")
    assert config.read_text() == CODEX_USERS_OWN


def test_our_codex_server_changed_by_the_user_is_theirs_at_uninstall(run, isolated_home):
    (isolated_home / ".codex").mkdir()
    run("init", "--agent", "codex", "--no-profile")
    config = codex_setup.config_file()
    edited = config.read_text().replace('env_vars = ["AGENTCTX_HOME"]', 'env_vars = ["AGENTCTX_HOME", "MINE"]')
    config.write_text(edited, encoding="utf-8")
    run("uninstall", "--agent", "codex")
    assert tomltext.loads(config.read_text())["mcp_servers"]["agentctx"]["env_vars"] == ["AGENTCTX_HOME", "MINE"]


def test_the_users_own_gemini_server_survives_init_and_uninstall(run, isolated_home):
    settings = isolated_home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(GEMINI_USERS_OWN, encoding="utf-8")
    rc, out, _ = run("init", "--agent", "gemini", "--no-profile")
    assert "one you registered yourself: left as it is" in out
    assert json.loads(settings.read_text())["mcpServers"]["agentctx"] == json.loads(GEMINI_USERS_OWN)["mcpServers"]["agentctx"]
    assert len(gemini_setup.registered()) == 6
    run("uninstall", "--agent", "gemini")
    assert settings.read_text() == GEMINI_USERS_OWN


def test_the_users_own_claude_code_server_survives_init_and_uninstall(run, isolated_home):
    state = isolated_home / ".claude.json"
    original = json.dumps({"numStartups": 3, "mcpServers": {"agentctx": CLAUDE_USERS_OWN}}, indent=2)
    state.write_text(original, encoding="utf-8")
    (isolated_home / ".claude").mkdir()
    rc, out, _ = run("init", "--agent", "claude", "--no-profile")
    assert "one you registered yourself: left as it is" in out and state.read_text() == original
    rc, out, _ = run("uninstall", "--agent", "claude")
    assert state.read_text() == original and "left the MCP server `agentctx` you registered yourself" in out


def test_an_entry_written_before_agentctx_remembered_is_still_removed(isolated_home):
    """An installation of an earlier agentctx left no record of what it wrote: our shape in a file whose backup
    has no such entry is ours."""
    from agentctx.base import userfiles

    launch = claude_settings.Launcher(("/opt/agentctx/bin/python", "-m", "agentctx"), False)
    state = isolated_home / ".claude.json"
    state.write_text('{"theme": "dark"}', encoding="utf-8")
    assert claude_settings.install_mcp(state, launch)
    userfiles.disown(state, claude_settings.MCP_KEY)  # as an earlier version left it
    assert claude_settings.remove_mcp(state) and state.read_text() == '{"theme": "dark"}'


def test_the_backup_stays_when_the_file_lost_something_of_the_users(run, isolated_home):
    settings = isolated_home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark", "model": {"name": "gemini-2.5-pro"}}', encoding="utf-8")
    run("init", "--agent", "gemini", "--no-profile")
    data = json.loads(settings.read_text())
    del data["model"]  # the user (or a tool of theirs) dropped a key meanwhile
    settings.write_text(json.dumps(data), encoding="utf-8")
    rc, out, _ = run("uninstall", "--agent", "gemini")
    backup = settings.with_name("settings.json.agentctx-backup")
    assert backup.exists() and f"kept {backup}" in out and json.loads(settings.read_text()) == {"theme": "dark"}


# --- 28: GEMINI_CLI_HOME --------------------------------------------------------------------------------------------

def test_gemini_cli_home_is_where_gemini_reads_its_settings(run, isolated_home, tmp_path, monkeypatch):
    home = tmp_path / "gemhome"
    (home / ".gemini").mkdir(parents=True)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    assert paths.gemini_home() == home / ".gemini"
    rc, out, _ = run("init", "--agent", "gemini", "--no-profile")
    assert rc == 0 and str(home / ".gemini" / "settings.json") in out
    assert len(gemini_setup.registered()) == 6 and not (isolated_home / ".gemini").exists()
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert str(home / ".gemini" / "trustedFolders.json") in found["gemini-folder"]["fix"]
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(tmp_path / "trust.json"))
    (tmp_path / "trust.json").write_text(json.dumps({str(tmp_path): "TRUST_FOLDER"}))
    found = {c["name"]: c for c in json.loads(run("doctor", "--json")[1])}
    assert "gemini-folder" not in found


def test_codex_home_is_where_codex_reads_its_config(run, isolated_home, tmp_path, monkeypatch):
    home = tmp_path / "codexhome"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    run("init", "--agent", "codex", "--no-profile")
    assert (home / "config.toml").exists() and (home / "hooks.json").exists() and not (isolated_home / ".codex").exists()


# --- 29: a rerun changes nothing ------------------------------------------------------------------------------------

def test_a_second_init_after_codex_wrote_its_trust_changes_no_byte_and_says_so(run, isolated_home):
    (isolated_home / ".codex").mkdir()
    run("init", "--agent", "codex", "--no-profile")
    config = codex_setup.config_file()
    with config.open("a", encoding="utf-8") as fh:  # what `codex app-server` config/batchWrite appends (0.171.0)
        fh.write(f'\n[hooks.state]\n\n[hooks.state."{codex_setup.hooks_file()}:session_start:0:0"]\n'
                 'trusted_hash = "sha256:aa"\n')
    before = config.read_bytes(), codex_setup.hooks_file().read_bytes()
    rc, out, _ = run("init", "--agent", "codex", "--no-profile")
    assert (config.read_bytes(), codex_setup.hooks_file().read_bytes()) == before
    assert "MCP server `agentctx` already registered" in out and "hooks already registered" in out
    assert "registered MCP server" not in out.replace("already registered", "")


def test_uninstall_does_not_refuse_a_config_it_has_nothing_to_take_out_of(run, isolated_home):
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    broken = 'model = "gpt-5.5\n'  # Codex would refuse it too; nothing of ours is in it
    config.write_text(broken, encoding="utf-8")
    rc, out, err = run("uninstall")
    assert rc == 0 and config.read_text() == broken


def test_a_config_with_dates_and_every_string_kind_survives_init_and_uninstall(run, isolated_home):
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir()
    text = ("when = 1979-05-27T07:32:00Z\nday = 1979-05-27\nlit = 'C:\\\\Users'\nml = '''\n[mcp_servers.agentctx]\n'''\n"
            "arr = [\n  1,\n  [2, 3],\n]\n\n[t]\nx = {a = 1}\n")
    config.write_text(text, encoding="utf-8")
    assert run("init", "--agent", "codex", "--no-profile")[0] == 0
    assert tomltext.loads(config.read_text())["when"] == tomltext.loads(text)["when"]
    run("uninstall", "--agent", "codex")
    assert config.read_text() == text
