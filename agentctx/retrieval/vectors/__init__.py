"""Semantic retrieval (the `[vectors]` extra): embedder, vector search, backfill; importing this needs no extra."""

from __future__ import annotations


class Unavailable(Exception):
    """Vectors cannot serve this request: `reason` says why (for the degraded marker), `fix` what to do."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fix = fix


def extra_fix() -> str:
    """How to add [vectors] to this installation (fastembed, numpy; sqlite-vec optional)."""
    from ...base.extras import install_command

    return install_command("vectors")
