"""Whether a record can be trusted now: its code fingerprints, and its marks (unverified, waiting for review, expired,
merged), with the SQL of verification, expiry, restoring and near-duplicate merging (SPEC §3.9)."""

import sqlite3
from collections.abc import Iterable

from ..base.ids import now_iso
from ..base.models import Record
from . import COLUMNS, CURRENT, VISIBLE, lines, to_record
from .db import atomic

MARK_KINDS = ("unverified", "review", "expired", "merged")
# Confidences that may expire unused: what nobody typed, confirmed or shared (SPEC §3.9).
EXPIRING = ("inferred", "reinforced")


def flag(reason: str) -> str:
    """What follows an unverified record's title wherever it is shown: " (code changed since: a.py, b.py)" (the
    reason is "path: what; path: what", verify.py)."""
    paths = [part.split(": ", 1)[0] for part in reason.split("; ") if part]
    return f" (code changed since: {', '.join(paths)})" if paths else " (code changed since it was recorded)"


def _marks(n: int) -> str:
    return ",".join("?" * n)


# ---- marks ----

def marks_for(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """{record id: {kind: reason}} for the ids that carry any mark (one indexed query; the prompt hook asks it)."""
    id_list = list(dict.fromkeys(ids))
    out: dict[str, dict[str, str]] = {}
    for start in range(0, len(id_list), 500):
        chunk = id_list[start:start + 500]
        for rid, kind, reason in conn.execute(
                f"SELECT record_id, kind, reason FROM record_marks WHERE record_id IN ({_marks(len(chunk))})", chunk):
            out.setdefault(rid, {})[kind] = reason
    return out


def marks_detail(conn: sqlite3.Connection, record_id: str) -> dict[str, dict[str, str]]:
    """{kind: {"reason", "at"}} of one record (the dashboard's record view)."""
    return {kind: {"reason": reason, "at": at} for kind, reason, at in conn.execute(
        "SELECT kind, reason, at FROM record_marks WHERE record_id = ?", (record_id,))}


def set_mark(conn: sqlite3.Connection, record_id: str, kind: str, reason: str, *, at: str | None = None) -> None:
    with atomic(conn):
        conn.execute("INSERT OR REPLACE INTO record_marks (record_id, kind, reason, at) VALUES (?, ?, ?, ?)",
                     (record_id, kind, reason, at or now_iso()))


def clear_mark(conn: sqlite3.Connection, record_id: str, kind: str) -> bool:
    with atomic(conn):
        return conn.execute("DELETE FROM record_marks WHERE record_id = ? AND kind = ?",
                            (record_id, kind)).rowcount > 0


def marked(conn: sqlite3.Connection, project_id: str, kind: str, *, current: bool | None = True,
           limit: int = 1000) -> list[tuple[Record, str, str]]:
    """(record, reason, when) of the project's records with a `kind` mark, newest mark first; `current`: only
    current records (True), only retired ones (False), or both (None)."""
    where = {True: f"AND r.{CURRENT}", False: "AND r.superseded_at IS NOT NULL", None: ""}[current]
    cols = ", ".join(f"r.{c.strip()}" for c in COLUMNS.split(","))
    rows = conn.execute(
        f"SELECT {cols}, m.reason, m.at FROM record_marks m JOIN records r ON r.id = m.record_id "
        f"WHERE m.kind = ? AND (r.project_id = ? OR (r.project_id = '_global' AND r.scope = 'global')) {where} "
        "ORDER BY m.at DESC LIMIT ?", (kind, project_id, limit))
    return [(to_record(row), row[-2], row[-1]) for row in rows]


def count_marked(conn: sqlite3.Connection, project_id: str) -> dict[str, int]:
    """Marks of the project's records by kind (unverified and review: current records; expired: retired ones)."""
    out = {}
    for kind, cur in (("unverified", True), ("review", True), ("expired", False)):
        where = f"r.{CURRENT}" if cur else "r.superseded_at IS NOT NULL AND r.superseded_by IS NULL"
        out[kind] = conn.execute(
            f"SELECT count(*) FROM record_marks m JOIN records r ON r.id = m.record_id WHERE m.kind = ? "
            f"AND r.project_id = ? AND {where}", (kind, project_id)).fetchone()[0]
    return out


# ---- fingerprints ----

def unfingerprinted(conn: sqlite3.Connection, project_id: str) -> list[Record]:
    """The project's current records with no fingerprint yet (consolidation looks for the files each one names). Not
    profiles (what the repository is) nor handovers (a moment's working state: the files they list change by design)."""
    return [to_record(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND {CURRENT} AND type NOT IN ('profile', 'handover') "
        "AND NOT EXISTS (SELECT 1 FROM code_fingerprints f WHERE f.record_id = records.id)", (project_id,))]


def save_fingerprints(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str, str, str, str, str]]) -> int:
    """(record_id, path, blob, sketch, lines, symbol, commit) rows, replacing a record's row for the same path."""
    now = now_iso()
    data = [(*row, now) for row in rows]
    with atomic(conn):
        conn.executemany("INSERT OR REPLACE INTO code_fingerprints (record_id, path, blob, sketch, lines, symbol, "
                         "commit_id, made_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", data)
    return len(data)


