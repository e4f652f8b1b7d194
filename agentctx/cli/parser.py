"""argparse, made to fail the way agentctx fails: one line on stderr and exit status 64."""

from __future__ import annotations

import argparse
import sys


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors and exit status 64."""

    def error(self, message: str) -> None:  # type: ignore[override]
        from .terminal import printable  # an argument echoed back may carry escapes

        sys.stderr.write(printable(f"{self.prog}: error: {message}") + "\n")
        raise SystemExit(64)  # EX_USAGE


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
