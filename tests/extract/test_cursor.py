"""Cursor state and the per-session lock."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from agentctx.extract import cursor


def test_cursor_round_trip_and_corrupt_file():
    c = cursor.Cursor("s/1", transcript="/t", offset=10, reinforced=("a",))
    cursor.save(c)
    assert cursor.load("s/1") == c
    assert oct(cursor.state_path("s/1").stat().st_mode & 0o777) == "0o600"
    cursor.state_path("s/1").write_text("{broken")
    assert cursor.load("s/1") == cursor.Cursor("s/1")


def test_lock_excludes_a_second_holder_and_times_out():
    with cursor.lock("s1", 1) as first:
        assert first
        t0 = time.monotonic()
        with cursor.lock("s1", 0.2) as second:
            assert not second
        assert time.monotonic() - t0 >= 0.2
    with cursor.lock("s1", 0) as again:
        assert again


def test_a_killed_holder_never_blocks(tmp_path):
    code = ("import time; from agentctx.extract import cursor\n"
            "with cursor.lock('s1', 5) as h:\n print('held', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=dict(os.environ))
    assert proc.stdout.readline().strip() == b"held"
    with cursor.lock("s1", 0.1) as held:
        assert not held
    proc.kill()
    proc.wait()
    with cursor.lock("s1", 2) as held:
        assert held


def test_exclusive_file_fallback_breaks_stale_locks(tmp_path):
    path = tmp_path / "x.excl"
    assert cursor._try_excl(path)
    assert not cursor._try_excl(path)  # held by us, alive
    path.write_text("999999999 0\n")  # a dead pid
    assert not cursor._try_excl(path)  # breaks it ...
    assert cursor._try_excl(path)  # ... and the next try wins
