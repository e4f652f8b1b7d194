"""wiring: the command `init` registers runs where Claude Code runs it (a login PATH), and `doctor` proves it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.claude import settings as cs
from agentctx.claude import doctor
from agentctx.base import paths
from agentctx.claude import wiring

SCRIPT = Path(sys.executable).parent / "agentctx"
LOGIN_ENV_PATH = "/usr/bin:/bin"  # what `env -i HOME=… PATH=/usr/bin:/bin` leaves: no virtualenv, no ~/.local/bin


def _script(path: Path, python: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{python}\nimport sys\nfrom agentctx import console\nsys.exit(console())\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake_python(tmp_path, monkeypatch):
    """Make this process look like it runs from `prefix/bin/python` (a venv when `venv`), with its script beside it."""

    def _make(prefix: Path, *, venv: bool) -> Path:
        python = prefix / "bin" / "python"
        python.parent.mkdir(parents=True, exist_ok=True)
        python.symlink_to(os.path.realpath(sys.executable))
        if venv:
            (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
        monkeypatch.setattr(sys, "executable", str(python))
        monkeypatch.setattr(sys, "prefix", str(prefix))
        monkeypatch.setattr(sys, "base_prefix", "/usr" if venv else str(prefix))
        _script(prefix / "bin" / "agentctx", str(python))
        return python

    # Only ~/.local/bin counts as the login PATH here, so the machine's own /usr/bin cannot change the answer.
    monkeypatch.setattr(wiring, "LOGIN_PATH_DIRS", ("~/.local/bin",))
    return _make


def test_activated_virtualenv_registers_the_absolute_command(fake_python, tmp_path, monkeypatch):
    """The venv is on PATH (activated), so `agentctx` resolves now; Claude Code will not have it: absolute form."""
    python = fake_python(tmp_path / "venv", venv=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'venv' / 'bin'}:{os.environ['PATH']}")
    choice = wiring.choose()
    assert choice.argv == (str(python), "-I", "-m", "agentctx") and not choice.on_path
    assert "virtualenv" in choice.reason and str(python) in choice.reason
    assert cs.launcher() == cs.Launcher((str(python), "-I", "-m", "agentctx"), False)


def test_tool_install_in_local_bin_registers_that_command(fake_python, tmp_path, monkeypatch, isolated_home):
    """uv and pipx keep a venv elsewhere and link its script into ~/.local/bin: registered as that venv's interpreter,
    by its absolute path (an IDE may start Claude Code without ~/.local/bin on PATH), isolated (`-I`: the project
    directory hooks run in cannot shadow the package), not through the installer's script (it imports `re`: issue 26
    item 16); bare in the project's shared settings."""
    python = fake_python(tmp_path / "uv-tools" / "agentctx-memory", venv=True)
    local_bin = isolated_home / ".local" / "bin"
    local_bin.mkdir(parents=True)
    (local_bin / "agentctx").symlink_to(tmp_path / "uv-tools" / "agentctx-memory" / "bin" / "agentctx")
    choice = wiring.choose()
    assert choice.argv == (str(python), "-I", "-m", "agentctx") and "login PATH" in choice.reason
    assert str(local_bin / "agentctx") in choice.reason
    shared = wiring.choose(shared=True)
    assert shared.argv == ("agentctx",) and shared.on_path and "shared project settings" in shared.reason


def test_user_site_install_registers_that_command(fake_python, tmp_path, isolated_home):
    """`pip install --user`: a system interpreter (no venv) and a script in ~/.local/bin whose shebang names it. Not
    `-I`, which would hide the user site the package lives in; `-P` keeps the project directory off sys.path."""
    python = fake_python(tmp_path / "usr", venv=False)
    _script(isolated_home / ".local" / "bin" / "agentctx", str(python))
    flags = ("-P",) if sys.version_info >= (3, 11) else ()
    assert wiring.choose().argv == (str(python), *flags, "-m", "agentctx")
    assert wiring.choose(shared=True).argv == ("agentctx",)


def test_another_installation_on_the_login_path_is_not_used(fake_python, tmp_path, isolated_home):
    fake_python(tmp_path / "usr", venv=False)
    _script(isolated_home / ".local" / "bin" / "agentctx", "/opt/other/bin/python3")
    choice = wiring.choose()
    assert choice.argv[-2:] == ("-m", "agentctx") and "another installation" in choice.reason


def test_not_on_the_login_path_at_all(fake_python, tmp_path):
    fake_python(tmp_path / "usr", venv=False)  # e.g. pyenv: its bin is on the shell's PATH only
    choice = wiring.choose()
    assert choice.argv[-2:] == ("-m", "agentctx") and "no `agentctx` on the login PATH" in choice.reason
    assert "a path of this machine" in wiring.choose(shared=True).reason


