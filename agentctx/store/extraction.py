"""Extraction calls: one row per run that called a model (backend, calls, tokens, cost, outcome), per-hour and per-day
counts for the Claude Code backend's quota, `status` and the dashboard."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from ..base.ids import now_iso, to_iso
from .db import atomic


def log_call(conn: sqlite3.Connection, *, backend: str, project_id: str | None, session_id: str | None, calls: int,
             input_tokens: int, output_tokens: int, cost_usd: float, outcome: str, at: str | None = None,
             purpose: str = "extract") -> None:
    """One run's calls; `purpose` is `extract` (a transcript) or `expand` (the expansion pass, no session). The
    outcome (a failure's text comes from the model's client or the `claude` CLI) is scrubbed of secrets."""
    from ..base.redact import scrub_text

    outcome = scrub_text(outcome)
    with atomic(conn):
        conn.execute(
            "INSERT INTO extraction_calls (at, backend, project_id, session_id, calls, input_tokens, output_tokens, "
            "cost_usd, outcome, purpose) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (at or now_iso(), backend, project_id, session_id, calls, input_tokens, output_tokens, cost_usd, outcome,
             purpose))


def calls_since(conn: sqlite3.Connection, backend: str, since: datetime) -> int:
    """Model calls `backend` made since `since` (every project: the quota is the user's, not a project's)."""
    row = conn.execute("SELECT coalesce(sum(calls), 0) FROM extraction_calls WHERE backend = ? AND at >= ?",
                       (backend, to_iso(since))).fetchone()
    return int(row[0])


def per_day(conn: sqlite3.Connection, *, days: int = 7, now: datetime | None = None) -> list[dict[str, object]]:
    """Calls, tokens and cost per UTC day, backend and purpose (extract, expand) over the last `days` days, newest
    first (every project)."""
    now = now or datetime.now(timezone.utc)
    since = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    rows = conn.execute(
        "SELECT substr(at, 1, 10) AS day, backend, purpose, sum(calls), sum(input_tokens), sum(output_tokens), "
        "sum(cost_usd), sum(outcome != 'ok') FROM extraction_calls WHERE at >= ? GROUP BY day, backend, purpose "
        "ORDER BY day DESC, backend, purpose DESC", (to_iso(since),)).fetchall()
    return [{"day": r[0], "backend": r[1], "purpose": r[2], "calls": int(r[3]), "input_tokens": int(r[4]),
             "output_tokens": int(r[5]), "cost_usd": round(float(r[6]), 6), "failed_runs": int(r[7])} for r in rows]
