"""`agentctx ui` through a pipe (a script, a supervisor, `| tee`): the URL reaches the reader while it serves."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys

from agentctx.base import paths
from agentctx.store import db

from .conftest import make_project


def test_ui_url_reaches_a_pipe_while_the_server_runs(tmp_path):
    db.connect(paths.db_path(), create=True).close()
    # PYTHONUNBUFFERED would hide the bug: an installed `agentctx` runs with a block-buffered pipe.
    project = make_project(tmp_path / "p", "git@github.com:me/p.git")
    proc = subprocess.Popen([sys.executable, "-m", "agentctx", "-C", str(project), "ui", "--no-browser"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"})
    try:
        # Wait for the line without blocking forever: before the fix it sat in the buffer until the server stopped.
        ready = selectors.DefaultSelector()
        ready.register(proc.stdout, selectors.EVENT_READ)
        line = proc.stdout.readline() if ready.select(timeout=30) else ""
        assert line.startswith("agentctx ui: http://127.0.0.1:"), (line, proc.poll())
        assert "#token=" in line
        assert proc.poll() is None  # still serving: the line came through while it runs
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
