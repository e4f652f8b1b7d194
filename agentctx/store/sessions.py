"""Sessions and the injection ledger: what was injected into which session, why, and at what cost."""

from __future__ import annotations

import json
import sqlite3
from collections import namedtuple
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

from ..base.ids import now_iso
from .db import atomic


# One ledger row (a named tuple: this module is on the hooks' import path, where dataclasses cost ~8 ms).
Injection = namedtuple("Injection", "session_id event prompt_hash record_ids scores tokens created_at")


def touch(conn: sqlite3.Connection, session_id: str, project_id: str, at: str | None = None,
          agent: str | None = None) -> None:
    """Make sure the session exists (first sight sets started_at); the first row that names its agent sets that."""
    with atomic(conn):
        conn.execute(
            "INSERT INTO sessions (session_id, project_id, started_at, agent) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(session_id) DO UPDATE SET agent = coalesce(sessions.agent, excluded.agent)",
            (session_id, project_id, at or now_iso(), agent),
        )


def agents_of(conn: sqlite3.Connection, session_ids: "Sequence[str | None]") -> dict[str, str]:
    """Session id -> the agent it ran in (claude, codex, gemini), for the sessions that say."""
    wanted = sorted({s for s in session_ids if s})
    out: dict[str, str] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        out.update(conn.execute(f"SELECT session_id, agent FROM sessions WHERE agent IS NOT NULL AND session_id IN "
                                f"({','.join('?' * len(chunk))})", chunk).fetchall())
    return out


def by_agent(conn: sqlite3.Connection, project_id: str) -> dict[str, int]:
    """Sessions of the project per agent (`unknown`: none of its rows said)."""
    return {agent or "unknown": n for agent, n in conn.execute(
        "SELECT agent, count(*) FROM sessions WHERE project_id = ? GROUP BY agent ORDER BY count(*) DESC",
        (project_id,))}


def end(conn: sqlite3.Connection, session_id: str, project_id: str, at: str | None = None,
        agent: str | None = None) -> None:
    """Set ended_at: now (SessionEnd), or `at`, the last activity of a session closed later (open_sessions)."""
    at = at or now_iso()
    with atomic(conn):
        touch(conn, session_id, project_id, at, agent)
        conn.execute("UPDATE sessions SET ended_at = ? WHERE session_id = ?", (at, session_id))


def add_cost(conn: sqlite3.Connection, session_id: str, project_id: str, usd: float) -> None:
    with atomic(conn):
        touch(conn, session_id, project_id)
        conn.execute("UPDATE sessions SET extraction_cost_usd = extraction_cost_usd + ? WHERE session_id = ?",
                     (usd, session_id))


def log_injection(conn: sqlite3.Connection, *, session_id: str | None, project_id: str, event: str,
                  prompt_hash: str | None, record_ids: Sequence[str], scores: Sequence[float], tokens: int,
                  created_at: str | None = None, agent: str | None = None) -> None:
    """Write a ledger row and add its tokens to the session, in one transaction. A session first seen here starts at
    `created_at`: the hook's time, not the drain's (rows reach the store later, through the pending ledger)."""
    created_at = created_at or now_iso()
    with atomic(conn):
        conn.execute(
            "INSERT INTO injections (session_id, project_id, event, prompt_hash, record_ids, scores, tokens, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, project_id, event, prompt_hash, json.dumps(list(record_ids)),
             json.dumps([round(s, 4) for s in scores]), tokens, created_at),
        )
        if session_id:
            touch(conn, session_id, project_id, created_at, agent=agent)
            conn.execute("UPDATE sessions SET tokens_injected = tokens_injected + ? WHERE session_id = ?",
                         (tokens, session_id))


# Characters of a prompt the store keeps: enough to recognise what was asked; a pasted log is cut ("…").
PROMPT_CHARS = 1000


