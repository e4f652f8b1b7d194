"""What every command handler shares: the project, a lazily opened store, output helpers, confirmation."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from ..base import paths
from ..base.errors import AgentctxError, NotFoundError
from ..base.project import Project, detect
from ..store import db
from .terminal import printable, printable_json


class Context:
    """Per-invocation state for command handlers."""

    def __init__(self, cwd: str | None = None, json: bool = False) -> None:
        self.cwd = cwd
        self.json = json
        self._project: Project | None = None
        self._conn: sqlite3.Connection | None = None

    @property
    def project(self) -> Project:
        if self._project is None:
            # `-C` naming a missing directory would silently become a namespace of its own.
            if self.cwd is not None and not Path(self.cwd).is_dir():
                raise NotFoundError("file_unreadable", path=self.cwd, detail="not a directory")
            self._project = detect(self.cwd)
        return self._project

    @property
    def conn(self) -> sqlite3.Connection:
        """The store; raises NotFoundError (run `agentctx init`) when it does not exist."""
        if self._conn is None:
            self._conn = db.connect(paths.db_path())
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def out(self, text: str = "") -> None:
        sys.stdout.write(printable(text) + "\n")

    def emit(self, data: Any) -> None:
        sys.stdout.write(printable_json(json.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n")

    def confirm(self, question: str) -> bool:
        """Ask on the terminal (the question goes to stderr, so --json output stays clean); without one, no."""
        if not sys.stdin.isatty():
            return False
        sys.stderr.write(f"{printable(question)} [y/N] ")
        sys.stderr.flush()
        try:
            answer = input("")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")


def fail(ctx: Context, exc: AgentctxError) -> int:
    """Report an error as one line on stderr (and as JSON on stdout with --json); return its exit status."""
    sys.stderr.write(f"agentctx: {printable(str(exc))}\n")
    if ctx.json:
        ctx.emit(exc.to_dict())
    return exc.exit_code
