"""The memory's lifecycle: capture from tool calls, working-state snapshots, the SessionStart digest and its
notices, the anchor map, the project profile, history, review, open sessions, the pending ledger, consolidation
and status.

May import: `base`, `agents`, `store`, `retrieval`, `extract`, `trust`, `outside`, `stash`. What agentctx reads
from outside (rule files, the agents' own memory, CLAUDE.md drift) is `outside`; the checks of whether a record
can still be trusted (verification, expiry, merging) are `trust`.
"""

def _rebuild_digest(conn: "object", project_id: str) -> None:
    """After a committed store write: rebuild the project's digest (`base.freshness` calls this; the store sits
    below the digest and cannot)."""
    from .digest import refresh_after_write

    refresh_after_write(conn, project_id)  # type: ignore[arg-type]


def _rebuild_anchor_map(conn: "object", project_id: str) -> None:
    """After a committed store write: rewrite the project's anchor map, which the pre-action hook reads."""
    from .anchormap import write

    write(conn, project_id)  # type: ignore[arg-type]


def keep_digests_fresh() -> None:
    """Register the digest's rebuild with `base.freshness` (idempotent). Every memory module that writes records
    calls it when it is imported, and so do the surfaces that write (CLI, MCP, dashboard); the read-only paths
    (SessionStart's digest read) do not pay for it."""
    from ..base import freshness

    freshness.on_change(_rebuild_digest)
    freshness.on_change(_rebuild_anchor_map)
