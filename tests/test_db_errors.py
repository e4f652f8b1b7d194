"""Errors tell the truth (issue 16, item 8): a read-only data directory, a full disk and a lock are each named for
what they are, with what to do; "damaged" is kept for real corruption, which doctor confirms."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.base import config
from agentctx.store import db
from agentctx.claude import doctor
from agentctx.base import paths
from agentctx.claude import setup
from agentctx.cli import main
from agentctx.base.errors import StoreError
from agentctx.base.models import NewRecord
from agentctx.store import records


def _record(n: int = 0) -> list[str]:
    return ["record", "--type", "decision", "--title", f"Decision {n}", "--body", "Body of the decision."]


def _by_name(results):
    return {c.name: c for c in results}


@pytest.fixture
def readonly_home(isolated_home, repo, monkeypatch):
    """A data directory agentctx cannot write: chmod for a normal user; for root (which ignores modes) a tmpfs
    remounted read-only, or a skip where mounting is not allowed."""
    home = paths.home()
    monkeypatch.chdir(repo)
    if os.geteuid() != 0:
        setup.initialize()
        assert main(_record()) == 0
        for name in os.listdir(home):
            if name.startswith("agentctx.db"):
                os.chmod(home / name, 0o400)
        os.chmod(home, 0o500)
        yield home
        os.chmod(home, 0o700)
        return
    home.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(home)],
                      capture_output=True).returncode != 0:
        pytest.skip("running as root and cannot mount a tmpfs: no way to make a directory read-only")
    try:
        setup.initialize()
        assert main(_record()) == 0
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True, capture_output=True)
        yield home
    finally:
        subprocess.run(["umount", "-l", str(home)], capture_output=True)


def test_a_read_only_data_directory_is_reported_as_such_not_as_damage(readonly_home, capsys):
    assert main(_record(1)) != 0
    err = capsys.readouterr().err
    assert "damaged" not in err
    assert "read-only" in err or "permission denied" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_doctor_on_a_read_only_data_directory_says_so(readonly_home):
    found = doctor.run()
    text = " ".join(f"{c.detail} {c.fix or ''}" for c in found if c.status != "ok")
    assert "damaged" not in text and "restore a backup" not in text
    assert "read-only" in text or "permission denied" in text


def test_sqlite_full_is_reported_as_no_space(conn):
    # A real SQLITE_FULL: the page limit stands in for the disk (the tmpfs case is tests/reliability, marked slow).
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages}")
    with pytest.raises(sqlite3.OperationalError) as info:
        for i in range(200):
            records.insert(conn, NewRecord("decision", f"Filler {i}", "x" * 1900, "P"))
    err = db.translate(info.value, paths.db_path())
    assert err.code == "db_full"
    assert "no space left" in str(err) and "damaged" not in str(err) and "free" in str(err)


def test_a_disk_io_error_on_a_full_file_system_is_reported_as_no_space(monkeypatch, tmp_path):
    # SQLite reports a full tmpfs as "disk I/O error" when growing the -shm file fails; the file system says why.
    class FakeStatvfs:  # a fake: a file system with no block left
        f_bavail, f_frsize, f_flag = 0, 4096, 0

    monkeypatch.setattr(os, "statvfs", lambda _: FakeStatvfs())
    exc = sqlite3.OperationalError("disk I/O error")
    err = db.translate(exc, tmp_path / "agentctx.db")
    assert err.code == "db_full" and "no space left" in str(err)


def test_a_disk_io_error_with_space_left_is_an_io_error_not_damage(tmp_path):
    err = db.translate(sqlite3.OperationalError("disk I/O error"), tmp_path / "agentctx.db")
    assert err.code == "db_io" and "damaged" not in str(err)


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="the lock holder is found through /proc/locks")
@pytest.mark.parametrize("mode", ["exclusive-mode", "begin-exclusive"])
def test_a_lock_names_the_process_holding_it(conn, mode, monkeypatch):
    conn.close()
    script = str(Path(__file__).resolve().parent / "lockholder.py")  # holds the store, as a DB browser would
    holder = subprocess.Popen([sys.executable, script, str(paths.db_path()), mode], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError) as info:
            c = db.connect(paths.db_path(), timeout=0.1)
            try:
                records.insert(c, NewRecord("decision", "Blocked", "body", "P"))
            finally:
                c.close()
        assert info.value.code == "db_locked"
        assert f"process {holder.pid}" in str(info.value)
        if mode == "exclusive-mode":
            monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 100)
            found = _by_name(doctor.run())
            assert found["database"].status == "fail" and f"process {holder.pid}" in found["database"].detail
            assert "damaged" not in found["database"].detail + (found["database"].fix or "")
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)




def test_real_corruption_is_called_damaged_and_doctor_confirms_it(isolated_home):
    path = paths.db_path()
    paths.ensure_private_dir(path.parent)
    path.write_bytes(b"this is not a database at all" * 100)
    config.ensure_file()
    with pytest.raises(StoreError) as info:
        db.connect(path)
    assert info.value.code == "db_corrupt" and "damaged" in str(info.value)
    found = _by_name(doctor.run())
    assert found["database"].status == "fail"
    assert "integrity" in found["database"].detail  # confirmed, not assumed


def test_translate_keeps_damaged_for_corruption_only():
    assert db.translate(sqlite3.DatabaseError("database disk image is malformed"), "/x").code == "db_corrupt"
    assert db.translate(sqlite3.DatabaseError("file is not a database"), "/x").code == "db_corrupt"
    other = db.translate(sqlite3.OperationalError("no such table: nowhere"), "/x")
    assert other.code != "db_corrupt" and "damaged" not in str(other)
