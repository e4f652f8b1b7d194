"""LLM extraction (SPEC §6): turn what the developer said and chose in a session into records, incrementally.

May import: `base`, `store`, `retrieval`, `stash`; the `anthropic` SDK (the `[llm]` extra) only where the call is made.
The engine loads on first use: the Stop hook asks `extract.backend` which backend runs without loading it.
"""


TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from .engine import ExtractResult

__all__ = ["ExtractResult", "execute", "run"]


def execute(*args: object, **kwargs: object) -> "ExtractResult":
    """`engine.execute`: extract what is new in a transcript; never raises."""
    from .engine import execute as run_engine

    return run_engine(*args, **kwargs)  # type: ignore[arg-type]


def run(session_id: str, transcript: "str | Path", *, cwd: str | None = None, final: bool = False) -> "ExtractResult":
    """Extract whatever is new in `transcript` for `session_id`; never raises.

    `final=True` is the SessionEnd pass: it waits for a running extraction of the session to finish (the
    per-session lock) and then extracts what is left, so a digest computed afterwards sees the newest handover."""
    from .engine import execute as run_engine

    return run_engine(session_id, transcript, cwd=cwd, final=final)


def __getattr__(name: str) -> object:
    if name == "ExtractResult":
        from .engine import ExtractResult

        return ExtractResult
    raise AttributeError(f"module 'agentctx.extract' has no attribute {name!r}")
