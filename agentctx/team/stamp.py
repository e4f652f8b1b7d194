"""Has the team file changed since the last import? One stat and one small read, cheap enough for SessionStart.

`state/team-<project_id>.stamp` holds one line per work tree: `<size> <mtime_ns> <root>`, written after every
import and export of that tree's `.agentctx/context.md`. os only: this runs in the SessionStart hook.
"""

import os

from ..base import paths

TEAM_FILE = os.path.join(".agentctx", "context.md")


def team_file(root: str) -> str:
    return os.path.join(root, TEAM_FILE)


def _stamp_file(project_id: str) -> str:
    return os.path.join(paths.state_dir_str(), f"team-{paths._safe(project_id)}.stamp")


def signature(root: str) -> str | None:
    """`<size> <mtime_ns>` of the root's team file, or None when there is none."""
    try:
        st = os.stat(team_file(root))
    except OSError:
        return None
    return f"{st.st_size} {st.st_mtime_ns}"


def _read(project_id: str) -> dict[str, str]:
    try:
        with open(_stamp_file(project_id), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:
        size, _, rest = line.partition(" ")
        mtime, _, root = rest.partition(" ")
        if root:
            out[root] = f"{size} {mtime}"
    return out


def changed(root: str, project_id: str) -> bool:
    """True when the root has a team file whose size or mtime differs from the last import or export."""
    sig = signature(root)
    return sig is not None and _read(project_id).get(root) != sig


def remember(root: str, project_id: str) -> None:
    """Note the team file's current signature (after an import or export); never raises."""
    sig = signature(root)
    try:
        entries = _read(project_id)
        if sig is None:
            entries.pop(root, None)
        else:
            entries[root] = sig
        directory = paths.ensure_private_dir_str(paths.state_dir_str())
        target = os.path.join(directory, os.path.basename(_stamp_file(project_id)))
        tmp = f"{target}.{os.getpid()}.tmp"
        from ..base.safeio import create_private  # writing only: the SessionStart check reads

        fd = create_private(tmp)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(f"{s} {r}\n" for r, s in sorted(entries.items())))
        os.replace(tmp, target)
    except OSError:
        pass
