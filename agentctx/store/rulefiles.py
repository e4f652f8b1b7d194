"""Sync state of the repository's rule files: which record each file became, and what the file was when read."""

import sqlite3

from ..base.ids import now_iso
from ..base.models import record_type
from .db import atomic


class RuleFileRow(record_type("RuleFileRow", "path record_id sha size mtime_ns format mode")):
    """One rule file as last read: its repository-relative path, the record it became (None when its format does not
    deliver it: a manual rule, a root file its own agent loads), the hash of its bytes, its size and mtime, its
    format and mode (outside/rulefmt.py)."""

    __slots__ = ()


def rows(conn: sqlite3.Connection, project_id: str) -> dict[str, RuleFileRow]:
    """Every rule file of a project read so far, by path."""
    return {r[0]: RuleFileRow(*r) for r in conn.execute(
        "SELECT path, record_id, sha, size, mtime_ns, format, mode FROM rule_files WHERE project_id = ? ORDER BY path",
        (project_id,))}


def save(conn: sqlite3.Connection, project_id: str, items: "list[RuleFileRow]") -> None:
    if not items:
        return
    now = now_iso()
    with atomic(conn):
        conn.executemany(
            "INSERT INTO rule_files (project_id, path, record_id, sha, size, mtime_ns, format, mode, synced_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, path) DO UPDATE SET "
            "record_id = excluded.record_id, sha = excluded.sha, size = excluded.size, mtime_ns = excluded.mtime_ns, "
            "format = excluded.format, mode = excluded.mode, synced_at = excluded.synced_at",
            [(project_id, r.path, r.record_id, r.sha, r.size, r.mtime_ns, r.format, r.mode, now) for r in items])


def forget(conn: sqlite3.Connection, project_id: str, paths: "list[str]") -> None:
    """Drop the rows of files that are gone (their records were retired first)."""
    if not paths:
        return
    with atomic(conn):
        conn.executemany("DELETE FROM rule_files WHERE project_id = ? AND path = ?", [(project_id, p) for p in paths])


def always_records(conn: sqlite3.Connection, project_id: str, limit: int = 200) -> list:
    """The project's current records of rule files that apply in every session (kept pinned, SPEC §4.12)."""
    from . import COLUMNS, to_record

    return [to_record(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND source = 'rule_file' AND pinned = 1 "
        "AND superseded_at IS NULL ORDER BY length(body), id LIMIT ?", (project_id, limit))]
