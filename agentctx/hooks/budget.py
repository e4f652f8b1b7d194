"""Each hook's wall-clock budget: how long it may wait on the store's lock, and a watchdog over the whole run."""

import os

# Seconds a hook waits for a store another process holds (SQLite's busy timeout, on open and on write). Past it a
# read gives up (nothing injected, the reason logged) and a write goes to the pending ledger (`defer`).
LOCK_WAIT_S: dict[str, float] = {
    "session-start": 0.25, "user-prompt-submit": 0.25, "stop": 0.25, "pre-tool-use": 0.25,
    "pre-compact": 1.0, "post-tool-use": 1.0, "post-tool-use-failure": 1.0, "session-end": 0.4,
}
# The whole hook, well inside Claude Code's limits (600 s per command hook; 1.5 s for all SessionEnd hooks,
# vendor-notes/claude-code-hooks.md facts 14-15). Lock waits are bounded above; this catches everything else.
TOTAL_S: dict[str, float] = {
    "session-start": 3.0, "user-prompt-submit": 3.0, "stop": 3.0, "pre-tool-use": 2.0,
    "pre-compact": 5.0, "post-tool-use": 5.0, "post-tool-use-failure": 5.0, "session-end": 1.2,
}


class BudgetExceeded(BaseException):
    """Raised in the hook when its TOTAL_S ran out (a BaseException: no `except Exception` may swallow it)."""


def _expired(signum: int, frame: object) -> None:
    raise BudgetExceeded("wall-clock budget ran out")


def arm(event: str) -> "object":
    """Start the watchdog (SIGALRM through the builtin `_signal`: `signal` would import enum on every prompt);
    returns what `disarm` needs. No-op where there is no setitimer (Windows) or off the main thread."""
    seconds = TOTAL_S.get(event)
    try:
        import _signal

        previous = _signal.signal(_signal.SIGALRM, _expired)
        _signal.setitimer(_signal.ITIMER_REAL, seconds or 0)
        return previous
    except (ImportError, AttributeError, ValueError, OSError):
        return None


def disarm(previous: "object") -> None:
    if previous is None:
        return
    try:
        import _signal

        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous)
    except (ImportError, AttributeError, ValueError, OSError, TypeError):
        pass


def defer(event: str, entry: "dict[str, object]", exc: BaseException) -> None:
    """A write that could not happen in time: append it to the pending ledger (drained by the next consolidation,
    `status` or `why`), and log why. Only a failed append loses it, and that is logged too."""
    from . import log, record_pending

    queued = record_pending(entry)
    if queued:
        log(event, f"store unavailable ({exc}); write queued in the pending ledger")
    else:
        log(event, f"store unavailable ({exc}); the pending ledger could not be written either: write dropped")


def lock_wait(event: str) -> float:
    """This event's busy timeout; AGENTCTX_HOOK_LOCK_WAIT_S overrides every event (benchmarks, slow disks)."""
    raw = os.environ.get("AGENTCTX_HOOK_LOCK_WAIT_S")
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
    return LOCK_WAIT_S.get(event, 1.0)
