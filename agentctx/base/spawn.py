"""Detached background work: a new session, no inherited descriptors, stdin/stdout/stderr on /dev/null."""

from __future__ import annotations

import os
import sys

# How long a detached worker may live (seconds); its own watchdog ends it after that, whatever it is waiting on
# (a lock, a file, the network). Extraction calls the API (retries included); consolidation is local work.
LIFETIME_S = {"extract": 600.0, "consolidate": 120.0}
DEFAULT_LIFETIME_S = 300.0
LIFETIME_ENV = "AGENTCTX_LIFETIME_S"
# Of a worker's lifetime, the share kept for its own work after a child (the `claude` CLI) it waits on: a child is
# bounded to end before that, so a worker whose child hangs still records, drains and refreshes what it must.
RESERVE_SHARE = 0.25
RESERVE_MAX_S = 30.0

_deadline: "float | None" = None  # time.monotonic() at which this worker's lifetime runs out (None: no limit)
_lifetime = 0.0
_groups: "dict[int, object]" = {}  # process groups of children still running -> what to do if we are ended first


# How the Claude Code plugin's launcher (plugin/bin/agentctx) starts agentctx, the same code: the plugin directory
# (AGENTCTX_PLUGIN_ROOT) first on sys.path, the working directory off it. Not PYTHONPATH, which a `:` in the
# plugin's path would split; not `-m agentctx`, which would put the working directory (the user's project, maybe
# with an agentctx/ of its own) first.
PLUGIN_BOOT = ('import os, sys\n'
               'root = os.environ["AGENTCTX_PLUGIN_ROOT"] = os.path.abspath(os.environ["AGENTCTX_PLUGIN_ROOT"])\n'
               'sys.path[:] = [root] + [p for p in sys.path if p != ""]\n'
               'sys.argv[0] = "agentctx"\nfrom agentctx import console\nconsole()')


def agentctx_argv(*args: str) -> list[str]:
    """This installation's agentctx: the interpreter running now, so a child never picks up another version (run
    from the plugin: started as its launcher starts it; the child inherits AGENTCTX_PLUGIN_ROOT)."""
    if os.environ.get("AGENTCTX_PLUGIN_ROOT"):
        return [sys.executable, "-c", PLUGIN_BOOT, *args]
    return [sys.executable, "-m", "agentctx", *args]


def detached(argv: list[str], *, cwd: str | None = None, lifetime: float | None = None) -> int | None:
    """Start `argv` outside our process group and return its pid, or None when it could not start.

    The child outlives the hook: Claude Code may kill the hook's process group when the SessionEnd budget
    (1.5 s) ends (vendor-notes/claude-code-hooks.md, open questions), so it gets a session of its own. Its
    lifetime (by default LIFETIME_S of its command) travels in AGENTCTX_LIFETIME_S; `limit_lifetime` enforces it.
    """
    import subprocess

    if lifetime is None:
        lifetime = next((LIFETIME_S[a] for a in argv if a in LIFETIME_S), DEFAULT_LIFETIME_S)

    kwargs: dict[str, object] = {
        "stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
        "close_fds": True, "cwd": cwd if cwd and os.path.isdir(cwd) else None,
        "env": {**os.environ, LIFETIME_ENV: f"{lifetime:g}"},
    }
    if os.name == "posix":
        kwargs["start_new_session"] = True
    else:  # Windows: no console, own process group
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) | getattr(
            subprocess, "DETACHED_PROCESS", 0)
    try:
        proc = subprocess.Popen(argv, **kwargs)  # type: ignore[call-overload]
    except OSError:
        return None
    return int(proc.pid)


def limit_lifetime() -> None:
    """In a detached worker: end the process when the lifetime its spawner gave it runs out.

    A daemon thread rather than SIGALRM: a Python signal handler waits for the main thread to leave C code (a
    SQLite busy wait, a blocking read), a thread does not. os._exit is a crash to SQLite, which it survives
    (the transaction rolls back); the pending ledger re-reads what a drain had claimed (store.sessions).
    """
    global _deadline, _lifetime
    raw = os.environ.pop(LIFETIME_ENV, "")
    try:
        seconds = float(raw)
    except ValueError:
        return
    if not seconds > 0:
        return
    import threading
    import time

    _deadline, _lifetime = time.monotonic() + seconds, seconds

    def expire() -> None:
        from .hooklog import log

        log("background", f"{' '.join(sys.argv[1:3])}: lifetime of {seconds:g} s ran out; stopped")
        end_children()
        os._exit(124)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()



def child_budget(wanted: float) -> float:
    """How long a child may run now: `wanted`, cut so that it ends before this worker's lifetime does, with the
    reserve (RESERVE_SHARE of the lifetime, at most RESERVE_MAX_S) left for the worker's own work. `wanted` when no
    lifetime is set (a command run by hand); 0 or less when no time is left."""
    if _deadline is None:
        return wanted
    import time

    reserve = min(RESERVE_MAX_S, _lifetime * RESERVE_SHARE)
    return min(wanted, _deadline - time.monotonic() - reserve)


def adopt(pgid: int, on_end: "object" = None) -> None:
    """A child's own process group (started with start_new_session) that must not outlive this worker: if the
    lifetime runs out first, the group is killed and `on_end` (a callable, or None) runs."""
    _groups[pgid] = on_end


def release(pgid: int) -> None:
    _groups.pop(pgid, None)


def end_children() -> None:
    """Kill every adopted process group (SIGKILL) and run what each asked for; never raises."""
    import signal

    for pgid, on_end in list(_groups.items()):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        try:
            if callable(on_end):
                on_end()
        except Exception:
            pass
        _groups.pop(pgid, None)