def fingerprints(conn: sqlite3.Connection, project_id: str,
                 record_ids: Iterable[str] | None = None) -> list[tuple[str, str, str, str, str, str, str]]:
    """(record_id, path, blob, sketch, lines, symbol, commit) of the project's current records (or of `record_ids`)."""
    sql = ("SELECT f.record_id, f.path, f.blob, f.sketch, f.lines, f.symbol, f.commit_id FROM code_fingerprints f "
           f"JOIN records r ON r.id = f.record_id WHERE r.project_id = ? AND r.{CURRENT}")
    if record_ids is None:
        return list(conn.execute(sql + " ORDER BY f.record_id, f.path", (project_id,)))
    ids = list(record_ids)
    if not ids:
        return []
    return list(conn.execute(sql + f" AND f.record_id IN ({_marks(len(ids))})", (project_id, *ids)))


def drop_fingerprints(conn: sqlite3.Connection, record_id: str) -> None:
    with atomic(conn):
        conn.execute("DELETE FROM code_fingerprints WHERE record_id = ?", (record_id,))


def follow_rename(conn: sqlite3.Connection, record: Record, old: str, new: str) -> None:
    """The record's code moved from `old` to `new`: its fingerprint and its `path:` anchor follow (in place, index
    data: no new version; SPEC §3.1)."""
    anchors = tuple(f"path:{new}" if a in (f"path:{old}", old) else a for a in record.anchors)
    with atomic(conn):
        conn.execute("UPDATE OR REPLACE code_fingerprints SET path = ? WHERE record_id = ? AND path = ?",
                     (new, record.id, old))
        if anchors != record.anchors:
            conn.execute("UPDATE records SET anchors = ? WHERE id = ?", (lines(anchors), record.id))


# ---- expiry ----

def expiry_candidates(conn: sqlite3.Connection, project_id: str, before: str) -> list[tuple[Record, str]]:
    """(record, last use) of the project's current inferred or reinforced records, not pinned, not waiting for
    review, whose last use (written, injected, searched, fetched: `last_accessed`) is before `before`."""
    sql = (f"SELECT {COLUMNS}, max(recorded_at, coalesce(last_accessed, '')) AS used FROM records "
           f"WHERE project_id = ? AND {CURRENT} AND pinned = 0 AND confidence IN ({_marks(len(EXPIRING))}) "
           "AND recorded_at < ? AND coalesce(last_accessed, '') < ? "
           "AND NOT EXISTS (SELECT 1 FROM record_marks m WHERE m.record_id = records.id AND m.kind = 'review') "
           "ORDER BY used")
    return [(to_record(r), r[-1]) for r in conn.execute(sql, (project_id, *EXPIRING, before, before))]


