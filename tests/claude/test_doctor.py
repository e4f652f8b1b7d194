"""doctor.run: every check, on healthy, damaged and missing stores, with and without repair."""

from __future__ import annotations

import sqlite3

import pytest

from agentctx.base import config
from agentctx.store import db
from agentctx.claude import doctor
from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.store import records


@pytest.fixture
def conn():
    c = db.connect(create=True)
    config.ensure_file()
    records.insert(c, NewRecord("decision", "Use SQLite", "One file.", "P"))
    records.insert(c, NewRecord("convention", "Tabs", "Indent with tabs.", "P"))
    yield c
    c.close()


def by_name(results):
    return {c.name: c for c in results}


def test_healthy_store(conn):
    found = by_name(doctor.run())
    assert all(c.status == "ok" for name, c in found.items() if name != "claude-code"), found
    assert found["claude-code"].status == "warn" and found["claude-code"].fix == "agentctx init"  # not wired here
    assert {"database", "integrity", "schema", "fts", "wal", "config", "llm", "mcp-sdk"} <= set(found)
    assert found["fts"].detail.startswith("2 rows indexed")


def test_every_check_is_a_json_safe_dict(conn):
    for check in doctor.run():
        assert set(check.to_dict()) == {"name", "status", "detail", "fix"}
        assert check.status in ("ok", "warn", "fail")


def test_no_database():
    found = by_name(doctor.run())
    assert found["database"].status == "fail" and found["database"].fix == "agentctx init"
    assert "integrity" not in found


def test_a_desynced_index_fails_and_repair_rebuilds_it(conn):
    rowid = conn.execute("SELECT rowid FROM records LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
    fts = by_name(doctor.run())["fts"]
    assert fts.status == "fail" and "inconsistent" in fts.detail
    assert by_name(doctor.run(repair=True))["fts"].status == "ok"
    assert by_name(doctor.run())["fts"].status == "ok"
    assert conn.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'tabs'").fetchone()[0] == 1


def test_stale_index_content_is_found(conn):
    # The index claims a word the record no longer has (an update that bypassed the triggers).
    conn.execute("DROP TRIGGER records_au")
    conn.execute("UPDATE records SET body = 'Indent with spaces.' WHERE title = 'Tabs'")
    assert by_name(doctor.run())["fts"].status == "fail"
    assert by_name(doctor.run(repair=True))["fts"].status == "ok"


def test_schema_version_mismatch_fails(conn, monkeypatch):
    monkeypatch.setattr(doctor, "LATEST", doctor.LATEST + 1)
    schema = by_name(doctor.run())["schema"]
    assert schema.status == "fail" and "expected" in schema.detail


def test_loose_permissions_warn_and_repair(conn):
    paths.config_path().chmod(0o644)
    found = by_name(doctor.run())
    assert found["permissions config.json"].status == "warn"
    assert "chmod 600" in found["permissions config.json"].fix
    doctor.run(repair=True)
    assert by_name(doctor.run())["permissions config.json"].status == "ok"


def test_missing_config_is_a_warning(conn):
    paths.config_path().unlink()
    assert by_name(doctor.run())["config"].status == "warn"


def test_not_in_wal_mode(conn, monkeypatch):
    conn.close()
    raw = sqlite3.connect(paths.db_path())
    raw.execute("PRAGMA journal_mode=DELETE")
    raw.close()
    real_connect = db.connect

    def connect_without_wal(path=None, **kw):  # look at the file as it is, without connect() fixing it
        c = sqlite3.connect(str(path or paths.db_path()), isolation_level=None)
        return c

    monkeypatch.setattr(db, "connect", connect_without_wal)
    assert by_name(doctor.run())["wal"].status == "fail"
    monkeypatch.setattr(db, "connect", real_connect)
    assert by_name(doctor.run())["wal"].status == "ok"


def test_corrupt_file_never_raises(conn):
    conn.close()
    paths.db_path().write_bytes(b"\x00junk" * 2000)
    for suffix in ("-wal", "-shm"):
        paths.db_path().with_name(paths.db_path().name + suffix).unlink(missing_ok=True)
    found = by_name(doctor.run(repair=True))
    assert found["database"].status == "fail"
    assert "agentctx doctor" in found["database"].detail or "damaged" in found["database"].detail


def test_a_check_that_raises_is_reported(conn, monkeypatch):
    def broken(_conn, _repair):
        raise sqlite3.OperationalError("boom")

    broken.__name__ = "check_broken"
    monkeypatch.setattr(doctor, "CHECKS", [*doctor.CHECKS, broken])
    found = by_name(doctor.run())
    assert found["broken"].status == "fail" and found["broken"].detail == "boom"
