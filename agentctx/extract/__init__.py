"""LLM extraction (SPEC §6): turn what the developer said and chose in a session into records, incrementally.

May import: `base`, `store`, `retrieval`, `stash`; the `anthropic` SDK (the `[llm]` extra) only where the call is made.
"""

from __future__ import annotations

from pathlib import Path

from .engine import ExtractResult, execute

__all__ = ["ExtractResult", "execute", "run"]


def run(session_id: str, transcript: str | Path, *, cwd: str | None = None, final: bool = False) -> ExtractResult:
    """Extract whatever is new in `transcript` for `session_id`; never raises.

    `final=True` is the SessionEnd pass: it waits for a running extraction of the session to finish (the
    per-session lock) and then extracts what is left, so a digest computed afterwards sees the newest handover."""
    return execute(session_id, transcript, cwd=cwd, final=final)
