"""Project namespacing (SPEC §3.4): the project id from the normalised origin remote, else the repo root."""

from __future__ import annotations

import os
import re
from .models import record_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# Patterns are compiled on first use (re's cache): the hooks usually read the id without normalising a URL.
_SCHEME = r"^[a-z][a-z0-9+.-]*://"
_SCP = r"^(?:[^@/]+@)?([^:/]+):(?!//)(.*)$"


class Project(record_type("Project", "id name root_dir remote")):
    """Where the agent is working: the namespace id, a display name, the repository root (`root_dir`, a string;
    `root`, a Path), and the normalised remote without credentials (or None)."""

    __slots__ = ()

    @property
    def root(self) -> "Path":
        from pathlib import Path

        return Path(self.root_dir)


def normalize_remote(url: str) -> str:
    """`git@host:Org/Repo.git`, `ssh://git@host/Org/Repo.git` and `https://u:p@host/Org/Repo/` all give `host/org/repo`."""
    text = url.strip().lower()
    if re.match(_SCHEME, text, re.IGNORECASE):
        text = re.sub(_SCHEME, "", text, flags=re.IGNORECASE)
        host, _, path = text.partition("/")
        host = host.rpartition("@")[2]  # credentials
        host = host.split(":", 1)[0]  # port
    else:
        m = re.match(_SCP, text)
        if m:
            host, path = m.group(1), m.group(2)
        else:  # a local path used as a remote
            host, path = "", text
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    path = re.sub(r"/+", "/", path).strip("/")
    return f"{host}/{path}" if host else path


def _sha(text: str) -> str:
    from .ids import sha256_hex

    return sha256_hex(text)


# Bounds on reading the repository's git files (they are the repository's, not ours): a `.git` pointer file or
# `commondir` holds one path; a config larger than this keeps only its first part (origin is usually near the top).
POINTER_READ_LIMIT = 64 * 1024
CONFIG_READ_LIMIT = 1024 * 1024


def _read_small(path: str) -> str:
    from .safeio import read_head

    return read_head(path, POINTER_READ_LIMIT).decode("utf-8", "replace").strip()


def find_git_root(start: "str | os.PathLike[str]") -> tuple[str, str] | None:
    """The work-tree root and its git directory (strings), found by walking up from `start` (no subprocess).

    os.path rather than pathlib: this runs in every hook, where importing pathlib costs ~3 ms.
    """
    here = os.path.realpath(os.fspath(start))
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            return here, dot_git
        if os.path.isfile(dot_git):  # worktree or submodule: "gitdir: <path>"
            try:  # the repository's files, not ours: a regular file only, a bounded read (safeio)
                line = _read_small(dot_git)
            except OSError:
                return None
            if line.startswith("gitdir:"):
                gitdir = os.path.realpath(os.path.join(here, line[len("gitdir:"):].strip()))
                common = os.path.join(gitdir, "commondir")
                if os.path.isfile(common):
                    try:
                        gitdir = os.path.realpath(os.path.join(gitdir, _read_small(common)))
                    except OSError:
                        pass
                return here, gitdir
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def origin_url(git_dir: "str | os.PathLike[str]") -> str | None:
    """The `origin` remote's url from the repository's config file, read directly (fast enough for hooks)."""
    from .safeio import read_head

    try:  # a FIFO or a link to /dev/zero planted as .git/config must not hang or exhaust a hook
        text = read_head(os.path.join(git_dir, "config"), CONFIG_READ_LIMIT).decode("utf-8", "replace")
    except OSError:
        return None
    in_origin = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            in_origin = re.match(r'^\[\s*remote\s+"origin"\s*\]$', line) is not None
            continue
        if in_origin:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "url":
                return value.strip().strip('"') or None
    return None


def detect(cwd: "str | os.PathLike[str] | None" = None) -> Project:
    """The project for `cwd` (default: the process cwd)."""
    start = os.fspath(cwd) if cwd else os.getcwd()
    found = find_git_root(start)
    if found is None:
        root = os.path.realpath(start)
        return Project(id=_sha(root), name=os.path.basename(root) or root, root_dir=root, remote=None)
    root, git_dir = found
    url = origin_url(git_dir)
    name = os.path.basename(root) or root
    if url:
        remote = normalize_remote(url)
        return Project(id=_sha(remote), name=name, root_dir=root, remote=remote)
    return Project(id=_sha(main_root(root, git_dir)), name=name, root_dir=root, remote=None)


def main_root(root: str, git_dir: str) -> str:
    """The path a repository without a remote is known by: for a linked worktree (`git worktree add`) its main
    work tree (the parent of the shared `.git` directory), or the shared git directory of a bare repository; else
    the work-tree root itself. So every worktree of one repository is one project, and a plain repository keeps
    the id it always had."""
    dot_git = os.path.join(root, ".git")
    if not os.path.isfile(dot_git):
        return root
    if os.path.basename(git_dir) == ".git":  # find_git_root followed `commondir` to the main checkout's .git
        return os.path.dirname(git_dir)
    if os.path.isfile(os.path.join(git_dir, "HEAD")) and os.path.isdir(os.path.join(git_dir, "worktrees")):
        return git_dir  # the shared directory of a bare repository with worktrees
    return root  # a submodule (its own git directory under the superproject's .git/modules)
