"""Have the repository's rule files changed since they were last read? One `stat` per file, cheap enough for SessionStart.

`state/rules-<project_id>.json` holds, per work tree, the rule files the last `rulefiles.sync` found (path, size,
mtime) and the rule folders it walked (their mtime: a file added or removed there changes it). Written by every
sync; read by SessionStart, which starts a detached `agentctx rules sync` when anything differs (SPEC §4.12). Only
os and base here: this runs in the SessionStart hook.
"""

import os

from ..base import jsonfast, paths

READ_LIMIT = 256 * 1024
RETRY_S = 60.0  # a sync started this recently is still running (parallel sessions start one, not several)


def stamp_file(project_id: str) -> str:
    return os.path.join(paths.state_dir_str(), f"rules-{paths._safe(project_id)}.json")


def _sig(path: str) -> "list[int] | None":
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _read(project_id: str) -> dict:  # type: ignore[type-arg]
    try:
        with open(stamp_file(project_id), "rb") as fh:
            data = jsonfast.loads(fh.read(READ_LIMIT))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def changed(root: str, project_id: str) -> bool:
    """True when a rule file the last sync read in this work tree changed size or mtime, or left, or a rule folder
    changed (a file added there). False when no sync ever ran here: `init` and consolidation read them then."""
    tree = _read(project_id).get(root)
    if not isinstance(tree, dict):
        return False
    for key in ("files", "dirs"):
        for item in tree.get(key) or ():
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)):
                continue
            rel, size, mtime = item
            sig = _sig(os.path.join(root, rel))
            if key == "dirs":
                if sig is None or sig[1] != mtime:
                    return True
            elif sig != [size, mtime]:
                return True
    for rel in tree.get("absent") or ():  # a rule folder that did not exist then, and does now
        if isinstance(rel, str) and os.path.isdir(os.path.join(root, rel)):
            return True
    return False


def remember(root: str, project_id: str, files: "list[tuple[str, int, int]]", folders: "list[str]") -> None:
    """Note what a sync found in this work tree (derived; never raises)."""
    from ..base.userfiles import atomic_write

    dirs, absent = [], []
    for rel in folders:
        sig = _sig(os.path.join(root, rel))
        if sig is None:
            absent.append(rel)
        else:
            dirs.append([rel, 0, sig[1]])
    tree = {"files": [[p, s, m] for p, s, m in files], "dirs": dirs, "absent": absent}
    data = _read(project_id)
    if data.get(root) == tree:
        return
    data[root] = tree
    try:
        paths.ensure_private_dir_str(paths.state_dir_str())
        atomic_write(stamp_file(project_id), jsonfast.dumps(data), mode=0o600)
    except OSError:
        pass


def start_sync(root: str, project_id: str) -> bool:
    """Start `agentctx -C root rules sync` detached, at most once in RETRY_S per project; True when started."""
    import time

    marker = stamp_file(project_id) + ".started"
    try:
        if time.time() - os.stat(marker).st_mtime < RETRY_S:
            return False
    except OSError:
        pass
    try:
        paths.ensure_private_dir_str(paths.state_dir_str())
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        os.utime(marker)
    except OSError:
        return False
    from ..base.spawn import agentctx_argv, detached

    return detached(agentctx_argv("-C", root, "rules", "sync"), cwd=root) is not None
