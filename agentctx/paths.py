"""Where agentctx keeps its files; the only module that reads the environment for locations."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

DB_NAME = "agentctx.db"


def home() -> Path:
    """The data directory: `AGENTCTX_HOME`, else `~/.agentctx`."""
    override = os.environ.get("AGENTCTX_HOME")
    if override:
        return Path(override).expanduser()
    return Path.home() / ".agentctx"


def db_path() -> Path:
    return home() / DB_NAME


def config_path() -> Path:
    return home() / "config.json"


def logs_dir() -> Path:
    return home() / "logs"


def digests_dir() -> Path:
    return home() / "digests"


def models_dir() -> Path:
    return home() / "models"


def profile_dir() -> Path:
    return home() / "profile"


def _safe(name: str) -> str:
    # Session ids come from the hook payload: keep them from escaping the directory.
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:128] or "_"


def digest_path(project_id: str) -> Path:
    return digests_dir() / f"{_safe(project_id)}.json"


def dedup_path(session_id: str) -> Path:
    """Per-session injection dedup file (derived, disposable) in the temp dir."""
    return Path(tempfile.gettempdir()) / f"agentctx-{_safe(session_id)}.json"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make it private to the user (0700)."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def claude_home() -> Path:
    """Claude Code's user directory (`~/.claude`)."""
    return Path.home() / ".claude"


def claude_json() -> Path:
    """Claude Code's user state file, where MCP servers are registered at user scope."""
    return Path.home() / ".claude.json"
