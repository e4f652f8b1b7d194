"""The README's install path, for real: a fresh HOME, `uv tool install .` or `pipx install .`, `agentctx init` in a
throwaway git repository, then every registered hook and the MCP server run from a minimal environment.

It installs from the package index (the build backend), so it runs only when AGENTCTX_INSTALL_TEST=1 (`.ci/run`
sets it and provides uv and pipx) and skips when the tool is not on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Passed through so the tools reach the index the way this machine does; nothing else of this process leaks in.
NETWORK_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "SSL_CERT_FILE",
               "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL", "UV_INDEX_URL", "UV_DEFAULT_INDEX")
INSTALL = {"uv": ["tool", "install"], "pipx": ["install"]}  # then the checkout, as the README says


def _run(argv, env, cwd, stdin=None, timeout=300):
    return subprocess.run(argv, env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("tool", sorted(INSTALL))
def test_readme_install_then_hooks_run_from_a_minimal_env(tool, tmp_path):
    if os.environ.get("AGENTCTX_INSTALL_TEST") != "1":
        pytest.skip("set AGENTCTX_INSTALL_TEST=1 to run it: it installs from the package index (.ci/run does)")
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not on PATH (.ci/run installs it into a throwaway virtualenv)")
    home = tmp_path / "fresh-home"
    home.mkdir()
    local_bin = home / ".local" / "bin"
    # The user's login PATH after `uv tool update-shell` / `pipx ensurepath`; the tool itself by absolute path.
    login = {"HOME": str(home), "PATH": f"{local_bin}:/usr/bin:/bin"}
    env = {**{k: os.environ[k] for k in NETWORK_ENV if k in os.environ}, **login}
    # A copy of the checkout: building writes build/ and *.egg-info next to the sources.
    source = tmp_path / "checkout"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__", ".venv"))
    installed = _run([exe, *INSTALL[tool], "."], env, source)
    assert installed.returncode == 0, installed.stderr[-2000:]
    assert (local_bin / "agentctx").exists()

    repo = tmp_path / "throwaway"
    repo.mkdir()
    if shutil.which("git"):
        assert _run(["git", "init", "-q"], login, repo).returncode == 0
    else:
        (repo / ".git").mkdir()
    (home / ".claude").mkdir()  # Claude Code is installed for this user: init wires only the agents it finds
    init = _run(["agentctx", "init"], login, repo)
    assert init.returncode == 0, init.stderr
    # A tool install is registered by its venv's interpreter, by absolute path (it runs whatever PATH Claude Code
    # starts with), isolated, not through the installer's script (which imports `re`: issue 26 item 16).
    assert "hooks and MCP server using `" in init.stdout and " -I -m agentctx`" in init.stdout
    assert str(local_bin / "agentctx") in init.stdout
    assert _run(["agentctx", "record", "--type", "decision", "--title", "Queue jobs in Postgres",
                 "--body", "No Redis."], login, repo).returncode == 0

    settings = json.loads((home / ".claude" / "settings.json").read_text())
    hooks = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert len(hooks) == 8  # PreToolUse among them (SPEC §4.11)
    minimal = {"HOME": str(home), "PATH": "/usr/bin:/bin"}  # `env -i HOME=… PATH=/usr/bin:/bin`
    for command in hooks:
        event = command.split()[-1]
        payload = {"session_id": f"{tool}-1", "transcript_path": "", "cwd": str(repo), "hook_event_name": event,
                   "source": "startup", "prompt": "where do we queue jobs?"}
        done = _run(["/bin/sh", "-c", command], minimal, repo, stdin=json.dumps(payload), timeout=60)
        assert done.returncode == 0 and done.stderr == "", (command, done.returncode, done.stderr)
        if event == "user-prompt-submit":
            assert "Queue jobs in Postgres" in done.stdout

    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["agentctx"]
    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ci", "version": "0"}}}) + "\n"
    server = _run([entry["command"], *entry["args"]], minimal, repo, stdin=hello, timeout=60)
    assert server.returncode == 0 and json.loads(server.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "agentctx"

    doctor = _run(["agentctx", "doctor", "--json"], login, repo)
    wiring = [c for c in json.loads(doctor.stdout) if c["name"] == "claude-code"]
    assert [c["status"] for c in wiring] == ["ok"], wiring
