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
    from ..base.spawn import agentctx_argv

    argv = agentctx_argv(*(("-C", root) if root else ()), "expand", "--limit", str(LIMIT))
    return "started" if start(argv, root) is not None else "failed"


def start(argv: "list[str]", cwd: "str | None") -> "int | None":
    """Start the pass detached (base/spawn.py); its pid, or None. The test suite replaces it (tests/conftest.py):
    a pass started by every record a test writes would race the test's own."""
    from ..base.spawn import detached

    return detached(argv, cwd=cwd)
