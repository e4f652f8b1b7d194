"""Forgetting that fires: an inferred record nobody used for `expireInferredDays` days is retired (restorable, with
the reason), and is listed in `agentctx review` a week before it goes. Explicit, pinned and team records never expire."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from typing import Any

from ..base import config
from ..base.ids import parse_iso, to_iso
from ..base.models import Record
from ..store import trust

WARN_DAYS = 7


def days_setting(settings: dict[str, Any] | None = None) -> int:
    return int((settings or config.load())["expireInferredDays"])


def reason(days: int, used: str) -> str:
    return f"expired: unused for {days} days (last used {used[:10]})"


def run(conn: sqlite3.Connection, project_id: str, *, days: int | None = None,
        now: datetime | None = None) -> dict[str, Any] | str:
    """Retire the project's inferred and reinforced records unused for `days` (config `expireInferredDays`; 0: never)."""
    days = days_setting() if days is None else days
    if days <= 0:
        return "skipped (expireInferredDays is 0)"
    now = now or datetime.now(timezone.utc)
    gone = []
    for record, used in trust.expiry_candidates(conn, project_id, to_iso(now - timedelta(days=days))):
        if trust.expire(conn, record, reason(days, used)):
            gone.append(record.id)
    if gone:
        from ..base import freshness

        freshness.changed(conn, project_id)  # the digest and the anchor map lose them
    return {"expired": len(gone), "ids": gone}


def soon(conn: sqlite3.Connection, project_id: str, *, days: int | None = None,
         now: datetime | None = None) -> list[tuple[Record, str, str]]:
    """(record, last use, when it will expire) of the records that expire within WARN_DAYS unless used, pinned or
    confirmed: what `review` lists."""
    days = days_setting() if days is None else days
    if days <= 0:
        return []
    now = now or datetime.now(timezone.utc)
    out = []
    for record, used in trust.expiry_candidates(conn, project_id, to_iso(now - timedelta(days=max(0, days - WARN_DAYS)))):
        try:
            when = to_iso(parse_iso(used) + timedelta(days=days))
        except ValueError:
            when = to_iso(now)
        out.append((record, used, when))
    return out
