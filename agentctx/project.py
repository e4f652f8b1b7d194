"""Project namespacing (SPEC §3.4): the project id from the normalised origin remote, else the repo root."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.*)$")


@dataclass(frozen=True)
class Project:
    """Where the agent is working: the namespace id, a display name, and the repository root."""

    id: str
    name: str
    root: Path
    remote: str | None  # normalised, credentials removed


def normalize_remote(url: str) -> str:
    """`git@host:Org/Repo.git`, `ssh://git@host/Org/Repo.git` and `https://u:p@host/Org/Repo/` all give `host/org/repo`."""
    text = url.strip().lower()
    if _SCHEME.match(text):
        text = _SCHEME.sub("", text)
        host, _, path = text.partition("/")
        host = host.rpartition("@")[2]  # credentials
        host = host.split(":", 1)[0]  # port
    else:
        m = _SCP.match(text)
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
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def find_git_root(start: Path) -> tuple[Path, Path] | None:
    """The work-tree root and its git directory, found by walking up from `start` (no subprocess)."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return candidate, dot_git
        if dot_git.is_file():  # worktree or submodule: "gitdir: <path>"
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                gitdir = Path(line[len("gitdir:") :].strip())
                if not gitdir.is_absolute():
                    gitdir = (candidate / gitdir).resolve()
                common = gitdir / "commondir"
                if common.is_file():
                    try:
                        gitdir = (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
                    except OSError:
                        pass
                return candidate, gitdir
    return None


def origin_url(git_dir: Path) -> str | None:
    """The `origin` remote's url from the repository's config file, read directly (fast enough for hooks)."""
    try:
        text = (git_dir / "config").read_text(encoding="utf-8", errors="replace")
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


def detect(cwd: str | os.PathLike[str] | None = None) -> Project:
    """The project for `cwd` (default: the process cwd)."""
    start = Path(cwd) if cwd else Path.cwd()
    found = find_git_root(start)
    if found is None:
        root = start.resolve()
        return Project(id=_sha(str(root)), name=root.name or str(root), root=root, remote=None)
    root, git_dir = found
    url = origin_url(git_dir)
    if url:
        remote = normalize_remote(url)
        return Project(id=_sha(remote), name=root.name, root=root, remote=remote)
    return Project(id=_sha(str(root)), name=root.name, root=root, remote=None)
