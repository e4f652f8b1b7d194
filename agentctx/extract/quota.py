"""The Claude Code backend spends the user's own quota: at most N calls an hour, and a pause after a rate limit, a
login problem or a CLI that cannot run (the part stays unsent and is retried after it)."""


import os
import time

from ..base import jsonfast, paths

TYPE_CHECKING = False
if TYPE_CHECKING:  # the SessionStart notice reads the pause: this module stays light to import
    import sqlite3
    from datetime import datetime

# How long extraction through the CLI waits after each kind of failure before it tries again.
PAUSE_S = {"rate_limit": 15 * 60.0, "auth": 60 * 60.0, "offline": 5 * 60.0, "missing": 60 * 60.0,
           "broken": 10 * 60.0, "timeout": 5 * 60.0}


# What to do about each kind of pause, in one plain clause (the fix named).
ADVICE = {
    "rate_limit": "your Claude Code usage limit was reached: extraction waits and tries again",
    "auth": "Claude Code is not logged in here: run `claude` and /login (or set ANTHROPIC_API_KEY for the API backend)",
    "missing": "install Claude Code, or point agentctx at it: `agentctx config set claudeCodePath /path/to/claude`",
    "offline": "Claude Code could not reach its API (offline?): extraction waits and tries again",
    "broken": "check that `claude -p hello` works in a terminal",
    "timeout": "the call took too long; it is retried later",
}


def _file() -> str:
    return os.path.join(paths.state_dir_str(), "extract-backoff.json")


def _state(now: float | None) -> "tuple[str, int] | None":
    try:
        with open(_file(), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
        until, why = float(data["until"]), str(data["why"])  # type: ignore[index]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    if now >= until:
        return None
    from ..base.redact import scrub_text

    return scrub_text(why), max(1, round((until - now) / 60))  # a file written before pause() scrubbed it


def paused(now: float | None = None) -> str | None:
    """Why extraction through the CLI is paused now (None when it is not)."""
    state = _state(now)
    return None if state is None else f"paused for {state[1]} more min after {state[0]}"


def kind(now: float | None = None) -> str | None:
    """The kind of failure extraction through the CLI is paused after (auth, rate_limit, ...), or None."""
    state = _state(now)
    return None if state is None else state[0].partition(":")[0]


def fix(now: float | None = None) -> str | None:
    """What to do about the pause, in one clause, or None when there is none."""
    found = kind(now)
    return None if found is None else ADVICE.get(found, ADVICE["broken"])


def short(now: float | None = None) -> str | None:
    """The pause as a notice says it: "extraction paused: Claude Code is not logged in here: run `claude` and
    /login"; None when not paused."""
    found = fix(now)
    return None if found is None else "extraction paused: " + found.split(" (", 1)[0]


def line(now: float | None = None) -> str | None:
    """The pause in one plain line naming the fix: "extraction through your Claude Code CLI is paused (60 more min):
    Claude Code is not logged in here: run `claude` and /login (...)"; None when not paused."""
    state = _state(now)
    if state is None:
        return None
    return (f"extraction through your Claude Code CLI is paused ({state[1]} more min): "
            + ADVICE.get(state[0].partition(":")[0], ADVICE["broken"]))


def pause(kind: str, detail: str, now: float | None = None) -> float:
    """Pause extraction through the CLI after a failure of `kind`; returns the seconds paused."""
    seconds = PAUSE_S.get(kind, 0.0)
    if seconds <= 0:
        return 0.0
    import json

    from ..base.redact import scrub_text
    from ..base.userfiles import atomic_write

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


def over_limit(conn: "sqlite3.Connection", per_hour: int, now: "datetime | None" = None) -> bool:
    """True when the CLI backend made `per_hour` calls in the last hour (0: no limit)."""
    if per_hour <= 0:
        return False
    from datetime import datetime, timedelta, timezone
    from ..store import extraction

    now = now or datetime.now(timezone.utc)
    return extraction.calls_since(conn, "claude-code", now - timedelta(hours=1)) >= per_hour