def test_a_temporary_uvx_environment_is_called_out(fake_python, tmp_path):
    fake_python(tmp_path / ".cache" / "uv" / "archive-v0" / "abc123", venv=True)
    assert "WARNING: this is a temporary `uvx`" in wiring.choose().reason


def test_prefix_of_registered_commands():
    assert wiring.prefix_of_hook("agentctx hook stop") == "agentctx"
    assert wiring.prefix_of_hook("'/a b/python' -m agentctx hook session-start") == "'/a b/python' -m agentctx"
    assert wiring.prefix_of_hook("lint.sh") is None


# --- end to end: `init` from an activated virtualenv, then every command from a minimal environment ---------------

def _git_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/wired.git\n')
    return root


def _registered(home: Path) -> tuple[list[str], list[str]]:
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    hooks = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["agentctx"]
    return hooks, [entry["command"], *entry["args"]]


@pytest.mark.skipif(not SCRIPT.exists() or sys.prefix == sys.base_prefix,
                    reason="needs agentctx installed in a virtualenv (the case this test is about)")
def test_init_in_an_activated_venv_wires_commands_that_run_from_a_minimal_env(tmp_path, isolated_home):
    repo = _git_repo(tmp_path / "repo")
    activated = {"HOME": str(isolated_home), "PATH": f"{SCRIPT.parent}:{LOGIN_ENV_PATH}", "VIRTUAL_ENV": sys.prefix}
    init = subprocess.run(["agentctx", "init"], cwd=repo, env=activated, capture_output=True, text=True, timeout=60)
    assert init.returncode == 0, init.stderr
    assert "absolute command" in init.stdout and "virtualenv" in init.stdout  # init says which form, and why
    record = subprocess.run(["agentctx", "record", "--type", "decision", "--title", "Store sessions in SQLite",
                             "--body", "One file, WAL mode."], cwd=repo, env=activated, capture_output=True, text=True)
    assert record.returncode == 0, record.stderr

    hooks, mcp = _registered(isolated_home)
    assert len(hooks) == 8 and all(not c.startswith("agentctx ") for c in hooks)
    minimal = {"HOME": str(isolated_home), "PATH": LOGIN_ENV_PATH}  # Claude Code started without the venv
    for command in hooks:
        event = command.rsplit(" ", 1)[-1]
        payload = {"session_id": "wired-1", "cwd": str(repo), "hook_event_name": event,
                   "prompt": "why do we store sessions in SQLite?", "source": "startup", "transcript_path": ""}
        done = subprocess.run(["/bin/sh", "-c", command], cwd=repo, env=minimal, input=json.dumps(payload),
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stderr == "", (command, done.stderr)
        if event == "user-prompt-submit":  # it really ran: the recorded decision comes back
            assert "Store sessions in SQLite" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}) + "\n"
    server = subprocess.run(mcp, cwd=repo, env=minimal, input=hello, capture_output=True, text=True, timeout=60)
    assert server.returncode == 0 and json.loads(server.stdout.splitlines()[0])["result"]["serverInfo"], server.stderr


def test_doctor_passes_working_commands_and_names_the_fix_for_broken_ones(isolated_home, monkeypatch, tmp_path):
    # Only /usr/bin:/bin for the probes: nothing of this test run is there (a missing `agentctx` is the point).
    monkeypatch.setattr(wiring, "LOGIN_PATH_DIRS", ("/usr/bin", "/bin"))
    absolute = cs.Launcher((sys.executable, "-m", "agentctx"), False)
    cs.install_hooks(cs.settings_path(None), absolute)
    cs.install_mcp(paths.claude_json(), absolute)
    found = doctor.check_claude_code(None)
    assert [c.status for c in found] == ["ok"], found
    assert f"8 hooks in {cs.settings_path(None)}; MCP server in {paths.claude_json()}" in found[0].detail

    # What `init` wrote before this fix, from an activated venv: bare `agentctx`, which a login PATH cannot find.
    project = _git_repo(tmp_path / "proj")
    cs.install_hooks(cs.settings_path(project), cs.Launcher(("agentctx",), True))
    broken = [c for c in doctor.check_claude_code(project) if c.status == "fail"]
    assert len(broken) == 1 and "`agentctx --version` exited 127" in broken[0].detail
    assert broken[0].detail.endswith(f"8 hooks in {cs.settings_path(project)}")
    assert broken[0].fix.startswith("run `agentctx init --project` again") and sys.executable in broken[0].fix
    assert doctor.run(project_root=project)[-1].status == "fail"


def test_doctor_without_registration_says_run_init():
    found = doctor.check_claude_code(None)
    assert len(found) == 1 and found[0].status == "warn" and found[0].fix == "agentctx init"
