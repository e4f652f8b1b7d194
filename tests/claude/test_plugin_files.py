"""The Claude Code plugin's files: versions that follow the package's, the hooks file drawn from the hook table, and the
launcher (plugin/bin/agentctx) that finds a Python and runs the plugin's own package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.base import __version__
from agentctx.claude import plugin
from agentctx.claude.settings import HOOKS

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"
LAUNCHER = PLUGIN / "bin" / "agentctx"


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_plugin_and_marketplace_versions_are_the_package_version():
    import re

    (entry,) = _json(ROOT / ".claude-plugin" / "marketplace.json")["plugins"]
    pyproject = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert _json(PLUGIN / ".claude-plugin" / "plugin.json")["version"] == entry["version"] == __version__ == pyproject


def test_the_marketplace_lists_the_plugin_directory_under_our_names():
    market = _json(ROOT / ".claude-plugin" / "marketplace.json")
    (entry,) = market["plugins"]
    assert (market["name"], entry["name"], entry["source"]) == (plugin.MARKETPLACE_NAME, plugin.PLUGIN_NAME, "./plugin")
    assert _json(PLUGIN / ".claude-plugin" / "plugin.json")["name"] == plugin.PLUGIN_NAME


def test_the_plugin_directory_holds_the_package_through_a_relative_link():
    # Claude Code copies the plugin directory into its cache and turns a link that stays inside the marketplace into
    # a real copy (vendor-notes/claude-code-plugins.md): a relative link to the package, never a duplicate.
    link = PLUGIN / "agentctx"
    assert link.is_symlink() and os.readlink(link) == "../agentctx"
    assert (link / "__main__.py").resolve() == (ROOT / "agentctx" / "__main__.py").resolve()


def test_the_hooks_file_is_the_hook_table_run_through_the_launcher():
    doc = _json(PLUGIN / "hooks" / "hooks.json")
    assert doc == plugin.hooks_document(), "run: python tools/plugin_files.py"
    assert set(doc["hooks"]) == set(HOOKS)
    for event, (kebab, matcher, extra) in HOOKS.items():
        (group,) = doc["hooks"][event]
        assert group.get("matcher") == matcher
        (handler,) = group["hooks"]
        assert handler == {"type": "command", "command": f'sh "${{CLAUDE_PLUGIN_ROOT}}/bin/agentctx" hook {kebab}', **extra}


def test_the_generated_files_are_current():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "plugin_files.py"), "--check"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_mcp_server_is_declared_with_the_launcher():
    server = _json(PLUGIN / ".mcp.json")["mcpServers"]["agentctx"]
    assert server == {"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/bin/agentctx", "mcp"]}


def test_the_launcher_is_executable_posix_sh():
    assert os.access(LAUNCHER, os.X_OK) and LAUNCHER.read_text().startswith("#!/bin/sh\n")
    if os.path.exists("/usr/bin/dash") or os.path.exists("/bin/dash"):  # no bash-only syntax
        assert subprocess.run(["dash", "-n", str(LAUNCHER)], capture_output=True).returncode == 0


# --- the launcher --------------------------------------------------------------------------------------------

def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def _python_that_notes(path: Path, marker: Path) -> Path:
    """A Python that leaves a marker, then runs this interpreter."""
    return _script(path, f'echo "$0" >> "{marker}"\nexec "{sys.executable}" "$@"')


@pytest.fixture
def launch(tmp_path, isolated_home):
    """Run the launcher as Claude Code would: /bin/sh, a PATH we choose, the plugin's data directory."""
    data = tmp_path / "plugin-data"
    data.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    work = tmp_path / "project"
    work.mkdir()

    def _run(*args: str, path: str | None = None, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
        base = {"HOME": str(isolated_home), "AGENTCTX_HOME": str(isolated_home / ".agentctx"),
                "PATH": path if path is not None else f"{bin_dir}:/usr/bin:/bin", "CLAUDE_PLUGIN_DATA": str(data),
                "TMPDIR": os.environ["TMPDIR"], "LANG": "C.UTF-8"}
        return subprocess.run(["/bin/sh", str(LAUNCHER), *args], input=stdin, capture_output=True, text=True,
                              env={**base, **env}, cwd=work, timeout=60)
    _run.data, _run.bin, _run.work = data, bin_dir, work  # type: ignore[attr-defined]
    return _run


def test_the_launcher_finds_a_suitable_python_and_remembers_it(launch):
    _script(launch.bin / "python3.14", "exit 1")  # too old, or no FTS5: the probe fails
    (launch.bin / "python3.13").symlink_to(sys.executable)
    done = launch("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"agentctx {__version__}\n", "")
    remembered = (launch.data / "python").read_text().strip()
    assert os.path.realpath(remembered) == os.path.realpath(sys.executable)


def test_the_launcher_uses_the_remembered_python_without_probing(launch, tmp_path):
    marker = tmp_path / "ran"
    (launch.data / "python").write_text(str(_python_that_notes(tmp_path / "other" / "python", marker)) + "\n")
    _script(launch.bin / "python3.14", f'echo probed >> "{tmp_path / "probed"}"\nexit 1')
    assert launch("--version").stdout == f"agentctx {__version__}\n"
    assert marker.read_text().count("\n") == 1 and not (tmp_path / "probed").exists()


@pytest.mark.parametrize("shell", ["/bin/sh", "bash"])
def test_a_data_directory_that_is_not_there_costs_no_stderr(launch, tmp_path, shell):
    import shutil

    if shutil.which(shell) is None:
        pytest.skip(f"{shell} not here")
    (launch.bin / "python3.14").symlink_to(sys.executable)
    env = {"HOME": os.environ["HOME"], "PATH": f"{launch.bin}:/usr/bin:/bin",
           "CLAUDE_PLUGIN_DATA": str(tmp_path / "not" / "created")}
    done = subprocess.run([shell, str(LAUNCHER), "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"agentctx {__version__}\n", "")


def test_a_remembered_python_that_is_gone_is_looked_for_again(launch):
    (launch.data / "python").write_text("/nonexistent/python3\n")
    (launch.bin / "python3.14").symlink_to(sys.executable)
    assert launch("--version").returncode == 0
    assert (launch.data / "python").read_text().strip() != "/nonexistent/python3"


def test_agentctx_python_then_the_extras_virtualenv_come_first(launch, tmp_path, isolated_home):
    marker = tmp_path / "ran"
    venv_python = _python_that_notes(isolated_home / ".agentctx" / "venv" / "bin" / "python", marker)
    chosen = _python_that_notes(tmp_path / "chosen" / "python", marker)
    (launch.data / "python").write_text(sys.executable + "\n")
    assert launch("--version").returncode == 0
    assert marker.read_text().split() == [str(venv_python)]
    assert launch("--version", AGENTCTX_PYTHON=str(chosen)).returncode == 0
    assert marker.read_text().split() == [str(venv_python), str(chosen)]


def test_without_a_suitable_python_a_hook_says_why_and_exits_0(launch):
    _script(launch.bin / "python3", "exit 1")
    only_fakes = str(launch.bin)
    done = launch("hook", "user-prompt-submit", path=only_fakes, stdin='{"prompt": "hi"}')
    assert done.returncode == 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("agentctx: no Python 3.10 or newer with SQLite FTS5 found") and str(launch.bin) in line
    assert not (launch.data / "python").exists()  # nothing remembered: a Python installed later is found
    start = launch("hook", "session-start", path=only_fakes, stdin="{}")
    assert start.returncode == 0
    assert json.loads(start.stdout)["systemMessage"].startswith("agentctx: no Python 3.10 or newer")
    assert launch("status", path=only_fakes).returncode == 69


def test_an_agentctx_python_that_is_not_there_is_said_and_a_hook_still_exits_0(launch):
    done = launch("hook", "stop", stdin="{}", AGENTCTX_PYTHON="/nonexistent/python3")
    assert done.returncode == 0 and done.stdout == ""
    assert "no Python 3.10 or newer" in done.stderr and "AGENTCTX_PYTHON=/nonexistent/python3 (not executable)" in done.stderr


def test_the_plugins_package_runs_not_one_in_the_working_directory(launch):
    (launch.bin / "python3.14").symlink_to(sys.executable)
    shadow = launch.work / "agentctx"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise SystemExit('the project directory shadowed the plugin')\n")
    done = launch("--version")
    assert (done.returncode, done.stdout) == (0, f"agentctx {__version__}\n"), done.stderr


def test_the_launcher_runs_from_a_copy_in_a_directory_with_spaces(tmp_path, launch):
    copy = tmp_path / "plugin cache" / "agentctx" / "0.1.0"
    (copy / "bin").mkdir(parents=True)
    (copy / "bin" / "agentctx").write_bytes(LAUNCHER.read_bytes())  # the executable bit lost on the way
    (copy / "agentctx").symlink_to(ROOT / "agentctx")
    (launch.bin / "python3.14").symlink_to(sys.executable)
    done = subprocess.run(["/bin/sh", "-c", f'sh "{copy}/bin/agentctx" --version'], capture_output=True, text=True,
                          env={"PATH": f"{launch.bin}:/usr/bin:/bin", "HOME": os.environ["HOME"]}, timeout=60)
    assert (done.returncode, done.stdout) == (0, f"agentctx {__version__}\n"), done.stderr


def _copy_of_the_plugin(parent: Path) -> Path:
    """The plugin as Claude Code's cache would hold it, under `parent`: its launcher and its package."""
    copy = parent / "agentctx" / "0.1.0"
    (copy / "bin").mkdir(parents=True)
    (copy / "bin" / "agentctx").write_bytes(LAUNCHER.read_bytes())
    (copy / "agentctx").symlink_to(ROOT / "agentctx")
    return copy


def test_the_launcher_and_the_workers_it_spawns_run_from_a_path_holding_a_colon(tmp_path, launch, isolated_home):
    """Issue 34 item 19: a plugin directory like `~/.claude/plugins/cache/a:b/...` split on PYTHONPATH's `:` broke
    every hook (ModuleNotFoundError, a hook error on every prompt)."""
    from agentctx.base import spawn

    copy = _copy_of_the_plugin(tmp_path / "plugins" / "cache" / "team:agentctx")
    assert ":" in str(copy)
    (launch.bin / "python3.14").symlink_to(sys.executable)
    env = {"PATH": f"{launch.bin}:/usr/bin:/bin", "HOME": str(isolated_home), "CLAUDE_PLUGIN_ROOT": str(copy),
           "AGENTCTX_HOME": str(isolated_home / ".agentctx"), "TMPDIR": os.environ["TMPDIR"]}
    for command, stdin in ((f'sh "{copy}/bin/agentctx" --version', ""),
                           (f'sh "{copy}/bin/agentctx" hook user-prompt-submit', '{"prompt": "why WAL?"}'),
                           (f'sh "{copy}/bin/agentctx" hook session-start', '{"session_id": "s1", "source": "startup"}')):
        done = subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, text=True, env=env,
                              cwd=launch.work, timeout=60)
        assert (done.returncode, done.stderr) == (0, ""), command
        if "--version" in command:
            assert done.stdout == f"agentctx {__version__}\n"
    # A worker the plugin spawns (consolidation, extraction) starts as the launcher does, from another directory.
    argv = [sys.executable, "-c", spawn.PLUGIN_BOOT, "--version"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**env, "AGENTCTX_PLUGIN_ROOT": str(copy)})
    assert (done.returncode, done.stdout) == (0, f"agentctx {__version__}\n"), done.stderr
