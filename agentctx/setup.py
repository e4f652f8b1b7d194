"""`agentctx init` and `agentctx reset`: create the data directory, store and config; remove a project's data."""

from __future__ import annotations

from . import config, db, paths
from .project import Project
from .store import records


def initialize() -> list[str]:
    """Create what is missing (data dir 0700, database 0600, config); returns what was done, in words."""
    done: list[str] = []
    home = paths.home()
    existed = home.exists()
    paths.ensure_private_dir(home)
    paths.ensure_private_dir(paths.logs_dir())
    if not existed:
        done.append(f"created {home}")
    db_existed = paths.db_path().exists()
    conn = db.connect(paths.db_path(), create=True)
    conn.close()
    done.append(("opened" if db_existed else "created") + f" {paths.db_path()}")
    if config.ensure_file():
        done.append(f"created {paths.config_path()}")
    return done


def reset_project(project: Project) -> int:
    """Delete every record of `project` (global records stay); returns how many were removed."""
    conn = db.connect(paths.db_path())
    try:
        return records.delete_project(conn, project.id)
    finally:
        conn.close()
