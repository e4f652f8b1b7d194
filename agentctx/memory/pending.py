"""The pending ledger: rows the hooks appended to a file instead of the store (ledger rows, session starts and ends,
writes deferred past a hook's budget), drained into the store by consolidation, `status` and `why`."""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable

from ..store import db, sessions
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write


def _snapshot(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    from . import snapshot

    snapshot.save(conn, str(row["project_id"]), row.get("session_id") or None, str(row["body"]), str(row["title"]))


def _capture(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    from .capture import Observation, store

    fields = ("kind", "command", "detail", "outcome", "path", "subject")  # rows queued before `subject`: ""
    observations = [Observation(**{k: str(o.get(k) or "") for k in fields}) for o in row["observations"]
                    if isinstance(o, dict) and o.get("kind")]
    store(conn, str(row["project_id"]), row.get("session_id") or "", observations)


def _session_end(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    at = row.get("ended_at") if isinstance(row.get("ended_at"), str) else None
    sessions.end(conn, str(row["session_id"]), str(row["project_id"]), at=at, agent=_agent(row))


# The `write` field of a deferred row -> what applies it (inside the drain's transaction).
REPLAY: dict[str, Callable[[sqlite3.Connection, dict[str, Any]], None]] = {
    "snapshot": _snapshot,
    "capture": _capture,
    "session_end": _session_end,
}


def replay(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    """Apply one deferred write; KeyError for a kind this version does not know (the drain skips the row)."""
    REPLAY[row["write"]](conn, row)


# A claimed ledger file whose drain is older than this is adopted even if its pid is alive (pid reuse); a drain
# runs inside consolidation, whose lifetime (spawn.LIFETIME_S) is far shorter.
CLAIM_STALE_S = 900.0


def drain_pending(conn: sqlite3.Connection) -> int:
    """Move the rows the hooks appended to the pending file (`hooks.record_pending`) into the store: ledger rows,
    session starts and ends, and writes a hook had to defer (`agentctx.memory.pending`). Returns the rows moved.

    The file is renamed first, so rows appended meanwhile wait for the next drain. Every row moves in one
    transaction: a drain that fails (locked, disk full) puts every row back, and the claimed file of a drain that
    was killed is adopted by the next one. A row that cannot be applied (malformed) is skipped."""
    import os

    from ..base import paths

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
        with db.atomic(conn):
            done = sum(1 for line in lines if _apply(conn, line))
    except BaseException:
        if _put_back(path, lines):
            _unlink(claimed)
        raise
    _unlink(claimed)
    return done


def _apply(conn: sqlite3.Connection, line: str) -> bool:
    """One pending row into the store, in a savepoint of its own; False for a row that cannot be applied."""
    from ..base.errors import AgentctxError, StoreError
    from ..store import records

    try:
        row = json.loads(line)
        if not isinstance(row, dict):
            return False
        sid = row.get("session_id") or None
        at = row.get("at") if isinstance(row.get("at"), str) else None  # the hook's time, kept
        with db.atomic(conn):
            if row.get("write"):
                replay(conn, row)
            elif isinstance(row.get("outcomes"), dict):  # what an action did after records were delivered for it
                _outcomes(conn, row, sid, at)
            elif row.get("mark") and row.get("event") in MARKS:  # a retry after a one-time stop, an arrival check
                ids = [i for i in row.get("record_ids") or () if isinstance(i, str)]
                sessions.log_injection(conn, session_id=sid, project_id=row["project_id"], event=row["event"],
                                       prompt_hash=row.get("prompt_hash") or None, record_ids=ids, scores=[],
                                       tokens=0, created_at=at, agent=_agent(row))
            elif row.get("tokens"):
                ids = [i for i in row.get("record_ids") or () if isinstance(i, str)]
                sessions.log_injection(conn, session_id=sid, project_id=row["project_id"], event=row["event"],
                              prompt_hash=row.get("prompt_hash"), record_ids=ids,
                              scores=[float(x) for x in row.get("scores") or ()], tokens=int(row["tokens"]),
                              created_at=at, agent=_agent(row))
                records.touch(conn, ids)  # injected records count as read (derived access statistics)
                stopped = [i for i in row.get("guards") or () if isinstance(i, str) and i in ids]
                if stopped:  # the guards that asked or denied before this action (SPEC §4.11)
                    sessions.log_injection(conn, session_id=sid, project_id=row["project_id"],
                                           event="PreToolUse/guard", prompt_hash=row.get("prompt_hash"),
                                           record_ids=stopped, scores=[], tokens=0, created_at=at, agent=_agent(row))
                firsts = [i for i in row.get("stops") or () if isinstance(i, str) and i in ids]
                if firsts:  # records marked "before" that stopped this call once (SPEC §4.11)
                    sessions.log_injection(conn, session_id=sid, project_id=row["project_id"],
                                           event="PreToolUse/stop", prompt_hash=row.get("prompt_hash"),
                                           record_ids=firsts, scores=[], tokens=0, created_at=at, agent=_agent(row))
            elif sid:
                sessions.touch(conn, sid, row["project_id"], at, agent=_agent(row))
            if sid and isinstance(row.get("prompt"), str):
                sessions.log_prompt(conn, session_id=sid, project_id=row["project_id"],
                                    prompt_hash=row.get("prompt_hash"), text=kept_prompt(row["prompt"]),
                                    chars=int(row.get("prompt_chars") or len(row["prompt"])), created_at=at)
        return True
    except StoreError:
        raise  # the store itself failed: the whole drain is put back
    except (ValueError, KeyError, TypeError, AttributeError, AgentctxError):
        return False


OUTCOMES = ("acted", "followed", "ignored", "fetched")
# Zero-token ledger rows a hook or the arrival check writes as they are: the retry of a call stopped once, and
# whether a delivery was found in the agent's transcript (SPEC §4.11).
MARKS = ("PreToolUse/retry", "PreToolUse/arrived", "PreToolUse/not_found")


def _outcomes(conn: sqlite3.Connection, row: dict[str, Any], sid: str | None, at: str | None) -> None:
    """One ledger row per outcome (`PostToolUse/acted`, `/followed`, `/ignored`, `/fetched`), no tokens: the
    records an action-time delivery concerned, keyed to it by `prompt_hash` (the action's key)."""
    by: dict[str, list[str]] = {}
    for rid, outcome in row["outcomes"].items():
        if isinstance(rid, str) and outcome in OUTCOMES:
            by.setdefault(outcome, []).append(rid)
    for outcome, ids in by.items():
        sessions.log_injection(conn, session_id=sid, project_id=row["project_id"], event=f"PostToolUse/{outcome}",
                               prompt_hash=row.get("prompt_hash") or None, record_ids=ids, scores=[], tokens=0,
                               created_at=at, agent=_agent(row))


def kept_prompt(prompt: str) -> str:
    """What the store keeps of a prompt: `<private>` spans out and secrets masked (the hook, which must stay lean,
    wrote it as the user typed it, with private spans already removed), then clipped by `sessions.log_prompt`."""
    from ..base.redact import scrub_text
    from ..extract.transcript import strip_private

    return scrub_text(strip_private(prompt)).strip()


def _agent(row: dict[str, Any]) -> str | None:
    """The agent a hook's row names (rows written before agents were recorded name none)."""
    agent = row.get("agent")
    return agent if isinstance(agent, str) and agent else None


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
