"""The expansion pass for a record written by hand (`record`, `ctx_record`), started in the background."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..base.models import Record

# Records one background pass may send: the one just written and any others waiting (one batch, one call).
LIMIT = 20


def expand_soon(record: "Record", root: str | None) -> str:
    """Start `agentctx expand` for the project, detached, when `record` has neither questions nor aliases and an
    LLM backend is on: it is then found by the words developers ask in, not only its own. Never waits, never raises.
    Returns "started", "not_needed" (it has them, or its type is not expanded), "off" (no backend, or
    `expansionRecordsPerDay` 0) or "failed" (the child could not start)."""
    from .expand import TYPES

    if record.questions or record.aliases or record.type not in TYPES:
        return "not_needed"
    try:
        from ..base import config
        from .backend import choose

        settings = config.load()
        if not settings.get("expansionRecordsPerDay") or not choose(settings).on:
            return "off"
    except Exception:  # a damaged config: the record is written; `agentctx expand` will say what is wrong
        return "off"
    from ..base.spawn import agentctx_argv, detached

    argv = agentctx_argv(*(("-C", root) if root else ()), "expand", "--limit", str(LIMIT))
    return "started" if detached(argv, cwd=root) is not None else "failed"
