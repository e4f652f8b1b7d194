"""The root cache: work-tree root -> project id, so a hook finds its project without parsing .git/config."""

import os

from . import jsonfast, paths

# Written by digest.remember_root when consolidation refreshes a digest; read by the SessionStart and
# UserPromptSubmit hooks, which import this module instead of the digest composer.


def roots_file() -> str:
    return os.path.join(paths.digests_dir_str(), "roots.json")


def git_root(cwd: str) -> str | None:
    """The work-tree root above `cwd` when it is a plain repository (worktrees take the slow path)."""
    here = os.path.realpath(cwd or ".")
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            return here
        if os.path.exists(dot_git):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def stamp(root: str) -> int:
    # The id derives from the origin remote in .git/config: a changed config invalidates the cached id.
    try:
        return os.stat(os.path.join(root, ".git", "config")).st_mtime_ns
    except OSError:
        return 0


def cached_project_id(cwd: str) -> str | None:
    """The project id of `cwd` from the root cache, without importing the project module."""
    root = git_root(cwd)
    return None if root is None else cached_id_of_root(root)


def cached_id_of_root(root: str) -> str | None:
    """The project id the root cache holds for a work-tree root (`git_root`'s answer), if still valid."""
    try:
        with open(roots_file(), encoding="utf-8") as fh:
            entry = jsonfast.loads(fh.read()).get(root)
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(entry, list) and len(entry) == 2 and entry[1] == stamp(root) and isinstance(entry[0], str):
        return entry[0]
    return None


def names() -> dict[str, str]:
    """Project id -> a name a person knows it by (the directory of its checkout), for every project the cache holds.

    The store keeps only ids (a hash of the remote): this is where the dashboard finds a project's name. Of several
    checkouts of one project, the first in path order, so the name does not change between calls."""
    try:
        with open(roots_file(), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    if not isinstance(data, dict):
        return out
    for root in sorted(r for r in data if isinstance(r, str)):
        entry = data[root]
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str):
            out.setdefault(entry[0], os.path.basename(root.rstrip("/")) or root)
    return out
