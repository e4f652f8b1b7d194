"""Opening the database: private file, WAL, busy timeout, foreign keys, migrations; SQLite errors made readable."""

import os
import sqlite3
from datetime import datetime, timezone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Iterator

    from ..base.errors import StoreError

from ..base import paths

BUSY_TIMEOUT_MS = 15_000
# The schema version this code reads and writes: migrations.LATEST (a test keeps them equal). A constant here
# because the migrations module (every statement of every schema version) is only needed when a store is behind.
SCHEMA_VERSION = 20


def _create_private(path: str) -> None:
    paths.ensure_private_dir_str(os.path.dirname(path) or ".")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)


def translate(exc: sqlite3.Error, path: "Path | str") -> "StoreError":
    """Turn a raw SQLite error into a StoreError that says what happened and what to do: locked (by whom, when
    /proc/locks tells), read-only or permission denied, no space left, an I/O error; "damaged" only for
    corruption (SQLITE_CORRUPT, SQLITE_NOTADB), which `agentctx doctor` confirms with integrity_check."""
    from . import dbdiag as d
    from ..base.errors import StoreError  # errors are rare: the hooks do not load the module for the happy path

    path = os.fspath(path)
    detail = str(exc) or type(exc).__name__
    low = detail.lower()
    code = d.primary_code(exc)
    if code in (d.SQLITE_BUSY, d.SQLITE_LOCKED) or (code is None and ("locked" in low or "busy" in low)):
        return StoreError("db_locked", path=path, detail=detail, holder=d.lock_holder(path) or "another process")
    if code in (d.SQLITE_CORRUPT, d.SQLITE_NOTADB) or "malformed" in low or "not a database" in low:
        return StoreError("db_corrupt", path=path, detail=detail)
    free = d.free_bytes(path)
    if code == d.SQLITE_FULL or "disk is full" in low:
        return StoreError("db_full", path=path, detail=detail, free=d.human(free) if free is not None else "unknown")
    if code in (d.SQLITE_READONLY, d.SQLITE_CANTOPEN, d.SQLITE_IOERR) or "readonly" in low or "unable to open" in low \
            or "i/o error" in low:
        problem = d.unwritable(path)
        if problem:
            return StoreError("db_readonly", path=path, detail=detail, reason=problem[0], fix=problem[1])
        if code == d.SQLITE_IOERR or "i/o error" in low:
            if free is not None and free < d.LOW_SPACE_BYTES:  # a full disk often surfaces as an I/O error
                return StoreError("db_full", path=path, detail=detail, free=d.human(free))
            return StoreError("db_io", path=path, detail=detail)
        if code == d.SQLITE_CANTOPEN or "unable to open" in low:
            return StoreError("db_unopenable", path=path, detail=detail)
        return StoreError("db_readonly", path=path, detail=detail, reason="SQLite refused to write",
                          fix="check the file's permissions and owner")
    return StoreError("db_error", path=path, detail=detail)


def connect(path: "Path | str | None" = None, *, create: bool = False, migrate: bool = True,
            timeout: float | None = None) -> sqlite3.Connection:
    """Open (and with `create`, make) the store; raises NotFoundError or StoreError, never a raw sqlite3 error.

    `timeout` (seconds, default BUSY_TIMEOUT_MS) bounds every wait for a lock another process holds, on open and
    on each later statement: the hooks pass their own budget (hooks/budget.py)."""
    wait = BUSY_TIMEOUT_MS / 1000 if timeout is None else timeout
    path = os.fspath(path) if path else paths.db_file()
    if not os.path.exists(path):
        if not create:
            from ..base.errors import NotFoundError

            raise NotFoundError("db_missing", path=str(path))
        _create_private(path)
    conn: sqlite3.Connection | None = None
    try:
        # `timeout` is SQLite's busy timeout (sqlite3_busy_timeout): no PRAGMA needed.
        conn = sqlite3.connect(path, timeout=wait, isolation_level=None)
        conn.row_factory = sqlite3.Row
        _prepare(conn, path, migrate, wait)
        return conn
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        raise translate(exc, path) from None
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def _prepare(conn: sqlite3.Connection, path: str, migrate: bool, wait: float) -> None:
    """Check the schema version, switch to WAL, set per-connection pragmas, migrate if needed.

    Switching a fresh file to WAL and migrating need locks that SQLite refuses at once (no busy wait) when another
    process holds a read lock, to avoid deadlock; several processes creating the store together retry here.
    """
    import time

    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                from ..base.errors import StoreError

                raise StoreError("db_newer", path=str(path), found=version, known=SCHEMA_VERSION)
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            if version < SCHEMA_VERSION and migrate:
                apply_migrations(conn)
            return
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" not in text and "busy" not in text) or time.monotonic() > deadline:
                raise
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def apply_migrations(conn: sqlite3.Connection) -> list[int]:
    """Apply every migration not yet recorded, each in its own IMMEDIATE transaction; returns the versions applied."""
    from .migrations import MIGRATIONS

    applied: list[int] = []
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _agentctx_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    for migration in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the write lock: another process may have migrated while we waited.
            done = conn.execute(
                "SELECT 1 FROM _agentctx_migrations WHERE version = ?", (migration.version,)
            ).fetchone()
            if done is None:
                migration.apply(conn)
                conn.execute(
                    "INSERT INTO _agentctx_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, datetime.now(timezone.utc).isoformat()),
                )
                conn.execute(f"PRAGMA user_version={migration.version}")
                applied.append(migration.version)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return applied


class atomic:
    """A write transaction (BEGIN IMMEDIATE, so writers queue on the busy timeout), or a savepoint when nested.

    A class rather than @contextmanager: contextlib is one more import on every hook. A write that still finds
    the database locked after the busy timeout raises StoreError("db_locked").
    """

    __slots__ = ("conn", "savepoint")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.savepoint: str | None = None

    def __enter__(self) -> sqlite3.Connection:
        try:
            if self.conn.in_transaction:
                self.savepoint = f"sp_{id(self)}"
                self.conn.execute(f"SAVEPOINT {self.savepoint}")
            else:
                self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise translate(exc, _db_name(self.conn)) from None
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        conn, sp = self.conn, self.savepoint
        if exc_type is not None:
            if sp:
                conn.execute(f"ROLLBACK TO {sp}")
                conn.execute(f"RELEASE {sp}")
            elif conn.in_transaction:
                conn.execute("ROLLBACK")
            return
        try:
            conn.execute(f"RELEASE {sp}" if sp else "COMMIT")
        except sqlite3.OperationalError as exc:
            if not sp and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise translate(exc, _db_name(conn)) from None


def _db_name(conn: sqlite3.Connection) -> str:
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
        return str(row[2]) if row and row[2] else "(memory)"
    except sqlite3.Error:
        return "(unknown)"


def has_fts(conn: sqlite3.Connection) -> bool:
    """Whether the FTS index exists in this database."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records_fts'").fetchone()
    return row is not None
