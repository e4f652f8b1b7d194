"""Sessions and the injection ledger: what was injected into which session, why, and at what cost."""

from __future__ import annotations

import json
import sqlite3
from collections import namedtuple
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

from ..db import atomic
from ..ids import now_iso


# One ledger row (a named tuple: this module is on the hooks' import path, where dataclasses cost ~8 ms).
Injection = namedtuple("Injection", "session_id event prompt_hash record_ids scores tokens created_at")


def touch(conn: sqlite3.Connection, session_id: str, project_id: str, at: str | None = None) -> None:
    """Make sure the session exists (first sight sets started_at)."""
    with atomic(conn):
        conn.execute(
            "INSERT INTO sessions (session_id, project_id, started_at) VALUES (?, ?, ?) "
            "ON CONFLICT(session_id) DO NOTHING",
            (session_id, project_id, at or now_iso()),
        )


def end(conn: sqlite3.Connection, session_id: str, project_id: str, at: str | None = None) -> None:
    """Set ended_at: now (SessionEnd), or `at`, the last activity of a session closed later (open_sessions)."""
    at = at or now_iso()
    with atomic(conn):
        touch(conn, session_id, project_id, at)
        conn.execute("UPDATE sessions SET ended_at = ? WHERE session_id = ?", (at, session_id))


def add_cost(conn: sqlite3.Connection, session_id: str, project_id: str, usd: float) -> None:
    with atomic(conn):
        touch(conn, session_id, project_id)
        conn.execute("UPDATE sessions SET extraction_cost_usd = extraction_cost_usd + ? WHERE session_id = ?",
                     (usd, session_id))


def log_injection(conn: sqlite3.Connection, *, session_id: str | None, project_id: str, event: str,
                  prompt_hash: str | None, record_ids: Sequence[str], scores: Sequence[float], tokens: int,
                  created_at: str | None = None) -> None:
    """Write a ledger row and add its tokens to the session, in one transaction."""
    with atomic(conn):
        conn.execute(
            "INSERT INTO injections (session_id, project_id, event, prompt_hash, record_ids, scores, tokens, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, project_id, event, prompt_hash, json.dumps(list(record_ids)),
             json.dumps([round(s, 4) for s in scores]), tokens, created_at or now_iso()),
        )
        if session_id:
            touch(conn, session_id, project_id)
            conn.execute("UPDATE sessions SET tokens_injected = tokens_injected + ? WHERE session_id = ?",
                         (tokens, session_id))


def injections(conn: sqlite3.Connection, project_id: str, *, session_id: str | None = None,
               limit: int = 50) -> list[Injection]:
    """Ledger rows of the project (optionally one session), newest first."""
    sql = "SELECT session_id, event, prompt_hash, record_ids, scores, tokens, created_at FROM injections WHERE project_id = ?"
    args: list[object] = [project_id]
    if session_id:
        sql += " AND session_id = ?"
        args.append(session_id)
    sql += " ORDER BY id DESC LIMIT ?"
    args.append(limit)
    return [
        Injection(sid, event, ph, tuple(json.loads(ids)), tuple(json.loads(sc)), tokens, created)
        for sid, event, ph, ids, sc, tokens, created in conn.execute(sql, args)
    ]


def latest_session(conn: sqlite3.Connection, project_id: str) -> str | None:
    row = conn.execute("SELECT session_id FROM sessions WHERE project_id = ? ORDER BY started_at DESC LIMIT 1",
                       (project_id,)).fetchone()
    return row[0] if row else None


