"""The agentctx plugin and a tool install share one store and never both register: `init`, `uninstall`, `doctor` and
`status` read Claude Code's plugin files (in the shape Claude Code 2.1.197 and 2.1.332 write them:
vendor-notes/claude-code-plugins.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctx.claude import doctor, plugin
from agentctx.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.fixture
def claude_home(isolated_home):
    return isolated_home / ".claude"


@pytest.fixture
def installed(claude_home, tmp_path):
    """What `claude plugin install agentctx@agentctx [--scope S]` leaves: installed_plugins.json and enabledPlugins."""
    def _install(scope: str = "user", project: Path | None = None, enabled: bool = True,
                 plugin_id: str = "agentctx@agentctx") -> Path:
        cache = claude_home / "plugins" / "cache" / "agentctx" / "agentctx" / "0.1.0"
        cache.mkdir(parents=True, exist_ok=True)
        entry = {"scope": scope, "installPath": str(cache), "version": "0.1.0",
                 "installedAt": "2026-12-02T08:26:14.444Z", "lastUpdated": "2026-12-02T08:26:14.444Z"}
        if project is not None:
            entry["projectPath"] = str(project)
        _write(claude_home / "plugins" / "installed_plugins.json", {"version": 2, "plugins": {plugin_id: [entry]}})
        settings = (claude_home / "settings.json" if scope == "user" else
                    project / ".claude" / ("settings.json" if scope == "project" else "settings.local.json"))
        data = json.loads(settings.read_text()) if settings.exists() else {}
        data.setdefault("enabledPlugins", {})[plugin_id] = enabled
        _write(settings, data)
        return cache
    return _install


def test_installs_reads_what_claude_code_wrote(installed, repo, tmp_path):
    assert plugin.installs(repo) == [] and plugin.active(repo) is None
    path = installed()
    (found,) = plugin.installs(repo)
    assert (found.id, found.scope, found.path, found.version, found.enabled) == (
        "agentctx@agentctx", "user", str(path), "0.1.0", True)
    assert plugin.active(repo) == found and found.describe() == "agentctx@agentctx 0.1.0 (user scope, enabled)"


def test_a_project_install_applies_only_to_its_project(installed, repo, tmp_path):
    installed("project", repo)
    other = tmp_path / "other"
    other.mkdir()
    assert plugin.active(repo).scope == "project" and plugin.installs(other) == [] and plugin.installs(None) == []


def test_the_most_specific_settings_file_decides_enabled(installed, repo):
    installed()  # enabled in user settings
    _write(repo / ".claude" / "settings.local.json", {"enabledPlugins": {"agentctx@agentctx": False}})
    assert plugin.active(repo) is None and plugin.installs(repo)[0].enabled is False
    assert plugin.active(None) is not None


def test_a_plugin_from_another_marketplace_is_ours_too(installed, repo):
    installed(plugin_id="agentctx@my-fork")
    assert plugin.active(repo).id == "agentctx@my-fork"


def test_unreadable_plugin_files_mean_no_plugin(claude_home, repo):
    (claude_home / "plugins").mkdir(parents=True)
    (claude_home / "plugins" / "installed_plugins.json").write_text("{oops")
    assert plugin.installs(repo) == []


# --- init, uninstall ---------------------------------------------------------------------------------------------

def test_init_registers_nothing_while_the_plugin_is_enabled(installed, repo, monkeypatch, capsys, claude_home):
    installed()
    settings_before = (claude_home / "settings.json").read_text()
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "the Claude Code plugin agentctx@agentctx 0.1.0 (user scope, enabled) provides the hooks" in out
    assert "agentctx init --force" in out and "registered hooks" not in out
    assert (claude_home / "settings.json").read_text() == settings_before
    assert not (claude_home.parent / ".claude.json").exists()
    assert "agentctx is ready" in out  # the store, config, profile and digest are still set up


def test_init_force_registers_and_says_the_plugin_stands_aside(installed, repo, monkeypatch, capsys, claude_home):
    installed()
    monkeypatch.chdir(repo)
    assert main(["init", "--force"]) == 0
    out = capsys.readouterr().out
    assert "registered hooks" in out and "stands aside while these registrations exist" in out
    assert "SessionStart" in json.loads((claude_home / "settings.json").read_text())["hooks"]


def test_init_with_a_disabled_plugin_registers_and_mentions_it(installed, repo, monkeypatch, capsys):
    installed(enabled=False)
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "registered hooks" in out and "(user scope, disabled) is installed" in out


def test_init_from_the_plugin_never_registers_its_own_interpreter(installed, repo, monkeypatch, capsys, claude_home):
    monkeypatch.setenv(plugin.ROOT_ENV, str(ROOT / "plugin"))
    monkeypatch.chdir(repo)
    assert main(["init", "--force"]) == 0
    out = capsys.readouterr().out
    assert "runs from the Claude Code plugin" in out and "not enabled here: `claude plugin enable" in out
    assert not (claude_home / "settings.json").exists() and not (claude_home.parent / ".claude.json").exists()


def test_uninstall_names_the_plugin_it_leaves(installed, repo, monkeypatch, capsys):
    installed("local", repo)
    monkeypatch.chdir(repo)
    assert main(["uninstall"]) == 0
    out = capsys.readouterr().out
    assert "nothing of agentctx was registered in Claude Code's settings" in out
    assert "`claude plugin uninstall agentctx@agentctx --scope local` removes it" in out and "stays" in out


# --- doctor, status -----------------------------------------------------------------------------------------------

def _claude_checks(repo: Path) -> list[doctor.Check]:
    return [c for c in doctor.check_claude_code(repo)]


def _plugin_tree(cache: Path) -> None:
    """The cached copy as Claude Code leaves it: the launcher and the package (a real copy, here a link)."""
    (cache / "bin").mkdir(parents=True, exist_ok=True)
    (cache / "bin" / "agentctx").write_bytes((ROOT / "plugin" / "bin" / "agentctx").read_bytes())
    (cache / "agentctx").symlink_to(ROOT / "agentctx")


def test_doctor_checks_the_plugin_instead_of_asking_for_init(installed, repo, monkeypatch):
    import sys

    _plugin_tree(installed())
    monkeypatch.setenv("AGENTCTX_PYTHON", sys.executable)  # the probe's minimal environment keeps only HOME and PATH
    monkeypatch.setattr("agentctx.claude.wiring.minimal_env",
                        lambda: {"HOME": str(Path.home()), "PATH": "/usr/bin:/bin", "AGENTCTX_PYTHON": sys.executable})
    (check,) = _claude_checks(repo)
    assert check.name == "claude-plugin" and check.status == "ok", check
    assert "agentctx@agentctx 0.1.0 (user scope, enabled)" in check.detail and "runs `sh" in check.detail


def test_doctor_says_when_the_plugins_launcher_finds_no_python(installed, repo, monkeypatch, tmp_path):
    _plugin_tree(installed())
    only_sh = tmp_path / "only-sh"
    only_sh.mkdir()
    (only_sh / "sh").symlink_to("/bin/sh")  # a PATH with a shell and no Python
    monkeypatch.setattr("agentctx.claude.wiring.minimal_env", lambda: {"HOME": str(Path.home()), "PATH": str(only_sh)})
    (check,) = _claude_checks(repo)
    assert check.status == "fail" and "no Python 3.10 or newer" in check.detail
    assert "AGENTCTX_PYTHON" in check.fix


def test_doctor_warns_when_registered_twice(installed, repo, monkeypatch):
    from agentctx.claude import settings as cs

    _plugin_tree(installed())
    cs.install_hooks(cs.settings_path(None), cs.Launcher(("/opt/agentctx/bin/agentctx",), False))
    checks = {c.name: c for c in _claude_checks(repo)}
    twice = checks["claude-plugin"]
    assert twice.status == "warn" and "stands aside" in twice.detail
    assert "agentctx uninstall" in twice.fix and "claude plugin uninstall agentctx@agentctx" in twice.fix


def test_doctor_mentions_a_disabled_plugin_when_nothing_is_registered(installed, repo):
    installed(enabled=False)
    (check,) = _claude_checks(repo)
    assert check.status == "warn" and "claude plugin enable agentctx@agentctx" in check.fix


def test_status_says_which_registration_runs(installed, repo, monkeypatch, capsys):
    from agentctx.base import config
    from agentctx.store import db

    db.connect(create=True).close()
    config.ensure_file()
    monkeypatch.chdir(repo)
    assert main(["status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["claude_code"] == {
        "plugin": None, "settings": False, "line": "not registered: `agentctx init`, or the Claude Code plugin"}
    installed()
    assert main(["status"]) == 0
    assert "claude    plugin agentctx@agentctx 0.1.0 (user scope, enabled)" in capsys.readouterr().out
