"""Detached background work: a new session, no inherited descriptors, stdin/stdout/stderr on /dev/null."""

from __future__ import annotations

import os
import sys


def agentctx_argv(*args: str) -> list[str]:
    """This installation's agentctx: the interpreter running now, so a child never picks up another version."""
    return [sys.executable, "-m", "agentctx", *args]


def detached(argv: list[str], *, cwd: str | None = None) -> int | None:
    """Start `argv` outside our process group and return its pid, or None when it could not start.

    The child outlives the hook: Claude Code may kill the hook's process group when the SessionEnd budget
    (1.5 s) ends (vendor-notes/claude-code-hooks.md, open questions), so it gets a session of its own.
    """
    import subprocess

    kwargs: dict[str, object] = {
        "stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
        "close_fds": True, "cwd": cwd if cwd and os.path.isdir(cwd) else None,
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
