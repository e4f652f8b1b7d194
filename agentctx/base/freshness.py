"""Digest freshness: a store write that can change what SessionStart shows rebuilds the affected digests (and the
anchor map the pre-action hook reads) at once.

The store's write functions call `changed` after their transaction commits, so every writer (CLI, MCP, extraction,
capture, hooks, consolidation) keeps the digest current without knowing about it; SessionStart stays a file read.
A batch of writes (`deferred`) rebuilds once at its end. A rebuild that fails only leaves the older digest in place:
the write itself already committed (derived data, SPEC §8).

The store sits below the digest, so it cannot call it: the rebuild is registered from above (`on_change`).
`agentctx.memory.keep_digests_fresh` registers the digest's rebuild: every memory module that writes records calls
it when imported, and so do the surfaces that write (CLI, MCP server, dashboard).
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Callable

_depth = 0
_pending: set[str] = set()
_rebuilders: "list[Callable[[sqlite3.Connection, str], object]]" = []


def on_change(rebuild: "Callable[[sqlite3.Connection, str], object]") -> None:
    """Register `rebuild(conn, project_id)`, run for each changed project once its write has committed."""
    if rebuild not in _rebuilders:
        _rebuilders.append(rebuild)


def changed(conn: "sqlite3.Connection", project_id: str) -> None:
    """Note that `project_id`'s records changed (`_global`: every project's digest may show them)."""
    _pending.add(project_id)
    if _depth == 0 and not conn.in_transaction:  # inside a caller's transaction: rebuild when it has committed
        flush(conn)


class deferred:
    """Batch writes: the digests they touch are rebuilt once, when the outermost batch ends."""

    def __init__(self, conn: "sqlite3.Connection") -> None:
        self.conn = conn

    def __enter__(self) -> None:
        global _depth
        _depth += 1

    def __exit__(self, *exc: object) -> None:
        global _depth
        _depth -= 1
        if _depth == 0 and not self.conn.in_transaction:
            flush(self.conn)


def flush(conn: "sqlite3.Connection") -> list[str]:
    """Rebuild the digests of every project noted as changed; returns their ids. With no rebuild registered, the
    changes wait for one."""
    if not _pending or not _rebuilders:
        return []
    from .models import GLOBAL_PROJECT

    ids = set(_pending)
    _pending.clear()
    if GLOBAL_PROJECT in ids:
        ids.discard(GLOBAL_PROJECT)
        ids.update(_stored_digests())
    done = []
    for project_id in sorted(ids):
        ok = True
        for rebuild in _rebuilders:  # each on its own: a failed digest must not leave the anchor map stale
            try:
                rebuild(conn, project_id)
            except Exception as exc:  # never fail a committed write over derived data
                ok = False
                _log(f"rebuild ({getattr(rebuild, '__name__', 'rebuild')}) for {project_id} failed: "
                     f"{type(exc).__name__}: {exc}")
        if ok:
            done.append(project_id)
    return done


def done(project_id: str) -> None:
    """A full rebuild of `project_id`'s digest just ran: nothing pending for it."""
    _pending.discard(project_id)


def _stored_digests() -> set[str]:
    from . import paths

    try:
        names = os.listdir(paths.digests_dir_str())
    except OSError:
        return set()
    return {name[:-5] for name in names if name.endswith(".json") and name != "roots.json"}


def _log(line: str) -> None:
    from . import paths

    try:
        os.makedirs(paths.logs_dir_str(), mode=0o700, exist_ok=True)
        with open(os.path.join(paths.logs_dir_str(), "digest.log"), "a", encoding="utf-8") as fh:
            fh.write(line[:2000] + "\n")
    except OSError:
        pass
