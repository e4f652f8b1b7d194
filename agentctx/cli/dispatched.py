"""`hook` and `stash` in `agentctx --help`: both run before the parser is built (cli.main), so these entries only
describe them."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from ..hooks import HANDLERS

    sub.add_parser("hook", help="run one Claude Code hook (`agentctx hook --help` lists the events)",
                   description=f"Claude Code hook events: {', '.join(HANDLERS)}")
    sub.add_parser("stash", help="record and replay agent runs (`agentctx stash --help`)")