def stats(conn: sqlite3.Connection, project_id: str) -> dict[str, object]:
    """Sessions, tokens injected, extraction cost and last activity for one project."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(tokens_injected), 0), coalesce(sum(extraction_cost_usd), 0), "
        "max(coalesce(ended_at, started_at)) FROM sessions WHERE project_id = ?",
        (project_id,),
    ).fetchone()
    injected = conn.execute("SELECT count(*) FROM injections WHERE project_id = ?", (project_id,)).fetchone()[0]
    return {"sessions": row[0], "tokens_injected": row[1], "extraction_cost_usd": round(float(row[2]), 6),
            "last_session_at": row[3], "injections": injected}


# A claimed ledger file whose drain is older than this is adopted even if its pid is alive (pid reuse); a drain
# runs inside consolidation, whose lifetime (spawn.LIFETIME_S) is far shorter.
CLAIM_STALE_S = 900.0


def drain_pending(conn: sqlite3.Connection) -> int:
    """Move the rows the hooks appended to the pending file (`hooks.record_pending`) into the store: ledger rows,
    session starts and ends, and writes a hook had to defer (`agentctx.pending`). Returns the rows moved.

    The file is renamed first, so rows appended meanwhile wait for the next drain. Every row moves in one
    transaction: a drain that fails (locked, disk full) puts every row back, and the claimed file of a drain that
    was killed is adopted by the next one. A row that cannot be applied (malformed) is skipped."""
    import os

    from .. import paths

    path = paths.pending_ledger_file()
    claimed = _adopt_orphans(path)
    mine = f"{path}.{os.getpid()}"
    try:
        os.replace(path, mine)
        claimed.append(mine)
    except OSError:  # nothing pending
        pass
    lines: list[str] = []
    for name in claimed:
        try:
            with open(name, encoding="utf-8", errors="replace") as fh:
                lines.extend(fh.read().splitlines())
        except OSError:
            continue
    if not claimed:
        return 0
    try:
        with atomic(conn):
            done = sum(1 for line in lines if _apply(conn, line))
    except BaseException:
        if _put_back(path, lines):
            _unlink(claimed)
        raise
    _unlink(claimed)
    return done


def _apply(conn: sqlite3.Connection, line: str) -> bool:
    """One pending row into the store, in a savepoint of its own; False for a row that cannot be applied."""
    from ..errors import AgentctxError, StoreError
    from . import records

    try:
        row = json.loads(line)
        if not isinstance(row, dict):
            return False
        sid = row.get("session_id") or None
        with atomic(conn):
            if row.get("write"):
                from ..pending import replay

                replay(conn, row)
            elif row.get("tokens"):
                ids = [i for i in row.get("record_ids") or () if isinstance(i, str)]
                log_injection(conn, session_id=sid, project_id=row["project_id"], event=row["event"],
                              prompt_hash=row.get("prompt_hash"), record_ids=ids,
                              scores=[float(x) for x in row.get("scores") or ()], tokens=int(row["tokens"]),
                              created_at=row.get("at") if isinstance(row.get("at"), str) else None)
                records.touch(conn, ids)  # injected records count as read (derived access statistics)
            elif sid:
                touch(conn, sid, row["project_id"])
        return True
    except StoreError:
        raise  # the store itself failed: the whole drain is put back
    except (ValueError, KeyError, TypeError, AttributeError, AgentctxError):
        return False


def _adopt_orphans(path: str) -> list[str]:
    """Claimed files of drains that died (kill -9, a lifetime that ran out), renamed to this process's name."""
    import os
    import time

    directory, base = os.path.split(path)
    adopted: list[str] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return adopted
    me = os.getpid()
    for name in names:
        suffix = name[len(base) + 1:] if name.startswith(base + ".") else ""
        if not suffix.isdigit() or int(suffix) == me:
            continue
        full = os.path.join(directory, name)
        try:
            stale = time.time() - os.stat(full).st_mtime > CLAIM_STALE_S
        except OSError:
            continue
        if not stale and _alive(int(suffix)):
            continue
        target = f"{path}.{me}.{len(adopted)}"
        try:
            os.replace(full, target)  # atomic: of two drains adopting together, one wins
        except OSError:
            continue
        adopted.append(target)
    return adopted


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, not ours
        return True
    return True


def _put_back(path: str, lines: list[str]) -> bool:
    """Return the rows of a failed drain to the pending file (one appended write)."""
    import os

    if not lines:
        return True
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, ("\n".join(lines) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def _unlink(names: list[str]) -> None:
    import os

    for name in names:
        try:
            os.unlink(name)
        except OSError:
            pass
