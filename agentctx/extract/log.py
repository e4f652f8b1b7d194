"""The extraction log (~/.agentctx/logs/extract.log): failures are written here, never shown in the session."""

from __future__ import annotations

import os
import time

from ..base import paths
from ..base.redact import scrub_text

MAX_BYTES = 1_000_000  # rotate once, keeping one old file


def log(message: str) -> None:
    """Append one line; never raises (a broken log must not break extraction)."""
    try:
        directory = paths.ensure_private_dir(paths.logs_dir())
        path = directory / "extract.log"
        if path.exists() and path.stat().st_size > MAX_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        line = scrub_text(" ".join(message.split()))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} [{os.getpid()}] {line}\n")
    except Exception:
        pass
