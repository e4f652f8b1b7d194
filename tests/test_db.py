"""Opening the store: migrations from a blank file, pragmas, permissions, and readable failures."""

from __future__ import annotations

import sqlite3
import stat

import pytest

from agentctx.store import db, migrations
from agentctx.base import paths
from agentctx.base.errors import NotFoundError, StoreError
from agentctx.base.models import NewRecord
from agentctx.store import records

# SPEC §3.1, column for column, plus the tables this implementation adds.
SCHEMA = {
    "records": ["id", "project_id", "type", "title", "body", "scope", "pinned", "confidence", "reinforce_count",
                "valid_from", "recorded_at", "superseded_at", "superseded_by", "access_count", "last_accessed",
                "score", "claudemd_drift_score", "source", "session_id", "pending_embedding",
                "questions", "aliases", "anchors", "guard"],
    "nodes": ["id", "project_id", "kind", "name"],
    "edges": ["id", "from_id", "to_id", "rel_type", "weight"],
    "record_entities": ["record_id", "entity_id"],
    "sessions": ["session_id", "project_id", "started_at", "ended_at", "tokens_injected", "extraction_cost_usd",
                 "agent"],
    "injections": ["id", "session_id", "project_id", "event", "prompt_hash", "record_ids", "scores", "tokens",
                   "created_at"],
    "records_fts": ["title", "body", "questions", "aliases"],
}


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "agentctx.db"


@pytest.fixture
def conn(path):
    c = db.connect(path, create=True)
    yield c
    c.close()


def _columns(conn, table):
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def test_blank_database_gets_every_spec_table_and_column(conn):
    for table, columns in SCHEMA.items():
        assert _columns(conn, table) == columns, table


def test_records_defaults_follow_the_spec(conn):
    defaults = {row[1]: row[4] for row in conn.execute("PRAGMA table_info(records)")}
    assert defaults["scope"] == "'project'"
    assert defaults["pinned"] == "0"
    assert defaults["confidence"] == "'inferred'"
    assert defaults["score"] == "1.0"
    assert defaults["pending_embedding"] == "1"
    notnull = {row[1] for row in conn.execute("PRAGMA table_info(records)") if row[3]}
    assert {"project_id", "type", "title", "body", "valid_from", "recorded_at", "source"} <= notnull


def test_fts_is_external_content_with_porter_and_triggers(conn):
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'records_fts'").fetchone()[0]
    assert "content=records" in sql and "porter" in sql
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"records_ai", "records_ad", "records_au"} <= triggers
    assert db.has_fts(conn)


def test_node_names_are_unique_per_project_and_kind_only(conn):
    insert = "INSERT INTO nodes (id, project_id, kind, name) VALUES (?, ?, ?, ?)"
    conn.execute(insert, ("1", "P", "branch", "main"))
    conn.execute(insert, ("2", "Q", "branch", "main"))  # the same branch name in another project
    conn.execute(insert, ("3", "P", "file", "main"))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(insert, ("4", "P", "branch", "main"))


