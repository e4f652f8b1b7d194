"""The user's files as they are: strict JSON (no NaN/Infinity, no overflowing numbers, no duplicate keys), edits
through symlinks that keep the link, unique temporary files, and concurrent writers that end in one registration."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.claude import settings as cs
from agentctx.base import config, paths
from agentctx.cli import main
from agentctx.base.errors import ConfigError

LAUNCH = cs.Launcher(("agentctx",), True)
ROOT = Path(__file__).resolve().parents[2]

# Text the strict parser refuses: Python's json would read each one (as inf, nan or the last duplicate) and
# write back `Infinity`/`NaN` (which Claude Code cannot read) or silently drop a value.
NOT_STRICT = [
    ('{"model": "opus", "cleanupPeriodDays": 1e400}\n', "too large"),
    ('{"model": "opus", "x": -1e400}\n', "too large"),
    ('{"model": "opus", "ratio": NaN}\n', "NaN"),
    ('{"model": "opus", "ratio": Infinity}\n', "Infinity"),
    ('{"model": "opus", "ratio": -Infinity}\n', "Infinity"),
    ('{"model": "opus", "model": "sonnet"}\n', "duplicate key"),
    ('{"hooks": {"Stop": [], "Stop": []}}\n', "duplicate key"),
]


@pytest.mark.parametrize(("text", "why"), NOT_STRICT)
@pytest.mark.parametrize("which", ["hooks", "mcp", "uninstall-hooks", "uninstall-mcp"])
def test_non_strict_json_is_refused_untouched(tmp_path, text, why, which):
    tmp_path = tmp_path / "claude"
    tmp_path.mkdir()
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="utf-8")
    action = {"hooks": lambda: cs.install_hooks(path, LAUNCH), "mcp": lambda: cs.install_mcp(path, LAUNCH),
              "uninstall-hooks": lambda: cs.remove_hooks(path), "uninstall-mcp": lambda: cs.remove_mcp(path)}[which]
    with pytest.raises(ConfigError) as info:
        action()
    message = str(info.value)
    assert why in message and str(path) in message and "\n" not in message
    assert path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]  # no backup, no temporary file


def test_init_refuses_a_settings_file_with_1e400_in_one_line(tmp_path, capsys, repo):
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"cleanupPeriodDays": 1e400}\n', encoding="utf-8")
    assert main(["-C", str(repo), "init", "--no-profile"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings.json" in err and "Traceback" not in err
    assert settings.read_text(encoding="utf-8") == '{"cleanupPeriodDays": 1e400}\n'


def test_big_but_finite_numbers_and_huge_integers_round_trip(tmp_path):
    path = tmp_path / "settings.json"
    original = {"a": 1.7976931348623157e308, "b": 10 ** 40, "c": -0.0, "d": 1e-320, "model": "opus"}
    path.write_text(json.dumps(original, indent=2) + "\n", encoding="utf-8")
    assert cs.install_hooks(path, LAUNCH)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert {k: data[k] for k in original} == original
    assert cs.remove_hooks(path)
    assert json.loads(path.read_text(encoding="utf-8")) == original


def test_config_json_is_read_strictly(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"llm": true, "other": NaN}\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        config.set_value("llm", "false", path)
    assert "NaN" in str(info.value)
    assert path.read_text(encoding="utf-8") == '{"llm": true, "other": NaN}\n'
    path.write_text('{"llm": true, "big": 1e400}\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        config.set_value("llm", "false", path)
    assert path.read_text(encoding="utf-8") == '{"llm": true, "big": 1e400}\n'


# --- symlinks -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("relative", [False, True])
def test_symlinked_settings_stay_a_link_through_init_and_uninstall(tmp_path, relative):
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    real = dotfiles / "settings.json"
    original = '{\n    "model": "opus"\n}\n'
    real.write_text(original, encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "home" / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(real, link.parent) if relative else real)
    target = os.readlink(link)

    assert cs.install_hooks(link, LAUNCH)
    assert link.is_symlink() and os.readlink(link) == target
    assert set(json.loads(real.read_text(encoding="utf-8"))["hooks"]) == set(cs.HOOKS)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not cs.install_hooks(link, LAUNCH)  # a rerun changes nothing
    assert sorted(p.name for p in link.parent.iterdir()) == ["settings.json"]  # nothing beside the link

    assert cs.remove_hooks(link)
    assert link.is_symlink() and os.readlink(link) == target
    assert real.read_text(encoding="utf-8") == original
    assert sorted(p.name for p in dotfiles.iterdir()) == ["settings.json"]  # the backup is gone again


def test_symlinked_claude_json_keeps_the_link(tmp_path):
    real = tmp_path / "store" / "claude.json"
    real.parent.mkdir()
    original = '{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}'
    real.write_text(original, encoding="utf-8")
    link = tmp_path / ".claude.json"
    link.symlink_to(real)
    assert cs.install_mcp(link, LAUNCH)
    assert link.is_symlink() and "agentctx" in json.loads(real.read_text(encoding="utf-8"))["mcpServers"]
    assert cs.remove_mcp(link)
    assert link.is_symlink() and real.read_text(encoding="utf-8") == original


def test_symlink_to_a_missing_file_is_created_then_removed_behind_the_link(tmp_path):
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    assert cs.install_hooks(link, LAUNCH)
    assert link.is_symlink() and real.exists()
    assert cs.remove_hooks(link)
    assert link.is_symlink() and not real.exists()


def test_symlinked_config_json_keeps_the_link(tmp_path):
    real = tmp_path / "elsewhere" / "config.json"
    real.parent.mkdir()
    real.write_text('{"llm": true}\n', encoding="utf-8")
    link = tmp_path / "config.json"
    link.symlink_to(real)
    config.set_value("llm", "false", link)
    assert link.is_symlink() and json.loads(real.read_text(encoding="utf-8"))["llm"] is False


# --- atomic writes and concurrent writers -----------------------------------------------------------------------

def test_writes_use_a_unique_temporary_file(tmp_path, monkeypatch):
    # A stale `config.json.tmp` (another writer's, or a crash's) is neither used nor clobbered.
    tmp_path = tmp_path / "conf"
    tmp_path.mkdir()
    path = tmp_path / "config.json"
    stale = tmp_path / "config.json.tmp"
    stale.write_text("someone else's", encoding="utf-8")
    os.chmod(stale, 0o400)  # today's fixed name fails on it: PermissionError
    config.set_value("llm", "false", path)
    assert stale.read_text(encoding="utf-8") == "someone else's"
    assert json.loads(path.read_text(encoding="utf-8"))["llm"] is False
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "config.json.tmp"]


WORKER = """
import sys
sys.path.insert(0, {root!r})
from agentctx.cli import main
sys.exit(main({argv!r}))
"""


def _spawn(argv: list[str], cwd: Path) -> subprocess.Popen:
    code = WORKER.format(root=str(ROOT), argv=argv)
    return subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=dict(os.environ),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_concurrent_inits_end_with_one_registration_and_an_exact_restore(repo):
    home = Path(os.environ["HOME"])
    settings = home / ".claude" / "settings.json"
    state = home / ".claude.json"
    settings.parent.mkdir()
    user_settings = '{\n  "model": "opus",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}\n}\n'
    user_state = '{"numStartups": 12, "projects": {}}'
    settings.write_text(user_settings, encoding="utf-8")
    state.write_text(user_state, encoding="utf-8")
    for _ in range(2):  # two rounds of eight racing inits
        procs = [_spawn(["-C", str(repo), "init", "--no-profile"], repo) for _ in range(8)]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        assert [r for r in results if r[0] != 0] == []
        data = json.loads(settings.read_text(encoding="utf-8"))
        for event in cs.HOOKS:
            ours = [h for g in data["hooks"][event] for h in g["hooks"] if cs.is_ours(h)]
            assert len(ours) == 1, (event, data["hooks"][event])
        assert json.loads(state.read_text(encoding="utf-8"))["mcpServers"]["agentctx"]
    leftovers = sorted(p.name for p in settings.parent.iterdir() if p.name != "settings.json")
    assert leftovers == ["settings.json" + cs.BACKUP_SUFFIX]
    assert main(["uninstall"]) == 0
    assert settings.read_text(encoding="utf-8") == user_settings
    assert state.read_text(encoding="utf-8") == user_state
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    assert not [p for p in home.iterdir() if p.name.startswith(".claude.json") and p.name != ".claude.json"]


def test_concurrent_config_sets_lose_no_key(repo):
    main(["-C", str(repo), "config", "set", "llm", "true"])
    keys = [("llm", "false"), ("embeddings", "false"), ("modelTier", "quality"), ("reinforceThreshold", "7"),
            ("extractionModel", "claude-x"), ("embeddingModel", "m/e"), ("embeddingModelPath", "/models/e")]
    for _ in range(2):
        procs = [_spawn(["-C", str(repo), "config", "set", k, v], repo) for k, v in keys for _ in range(2)]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        assert [r for r in results if r[0] != 0] == []
    data = json.loads(paths.config_path().read_text(encoding="utf-8"))
    assert data == {"llm": False, "embeddings": False, "modelTier": "quality", "reinforceThreshold": 7,
                    "extractionModel": "claude-x", "embeddingModel": "m/e", "embeddingModelPath": "/models/e"} | \
        {k: v for k, v in data.items() if k not in dict(keys)}
    assert [p.name for p in paths.config_path().parent.iterdir() if p.name.endswith(".tmp")] == []