def expire(conn: sqlite3.Connection, record: Record, reason: str) -> bool:
    """Retire `record` as unused (no successor; SPEC §3.5 `retire`) with an `expired` mark saying why; False when a
    write or use got there first (it is no longer current, or it was just used)."""
    now = now_iso()
    with atomic(conn):
        done = conn.execute(
            "UPDATE records SET superseded_at = ? WHERE id = ? AND superseded_at IS NULL AND pinned = 0 "
            "AND coalesce(last_accessed, '') IS ?", (now, record.id, record.last_accessed or "")).rowcount
        if done:
            conn.execute("INSERT OR REPLACE INTO record_marks (record_id, kind, reason, at) VALUES (?, 'expired', ?, ?)",
                         (record.id, reason, now))
    return bool(done)


def restore(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    """Bring back a record that expired (or was retired with no successor): current again, its use time now, so the
    next consolidation does not retire it at once. A superseded record (it has a successor) is refused."""
    from ..base.errors import ConflictError, NotFoundError
    from .records import head

    row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE id = ? AND {VISIBLE}",
                       (record_id, project_id)).fetchone()
    if row is None:
        raise NotFoundError("record_not_found", id=record_id)
    record = to_record(row)
    if record.superseded_by:
        raise ConflictError("already_superseded", id=record.id, superseded_by=record.superseded_by,
                            head=head(conn, record).id)
    now = now_iso()
    with atomic(conn):
        conn.execute("UPDATE records SET superseded_at = NULL, last_accessed = ? WHERE id = ?", (now, record.id))
        conn.execute("DELETE FROM record_marks WHERE record_id = ? AND kind = 'expired'", (record.id,))
    from .records import _changed

    _changed(conn, record.project_id)
    return record.replace(superseded_at=None, last_accessed=now)


# ---- near-duplicates ----

def current_of_types(conn: sqlite3.Connection, project_id: str, types: Iterable[str]) -> list[Record]:
    type_list = list(types)
    return [to_record(r) for r in conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND {CURRENT} AND type IN ({_marks(len(type_list))}) "
        "ORDER BY recorded_at, id", (project_id, *type_list))]


def merge(conn: sqlite3.Connection, keep: Record, dup: Record, reason: str) -> bool:
    """Fold the near-duplicate `dup` into `keep` by supersession (`dup` superseded by `keep`, an edge and a `merged`
    mark saying why; both chains stay in history), `keep` gaining `dup`'s anchors and counting a sighting when the
    two came from different sessions. False when `dup` is no longer current, or is a guard: only the user lifts a
    guard (SPEC §4.11), and a guarded `keep` keeps its anchors (its guard's scope)."""
    if dup.guard:
        return False
    now = now_iso()
    anchors = keep.anchors if keep.guard else tuple(dict.fromkeys(keep.anchors + dup.anchors))[:24]
    with atomic(conn):
        done = conn.execute("UPDATE records SET superseded_at = ?, superseded_by = ? WHERE id = ? "
                            "AND superseded_at IS NULL", (now, keep.id, dup.id)).rowcount
        if not done:
            return False
        from ..base.ids import ulid

        conn.execute("INSERT OR IGNORE INTO edges (id, from_id, to_id, rel_type) VALUES (?, ?, ?, 'supersedes')",
                     (ulid(), keep.id, dup.id))
        conn.execute("INSERT OR REPLACE INTO record_marks (record_id, kind, reason, at) VALUES (?, 'merged', ?, ?)",
                     (dup.id, reason, now))
        if anchors != keep.anchors:
            conn.execute("UPDATE records SET anchors = ? WHERE id = ?", (lines(anchors), keep.id))
        if dup.session_id != keep.session_id:
            conn.execute("UPDATE records SET reinforce_count = reinforce_count + 1 WHERE id = ?", (keep.id,))
    from .records import _changed

    _changed(conn, dup.project_id)
    return True