def log_prompt(conn: sqlite3.Connection, *, session_id: str, project_id: str, prompt_hash: str | None, text: str,
               chars: int, created_at: str | None = None) -> None:
    """Keep what the user asked in a session (the dashboard shows it beside what was injected for it). `text` comes
    cleaned, secrets masked and `<private>` spans gone (`memory.pending`); `chars` is the whole prompt's length."""
    if len(text) > PROMPT_CHARS:
        text = text[: PROMPT_CHARS - 1] + "…"
    with atomic(conn):
        touch(conn, session_id, project_id, created_at)
        conn.execute("INSERT INTO prompts (session_id, project_id, prompt_hash, text, chars, created_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (session_id, project_id, prompt_hash, text, chars,
                                                   created_at or now_iso()))


def prompt_texts(conn: sqlite3.Connection, project_id: str,
                 keys: "list[tuple[object, object]]") -> "dict[tuple[str, str], str]":
    """(session id, prompt hash) -> the prompt's kept words (cleaned when drained), for the keys that have them."""
    wanted = {(s, h) for s, h in keys if isinstance(s, str) and isinstance(h, str)}
    if not wanted:
        return {}
    found: dict[tuple[str, str], str] = {}
    sids = sorted({s for s, _ in wanted})
    marks = ", ".join("?" * len(sids))
    for sid, digest, text in conn.execute(f"SELECT session_id, prompt_hash, text FROM prompts WHERE project_id = ? "
                                          f"AND session_id IN ({marks})", (project_id, *sids)):
        if (sid, digest) in wanted and text:
            found[(sid, digest)] = text
    return found


# Ledger rows that delivered something (SessionStart, UserPromptSubmit, PreToolUse); rows whose event has a `/`
# (`PreToolUse/guard`, `PostToolUse/followed`, ...) note what an action did with a delivery, with no tokens.
DELIVERED = "instr(event, '/') = 0"


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
    injected = conn.execute(f"SELECT count(*) FROM injections WHERE project_id = ? AND {DELIVERED}",
                            (project_id,)).fetchone()[0]
    return {"sessions": row[0], "tokens_injected": row[1], "extraction_cost_usd": round(float(row[2]), 6),
            "last_session_at": row[3], "injections": injected}


# Per-record counters of `record_uses` (SPEC §4.11): deliveries by where they happened, what the actions did after a
# delivery before them, and the record's share of the tokens of each delivery.
USE_KEYS = ("digests", "prompts", "actions", "stopped", "acted", "followed", "ignored", "fetched", "tokens")


def earned(uses: "dict[str, int]") -> "tuple[int, bool]":
    """(followed, used) of one record's counters: followed counts the guard stops no `ignored` followed (the action
    never ran); used is followed, acted on (an action ran with it delivered) or fetched (`ctx_get` after it was
    injected or delivered). A record only ever shown at SessionStart or at prompts is not known to be used."""
    followed = uses["followed"] + max(0, uses["stopped"] - uses["ignored"] - uses["followed"])
    return followed, bool(followed or uses["acted"] or uses["fetched"])


def record_uses(conn: sqlite3.Connection, project_id: str) -> dict[str, dict[str, int]]:
    """Record id -> its counters over the project's whole ledger: `digests` (SessionStart), `prompts` (prompt injections),
    `actions` (before a tool call), `stopped` (a guard asked or denied), `acted`/`followed`/`ignored`/`fetched`
    (what came after an action-time delivery) and `tokens` (each row's tokens shared among its records)."""
    out: dict[str, dict[str, float]] = {}
    for event, raw, tokens in conn.execute("SELECT event, record_ids, tokens FROM injections WHERE project_id = ?",
                                           (project_id,)):
        try:
            ids = [i for i in json.loads(raw) if isinstance(i, str)]
        except (ValueError, TypeError):
            continue
        key = ("digests" if event == "SessionStart" else "prompts" if event == "UserPromptSubmit"
               else "actions" if event == "PreToolUse"
               else "stopped" if event == "PreToolUse/guard" else event[len("PostToolUse/"):]
               if event.startswith("PostToolUse/") else "")
        for rid in ids:
            uses = out.setdefault(rid, dict.fromkeys(USE_KEYS, 0.0))
            if key in uses:
                uses[key] += 1
            if tokens and "/" not in event:
                uses["tokens"] += tokens / len(ids)
    return {rid: {k: int(round(v)) for k, v in uses.items()} for rid, uses in out.items()}