def test_migration_row_and_user_version(conn):
    rows = conn.execute("SELECT version, name FROM _agentctx_migrations ORDER BY version").fetchall()
    assert [tuple(r) for r in rows] == [(m.version, m.name) for m in migrations.MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST


def test_schema_version_is_the_latest_migration():
    # db checks the version without importing the migrations: a new migration must bump db.SCHEMA_VERSION.
    assert db.SCHEMA_VERSION == migrations.LATEST


def test_migration_versions_are_appended_in_order():
    versions = [m.version for m in migrations.MIGRATIONS]
    assert versions == list(range(1, versions[-1] + 1))


def test_reopening_is_idempotent(path, conn):
    records.insert(conn, NewRecord("decision", "Keep me", "body", "P"))
    conn.close()
    again = db.connect(path)
    try:
        assert db.apply_migrations(again) == []
        assert again.execute("SELECT count(*) FROM _agentctx_migrations").fetchone()[0] == len(migrations.MIGRATIONS)
        assert again.execute("SELECT count(*) FROM records").fetchone()[0] == 1
    finally:
        again.close()


def test_pragmas(conn):
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == db.BUSY_TIMEOUT_MS == 15_000
    assert conn.isolation_level is None


def test_foreign_keys_are_enforced(conn):
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO record_entities (record_id, entity_id) VALUES ('nope', 'nope')")


def test_private_permissions(path, conn):
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_default_path_is_under_agentctx_home(isolated_home):
    conn = db.connect(create=True)
    conn.close()
    assert (isolated_home / ".agentctx" / "agentctx.db").exists()
    assert paths.db_path() == isolated_home / ".agentctx" / "agentctx.db"


def test_missing_database_is_not_created_without_create(path):
    with pytest.raises(NotFoundError) as info:
        db.connect(path)
    assert info.value.code == "db_missing"
    assert info.value.exit_code == 66
    assert "agentctx init" in str(info.value)
    assert not path.exists()


def test_newer_schema_is_refused(path, conn):
    conn.execute(f"PRAGMA user_version={migrations.LATEST + 1}")
    conn.close()
    with pytest.raises(StoreError) as info:
        db.connect(path)
    assert info.value.code == "db_newer"
    assert "upgrade agentctx" in str(info.value)


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_corrupt_file_gives_store_error_naming_doctor(path, content):
    paths.ensure_private_dir(path.parent)
    path.write_bytes(content)
    with pytest.raises(StoreError) as info:
        db.connect(path)
    assert info.value.code == "db_corrupt"
    assert "agentctx doctor" in str(info.value)
    assert str(path) in str(info.value)


@pytest.fixture
def short_timeout(monkeypatch):
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 100)


def _hold_exclusive(path, *, exclusive_mode):
    holder = sqlite3.connect(str(path), isolation_level=None, timeout=1)
    if exclusive_mode:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO sessions (session_id) VALUES ('holder')")
    return holder


def test_locked_database_on_open_gives_db_locked(path, conn, short_timeout):
    conn.close()
    holder = _hold_exclusive(path, exclusive_mode=True)  # even readers are shut out
    try:
        with pytest.raises(StoreError) as info:
            db.connect(path)
        assert info.value.code == "db_locked"
        assert "agentctx doctor" in str(info.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_locked_database_on_write_gives_db_locked_and_writes_nothing(path, conn, short_timeout):
    conn.execute("PRAGMA busy_timeout=100")
    holder = _hold_exclusive(path, exclusive_mode=False)  # WAL: readers go on, writers wait
    try:
        with pytest.raises(StoreError) as info:
            records.insert(conn, NewRecord("decision", "Blocked", "body", "P"))
        assert info.value.code == "db_locked"
        assert str(path) in str(info.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0
    assert not conn.in_transaction


def test_atomic_rolls_back_on_error(conn):
    with pytest.raises(RuntimeError):
        with db.atomic(conn):
            conn.execute("INSERT INTO sessions (session_id) VALUES ('s1')")
            raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    assert not conn.in_transaction


def test_nested_atomic_uses_a_savepoint(conn):
    with db.atomic(conn):
        conn.execute("INSERT INTO sessions (session_id) VALUES ('outer')")
        with pytest.raises(RuntimeError):
            with db.atomic(conn):
                conn.execute("INSERT INTO sessions (session_id) VALUES ('inner')")
                raise RuntimeError("inner fails")
    ids = [r[0] for r in conn.execute("SELECT session_id FROM sessions")]
    assert ids == ["outer"]


def test_translate_maps_lock_and_other_errors():
    assert db.translate(sqlite3.OperationalError("database is locked"), "/x").code == "db_locked"
    assert db.translate(sqlite3.OperationalError("database table is busy"), "/x").code == "db_locked"
    assert db.translate(sqlite3.DatabaseError("file is not a database"), "/x").code == "db_corrupt"


def test_fts5_probe(conn):
    assert migrations.fts5_available(conn)
