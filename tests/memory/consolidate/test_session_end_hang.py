"""SessionEnd while `claude` hangs (issue 34, item 20), with a FAKE `claude` (a script written here that never
answers and leaves a grandchild behind): the background consolidation bounds the call below its own lifetime, kills
the CLI's whole process group, pauses extraction, and still records the session's end, drains the pending ledger
and refreshes the digest. Limits are shortened through AGENTCTX_LIFETIME_S, as the hook hands them to its worker."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentctx.base import config, paths, spawn
from agentctx.base.project import detect
from agentctx.store import db

LIFETIME_S = 8.0

FAKE_HANGING_CLAUDE = """#!{python}
# FAKE `claude` for agentctx's tests: notes its pid and a grandchild's, then never answers.
import os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
sleeper = subprocess.Popen(["sleep", "300"])
with open(os.path.join(here, "pids"), "a") as fh:
    fh.write(f"{{os.getpid()}} {{sleeper.pid}}\\n")
sys.stdin.read()
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead, only not reaped yet
    except OSError:
        return False


def _transcript(path: Path, cwd: str) -> str:
    lines = [{"type": "user", "uuid": "u1", "sessionId": "s-hang", "cwd": cwd, "timestamp": "2026-12-02T10:00:00Z",
              "message": {"role": "user", "content": "exclude() must drop attributes given as attrs.Attribute too; "
                                                     "we decided to compare them by identity"}},
             {"type": "assistant", "uuid": "a1", "sessionId": "s-hang", "cwd": cwd,
              "timestamp": "2026-12-02T10:01:00Z",
              "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-8",
                          "content": [{"type": "text", "text": "Done: exclude() compares Attribute by identity."}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def hanging_claude(tmp_path):
    folder = tmp_path / "fakebin"
    folder.mkdir()
    exe = folder / "claude"
    exe.write_text(FAKE_HANGING_CLAUDE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    config.set_value("extraction", "claude-code")
    config.set_value("claudeCodePath", str(exe))
    yield folder
    for line in (folder / "pids").read_text().splitlines() if (folder / "pids").exists() else []:
        for pid in map(int, line.split()):
            try:
                os.kill(pid, signal.SIGKILL)  # only if the test failed: the fix kills them itself
            except OSError:
                pass


def test_session_end_with_a_hanging_claude_still_ends_the_session(hook, conn, repo, tmp_path, hanging_claude,
                                                                  monkeypatch):
    project = detect(repo)
    started: list[int] = []
    real = spawn.detached

    def keep_pid(argv, *, cwd=None, lifetime=None):
        pid = real(argv, cwd=cwd, lifetime=LIFETIME_S)
        started.append(pid)
        return pid

    monkeypatch.setattr(spawn, "detached", keep_pid)
    transcript = _transcript(tmp_path / "s-hang.jsonl", str(repo))
    common = {"session_id": "s-hang", "cwd": str(repo), "transcript_path": transcript}
    hook("session-start", {**common, "source": "startup"})
    hook("post-tool-use", {**common, "tool_name": "Edit", "tool_input": {"file_path": "src/attr/filters.py"}})
    at = time.time()
    hook("session-end", {**common, "reason": "prompt_input_exit"})
    (worker,) = started
    while True:  # our own child (detached into a session of its own, but still ours to reap)
        done, status = os.waitpid(worker, os.WNOHANG)
        if done:
            break
        assert time.time() - at < LIFETIME_S + 20, "the worker outlived its lifetime"
        time.sleep(0.2)
    took = time.time() - at
    assert os.waitstatus_to_exitcode(status) == 0 and took < LIFETIME_S  # it ended itself, not its watchdog
    (pids,) = [list(map(int, ln.split())) for ln in (hanging_claude / "pids").read_text().splitlines()]
    time.sleep(0.3)
    assert not [p for p in pids if _alive(p)], "a `claude` process outlived the worker"
    # The session's end is recorded, the ledger drained, the digest refreshed, extraction paused.
    conn = db.connect(paths.db_path())
    (ended,) = conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's-hang'").fetchone()
    assert ended
    assert not os.path.exists(paths.pending_ledger_file()) or not Path(paths.pending_ledger_file()).read_text().strip()
    assert os.path.getmtime(paths.digest_file(project.id)) >= at
    (handover,) = [r for r in conn.execute("SELECT body FROM records WHERE type = 'handover' AND session_id = 's-hang'")]
    assert "src/attr/filters.py" in handover[0]
    backoff = json.loads((paths.state_dir() / "extract-backoff.json").read_text())
    assert backoff["why"].startswith("timeout:") and backoff["until"] > time.time()
    # The next session end does not wait on the CLI again: extraction is paused.
    from agentctx.memory import consolidate

    report = consolidate.run(project, session_id="s-next", transcript=transcript)
    assert report["extraction"] == "done" and len((hanging_claude / "pids").read_text().splitlines()) == 1


def test_a_child_group_is_killed_when_the_workers_lifetime_runs_out_first():
    child = subprocess.Popen(["sh", "-c", "sleep 300 & sleep 300"], start_new_session=True)
    ended = []
    spawn.adopt(child.pid, lambda: ended.append(True))
    spawn.end_children()
    assert child.wait(timeout=10) == -signal.SIGKILL and ended == [True]
    spawn.release(child.pid)


def test_a_child_is_bounded_below_the_lifetime_with_time_left_for_the_rest(monkeypatch):
    monkeypatch.setattr(spawn, "_deadline", time.monotonic() + 120.0)
    monkeypatch.setattr(spawn, "_lifetime", 120.0)
    assert 85.0 < spawn.child_budget(180.0) <= 90.0  # the CLI's 180 s: cut to end 30 s before the worker does
    assert spawn.child_budget(10.0) == 10.0
    monkeypatch.setattr(spawn, "_deadline", None)
    assert spawn.child_budget(180.0) == 180.0  # run by hand: no lifetime
