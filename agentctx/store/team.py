"""Sync state of the team and profile files: which local record each file entry names, and what both last agreed on."""

import sqlite3

from ..base.ids import now_iso
from ..base.models import Record, record_type
from . import COLUMNS, to_record
from .db import atomic


class SyncRow(record_type("SyncRow", "key record_id file_hash store_hash removed")):
    """One entry's sync state: its key in the file, the local record it maps to, the content hashes the file and the
    store had at the last sync, and whether the last import found it gone from the file (a proposed retirement)."""

    __slots__ = ()


def rows(conn: sqlite3.Connection, namespace: str) -> dict[str, SyncRow]:
    """Every entry's sync state in one namespace (a project id, or `_global` for the profile), by key."""
    return {key: SyncRow(key, rid, fh, sh, bool(removed)) for key, rid, fh, sh, removed in conn.execute(
        "SELECT key, record_id, file_hash, store_hash, removed FROM team_sync WHERE project_id = ?", (namespace,))}


def versions(conn: sqlite3.Connection, namespace: str) -> dict[str, set[str]]:
    """Every content hash each key had at a sync (older copies of an entry are not edits)."""
    out: dict[str, set[str]] = {}
    for key, h in conn.execute("SELECT key, hash FROM team_versions WHERE project_id = ?", (namespace,)):
        out.setdefault(key, set()).add(h)
    return out


def save(conn: sqlite3.Connection, namespace: str, entries: "list[tuple[str, str | None, str, str]]") -> None:
    """Record (key, record_id, file_hash, store_hash) as agreed now; clears a removal proposal for those keys."""
    if not entries:
        return
    now = now_iso()
    with atomic(conn):
        conn.executemany(
            "INSERT INTO team_sync (project_id, key, record_id, file_hash, store_hash, removed, synced_at) "
            "VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT (project_id, key) DO UPDATE SET record_id = excluded.record_id, "
            "file_hash = excluded.file_hash, store_hash = excluded.store_hash, removed = 0, synced_at = excluded.synced_at",
            [(namespace, key, rid, fh, sh, now) for key, rid, fh, sh in entries])
        conn.executemany("INSERT OR IGNORE INTO team_versions (project_id, key, hash) VALUES (?, ?, ?)",
                         [(namespace, key, h) for key, _, fh, sh in entries for h in {fh, sh}])


def mark_removed(conn: sqlite3.Connection, namespace: str, keys: "list[str]") -> None:
    if not keys:
        return
    with atomic(conn):
        conn.executemany("UPDATE team_sync SET removed = 1 WHERE project_id = ? AND key = ?",
                         [(namespace, k) for k in keys])


def forget(conn: sqlite3.Connection, namespace: str, keys: "list[str]") -> None:
    """Drop the sync rows of `keys` (their records were retired, or left the store and the file together)."""
    if not keys:
        return
    with atomic(conn):
        conn.executemany("DELETE FROM team_sync WHERE project_id = ? AND key = ?", [(namespace, k) for k in keys])


def successors(conn: sqlite3.Connection, namespace: str) -> dict[str, str]:
    """id -> superseded_by for the namespace's superseded records (to follow a synced record to its head)."""
    return dict(conn.execute("SELECT id, superseded_by FROM records WHERE project_id = ? AND superseded_by IS NOT NULL",
                             (namespace,)).fetchall())


def by_ids(conn: sqlite3.Connection, ids: "list[str]") -> "dict[str, Record]":
    """The records with these ids that exist (any namespace: callers pass ids of their own sync rows)."""
    out: dict[str, Record] = {}
    for i in range(0, len(ids), 900):  # under SQLite's smallest limit on bound parameters
        chunk = ids[i:i + 900]
        out.update((row[0], to_record(row)) for row in conn.execute(
            f"SELECT {COLUMNS} FROM records WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return out


def set_rationale(conn: sqlite3.Connection, record_id: str, rationale: str) -> None:
    with atomic(conn):
        conn.execute("INSERT OR REPLACE INTO record_rationales (record_id, rationale) VALUES (?, ?)",
                     (record_id, rationale))


def rationales(conn: sqlite3.Connection, ids: "list[str]") -> dict[str, str]:
    if not ids:
        return {}
    return dict(conn.execute(
        f"SELECT record_id, rationale FROM record_rationales WHERE record_id IN ({','.join('?' * len(ids))})", ids))


def file_hash(conn: sqlite3.Connection, namespace: str, path: str) -> str | None:
    row = conn.execute("SELECT sha256 FROM team_files WHERE project_id = ? AND path = ?", (namespace, path)).fetchone()
    return row[0] if row else None


def save_file_hash(conn: sqlite3.Connection, namespace: str, path: str, sha: str) -> None:
    with atomic(conn):
        conn.execute(
            "INSERT INTO team_files (project_id, path, sha256, synced_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (project_id, path) DO UPDATE SET sha256 = excluded.sha256, synced_at = excluded.synced_at",
            (namespace, path, sha, now_iso()))
