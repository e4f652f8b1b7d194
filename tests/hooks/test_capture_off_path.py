"""Capture off the agent's path (issue 43): a PostToolUse hook process answers and exits before the capture is done;
the capture runs in a detached child that holds none of the agent's pipes, and lands in the store all the same."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import agentctx
from agentctx.base import paths
from agentctx.base.project import detect
from agentctx.memory import consolidate
from agentctx.store import db


def _hook(repo, payload, event="post-tool-use"):
    root = str(Path(agentctx.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root}
    start = time.perf_counter()
    # Pipes, as the agent gives them: communicate() returns only when every holder of the write ends closed them.
    done = subprocess.run([sys.executable, "-m", "agentctx", "hook", event], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, cwd=str(repo), timeout=20)
    return done, time.perf_counter() - start


def _bugfix_stubs(home_db):
    conn = db.connect(home_db)
    try:
        return conn.execute("SELECT count(*) FROM records WHERE type = 'bugfix'").fetchone()[0]
    finally:
        conn.close()


def test_the_hook_answers_then_the_capture_lands(add, repo):
    add("Plain", "Nothing governed.")
    consolidate.run(detect(repo))
    payload = {"session_id": "off1", "cwd": str(repo), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
               "tool_input": {"command": "pytest tests/test_app.py"}, "tool_use_id": "t1",
               "error": "Exit code 1\nFAILED tests/test_app.py::test_x - ValueError: bad input"}
    done, _took = _hook(repo, payload, "post-tool-use-failure")
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    deadline = time.time() + 15
    while time.time() < deadline and not _bugfix_stubs(paths.db_path()):
        time.sleep(0.1)
    assert _bugfix_stubs(paths.db_path()) == 1
    from agentctx.memory.capture import read_log

    assert any("pytest" in json.dumps(row) for row in read_log("off1"))  # the working log too


def test_the_answer_does_not_wait_for_the_capture(add, repo, monkeypatch):
    """The capture is made slow on purpose (a store locked by another process): the hook still exits at once."""
    add("Plain", "Nothing governed.")
    consolidate.run(detect(repo))
    holder = db.connect(paths.db_path())
    holder.execute("BEGIN IMMEDIATE")  # the capture waits on this lock, then defers its write
    try:
        payload = {"session_id": "off2", "cwd": str(repo), "tool_name": "Bash", "tool_use_id": "t2",
                   "tool_input": {"command": "pytest"}, "tool_response": {"stdout": "", "stderr": "boom",
                                                                          "interrupted": False}}
        done, took = _hook(repo, {**payload, "hook_event_name": "PostToolUseFailure",
                                  "error": "Exit code 1\nFAILED test_x"}, "post-tool-use-failure")
        assert done.returncode == 0
        assert took < 0.9  # the child waits 1 s on the lock (LOCK_WAIT_S), the answer does not
    finally:
        holder.rollback()
        holder.close()
    pending = paths.pending_ledger_file()

    def landed():  # stored once the lock was gone, or deferred to the pending ledger: not lost
        return _bugfix_stubs(paths.db_path()) or (os.path.exists(pending) and '"write": "capture"' in open(pending).read())

    deadline = time.time() + 15
    while time.time() < deadline and not landed():
        time.sleep(0.1)
    assert landed()
