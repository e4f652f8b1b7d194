"""Per-session extraction state under ~/.agentctx/extract/: how far the transcript was sent, and a run lock."""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Iterator

from ..base import paths
from ..base.ids import now_iso
from ..base.userfiles import atomic_write

STALE_S = 900.0  # an O_EXCL lock file older than this belongs to a run that died (runs are bounded well below)
POLL_S = 0.05


@dataclass(frozen=True)
class Cursor:
    """Derived state (deleting it only means re-sending): byte offsets into the transcript, failures, reinforcements."""

    session_id: str
    transcript: str = ""
    offset: int = 0  # everything before this byte was sent (or was nothing worth sending)
    carry_from: int = 0  # where the carry-over starts: the last few turns before `offset`
    failures: int = 0  # consecutive failed attempts on the part after `offset`
    runs: int = 0
    sent_tokens: int = 0
    cost_usd: float = 0.0
    reinforced: tuple[str, ...] = field(default=())  # records this session already reinforced (count once)
    updated_at: str | None = None

    def advance(self, **changes: object) -> "Cursor":
        return replace(self, updated_at=now_iso(), **changes)  # type: ignore[arg-type]


def directory() -> Path:
    return paths.home() / "extract"


def _safe(session_id: str) -> str:
    return paths.session_token(session_id)


def state_path(session_id: str) -> Path:
    return directory() / f"{_safe(session_id)}.json"


def load(session_id: str) -> Cursor:
    """The session's cursor; a missing or unreadable file is a fresh start."""
    try:
        data = json.loads(state_path(session_id).read_text(encoding="utf-8"))
        known = {k: v for k, v in data.items() if k in Cursor.__dataclass_fields__}
        known["reinforced"] = tuple(known.get("reinforced") or ())
        known["session_id"] = session_id
        return Cursor(**known)
    except (OSError, ValueError, TypeError):
        return Cursor(session_id)


def save(cursor: Cursor) -> None:
    """Write atomically (tmp + rename), private to the user."""
    path = state_path(cursor.session_id)
    paths.ensure_private_dir(path.parent)
    atomic_write(path, json.dumps(asdict(cursor)), mode=0o600)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _try_excl(path: Path) -> bool:
    """Portable fallback: create the lock file exclusively; break it if its owner died or it is stale."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        try:
            pid = int(path.read_text().split()[0])
            age = time.time() - path.stat().st_mtime
        except (OSError, ValueError, IndexError):
            pid, age = -1, STALE_S + 1
        if age > STALE_S or (pid > 0 and not _pid_alive(pid)):
            with contextlib.suppress(OSError):
                path.unlink()
        return False
    with os.fdopen(fd, "w") as fh:
        fh.write(f"{os.getpid()} {time.time()}\n")
    return True


@contextlib.contextmanager
def lock(session_id: str, timeout: float) -> Iterator[bool]:
    """Hold the session's lock (waiting up to `timeout` s); yields False if it could not be had.

    POSIX uses flock, which the kernel releases when a run dies, so a crash never blocks the next run."""
    path = paths.ensure_private_dir(directory()) / f"{_safe(session_id)}.lock"
    deadline = time.monotonic() + timeout
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        yield False
                        return
                    time.sleep(POLL_S)
            try:
                yield True
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
        return
    excl = path.with_suffix(".excl")
    while not _try_excl(excl):
        if time.monotonic() >= deadline:
            yield False
            return
        time.sleep(POLL_S)
    try:
        yield True
    finally:
        with contextlib.suppress(OSError):
            excl.unlink()
