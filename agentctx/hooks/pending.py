"""Ledger rows a hook could not afford to write (SessionStart opens no database): appended to a file, drained later."""

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path


def _path() -> "Path":
    from pathlib import Path

    return Path(_file())


def _file() -> str:
    from .. import paths

    return os.path.join(paths.state_dir_str(), "pending-ledger.jsonl")


def append(entry: dict[str, object]) -> None:
    """Add one row; O_APPEND writes of one short line do not interleave between processes."""
    from ..ids import now_iso

    entry.setdefault("at", now_iso())
    path = _file()  # no pathlib: the hooks' hot path
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def drain(conn: "sqlite3.Connection") -> int:
    """Move pending rows into the ledger; the file is renamed first so rows appended meanwhile are kept."""
    path = _path()
    if not path.exists():
        return 0
    claimed = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        os.replace(path, claimed)
        lines = claimed.read_text(encoding="utf-8").splitlines()
    except OSError:
        return 0
    from ..store import records, sessions

    done = 0
    for line in lines:
        try:
            row = json.loads(line)
            sid = row.get("session_id") or None
            if row.get("tokens"):
                ids = [i for i in row.get("record_ids") or () if isinstance(i, str)]
                sessions.log_injection(conn, session_id=sid, project_id=row["project_id"], event=row["event"],
                                       prompt_hash=row.get("prompt_hash"), record_ids=ids,
                                       scores=[float(x) for x in row.get("scores") or ()], tokens=int(row["tokens"]),
                                       created_at=row.get("at") if isinstance(row.get("at"), str) else None)
                records.touch(conn, ids)  # injected records count as read (derived access statistics)
            elif sid:
                sessions.touch(conn, sid, row["project_id"])
            done += 1
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    claimed.unlink(missing_ok=True)
    return done
