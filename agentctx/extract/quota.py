"""The Claude Code backend spends the user's own quota: at most N calls an hour, and a pause after a rate limit, a
login problem or a CLI that cannot run (the part stays unsent and is retried after it)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from datetime import datetime, timedelta, timezone

from ..base import paths
from ..base.userfiles import atomic_write

# How long extraction through the CLI waits after each kind of failure before it tries again.
PAUSE_S = {"rate_limit": 15 * 60.0, "auth": 60 * 60.0, "offline": 5 * 60.0, "missing": 60 * 60.0,
           "broken": 10 * 60.0, "timeout": 5 * 60.0}


def _file() -> str:
    return os.path.join(paths.state_dir_str(), "extract-backoff.json")


def paused(now: float | None = None) -> str | None:
    """Why extraction through the CLI is paused now (None when it is not)."""
    try:
        with open(_file(), encoding="utf-8") as fh:
            data = json.load(fh)
        until, why = float(data["until"]), str(data["why"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    if now >= until:
        return None
    from ..base.redact import scrub_text

    left = max(1, round((until - now) / 60))
    return f"paused for {left} more min after {scrub_text(why)}"  # a file written before pause() scrubbed it


def pause(kind: str, detail: str, now: float | None = None) -> float:
    """Pause extraction through the CLI after a failure of `kind`; returns the seconds paused."""
    seconds = PAUSE_S.get(kind, 0.0)
    if seconds <= 0:
        return 0.0
    from ..base.redact import scrub_text

    now = time.time() if now is None else now
    paths.ensure_private_dir(paths.state_dir())
    why = scrub_text(f"{kind}: {detail}")[:400]  # the CLI's own words: no password or key written to the file
    atomic_write(_file(), json.dumps({"until": now + seconds, "why": why}) + "\n", mode=0o600)
    return seconds


def clear() -> None:
    try:
        os.unlink(_file())
    except OSError:
        pass


def over_limit(conn: sqlite3.Connection, per_hour: int, now: datetime | None = None) -> bool:
    """True when the CLI backend made `per_hour` calls in the last hour (0: no limit)."""
    if per_hour <= 0:
        return False
    from ..store import extraction

    now = now or datetime.now(timezone.utc)
    return extraction.calls_since(conn, "claude-code", now - timedelta(hours=1)) >= per_hour
