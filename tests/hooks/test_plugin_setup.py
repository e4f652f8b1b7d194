"""The plugin has no `agentctx init` step: its SessionStart sets a project up (detached `init`) the first time it sees
it, says so, and never again once the project has a digest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentctx.base import paths, spawn
from agentctx.base.project import detect
from agentctx.hooks import session

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def spawned(monkeypatch):
    started: list[tuple[list[str], str | None]] = []
    monkeypatch.setattr(spawn, "detached", lambda argv, cwd=None, lifetime=None: started.append((argv, cwd)) or 4242)
    return started


@pytest.fixture
def as_plugin(monkeypatch):
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(ROOT / "plugin"))
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", str(ROOT / "plugin"))


def test_the_first_session_of_a_project_starts_init_and_says_so(repo, hook, as_plugin, spawned):
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert out == {"systemMessage": session.SETTING_UP}
    ((argv, cwd),) = spawned
    assert argv == [sys.executable, "-c", spawn.PLUGIN_BOOT, "init"] and cwd == str(repo)
    # a second session moments later (init still running) starts nothing more
    assert hook("session-start", {"session_id": "s2", "cwd": str(repo), "source": "startup"}) is None
    assert len(spawned) == 1
    stamp = paths.setup_stamp_file(detect(repo).id)
    assert os.stat(stamp).st_mode & 0o777 == 0o600
    old = time.time() - session.SETUP_RETRY_S - 1
    os.utime(stamp, (old, old))  # that init died: the next session tries again
    hook("session-start", {"session_id": "s3", "cwd": str(repo), "source": "startup"})
    assert len(spawned) == 2


def test_a_project_with_a_digest_is_not_set_up_again(repo, hook, as_plugin, spawned, add):
    from agentctx.memory import consolidate

    add("Storage decision", "We keep records in sqlite.")
    consolidate.run(detect(repo))
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert spawned == [] and "Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def test_a_tool_install_never_sets_up_from_a_hook(repo, hook, spawned):
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert spawned == []


def test_the_plugins_children_start_as_its_launcher_does(monkeypatch):
    assert spawn.agentctx_argv("consolidate") == [sys.executable, "-m", "agentctx", "consolidate"]
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", "/plugin")
    assert spawn.agentctx_argv("consolidate") == [sys.executable, "-c", spawn.PLUGIN_BOOT, "consolidate"]
    launcher = (ROOT / "plugin" / "bin" / "agentctx").read_text()
    assert f"""exec "$py" -c '{spawn.PLUGIN_BOOT}' "$@"\n""" in launcher


def test_from_the_launcher_a_first_session_leaves_a_store_a_profile_and_a_digest(repo, isolated_home):
    (repo / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    env = {"HOME": str(isolated_home), "AGENTCTX_HOME": str(isolated_home / ".agentctx"), "PATH": "/usr/bin:/bin",
           "TMPDIR": os.environ["TMPDIR"], "AGENTCTX_PYTHON": sys.executable,
           "CLAUDE_PLUGIN_ROOT": str(ROOT / "plugin"), "CLAUDE_PROJECT_DIR": str(repo)}
    payload = json.dumps({"session_id": "s1", "cwd": str(repo), "source": "startup"})
    done = subprocess.run(["sh", str(ROOT / "plugin" / "bin" / "agentctx"), "hook", "session-start"], input=payload,
                          capture_output=True, text=True, env=env, cwd=repo, timeout=60)
    assert json.loads(done.stdout) == {"systemMessage": session.SETTING_UP} and done.stderr == ""
    digest = Path(paths.digest_file(detect(repo).id))
    deadline = time.monotonic() + 30
    while not digest.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert digest.exists() and paths.db_path().exists()
    assert "Project profile (agentctx):" in json.loads(digest.read_text())["text"]
    assert not (isolated_home / ".claude" / "settings.json").exists()  # registered nothing
