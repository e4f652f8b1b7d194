"""The same repository under another project id: a changed origin URL (a fork, a rename, https to ssh through another
host name) starts a new id (SPEC §3.4). Seen here in consolidation, `status` and `doctor` (never a hook): the
checkout's root, its first commits and the ids its other remotes or its last fetch give; said in words, and joined
only by `agentctx project move`."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess

from ..base.project import Project, find_git_root, main_root, normalize_remote
from ..store import projects

GIT_TIMEOUT_S = 5.0
_REMOTE = re.compile(r'^\[\s*remote\s+"([^"]+)"\s*\]$')


def _sha(text: str) -> str:
    from ..base.ids import sha256_hex

    return sha256_hex(text)


def root_commits(root: str) -> tuple[str, ...]:
    """The repository's first commits (`git rev-list --max-parents=0 HEAD`): what a fork or a renamed repository
    keeps whatever its URL. Empty outside git, before the first commit, or when git does not answer in time."""
    try:
        done = subprocess.run(["git", "-C", root, "rev-list", "--max-parents=0", "HEAD"], capture_output=True,
                              timeout=GIT_TIMEOUT_S, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if done.returncode != 0:
        return ()
    found = [c for c in done.stdout.decode("ascii", "replace").split() if re.fullmatch(r"[0-9a-f]{40,64}", c)]
    return tuple(sorted(found)[:projects.ROOT_COMMITS_MAX])


def _read(path: str, limit: int) -> str:
    from ..base.safeio import read_head

    try:  # the repository's files: bounded, regular files only
        return read_head(path, limit).decode("utf-8", "replace")
    except OSError:
        return ""


def other_urls(git_dir: str) -> list[str]:
    """Every remote URL the repository names but origin's: its other remotes (`upstream` after a fork), push
    URLs, and where its last fetch came from (FETCH_HEAD keeps the old origin until the next fetch)."""
    from ..base.project import CONFIG_READ_LIMIT, origin_url

    origin = origin_url(git_dir)
    urls: list[str] = []
    name = None
    for raw in _read(os.path.join(git_dir, "config"), CONFIG_READ_LIMIT).splitlines():
        line = raw.strip()
        if line.startswith("["):
            m = _REMOTE.match(line)
            name = m.group(1) if m else None
            continue
        key, sep, value = line.partition("=")
        if name is not None and sep and key.strip().lower() in ("url", "pushurl"):
            urls.append(value.strip().strip('"'))
    for line in _read(os.path.join(git_dir, "FETCH_HEAD"), 64 * 1024).splitlines()[:200]:
        _, sep, url = line.rpartition(" of ")
        if sep and url.strip():
            urls.append(url.strip())
    return [u for u in dict.fromkeys(urls) if u and u != origin]


def seen(project: Project) -> projects.Seen | None:
    """How the checkout is seen now, or None outside git."""
    found = find_git_root(str(project.root))
    if found is None:
        return None
    root, git_dir = found
    also = {_sha(normalize_remote(u)) for u in other_urls(git_dir)}
    if project.remote:  # the id it had before it had an origin (or would have without one)
        also.add(_sha(main_root(root, git_dir)))
    also.discard(project.id)
    return projects.Seen(project.id, root, project.remote, root_commits(root), tuple(sorted(also)))


def observe(conn: sqlite3.Connection, project: Project) -> list[projects.Same]:
    """Remember how the project is seen, and return the other projects that are this repository (with records)."""
    now = seen(project)
    if now is None:
        return []
    projects.remember(conn, now)
    return projects.same_repository(conn, project.id)


_WHY = {"checkout": "this checkout, under an earlier origin", "remote": "another remote of this checkout",
        "commit": "a repository with the same first commit (a fork or another clone)"}


def describe(same: projects.Same) -> str:
    """One line: which project, how many records, how we know, and the command that joins them."""
    name = same.remote or same.root_dir or same.project_id[:12]
    return (f"{same.records} record{'' if same.records == 1 else 's'} of this repository are under another project "
            f"id: {name} ({_WHY[same.why]}); `agentctx project move --from {same.project_id[:12]}` joins them here")


def short(same: projects.Same) -> str:
    """The SessionStart form: shorter, for the agent's status line."""
    name = same.remote or same.project_id[:12]
    return f"{same.records} records of this repository are under {name}: `agentctx project move`"


def move(conn: sqlite3.Connection, project: Project, old_id: str) -> dict[str, object]:
    """Join project `old_id` into `project`: its records and rows (store.projects.move), its import ledger, and its
    derived files (digest, anchor map: rebuilt for `project`, removed for the old id)."""
    from ..base import freshness, paths

    counts = projects.move(conn, old_id, project.id)
    for ledger in ("claude-memory",):  # what was imported before is not proposed again under the new id
        src = os.path.join(paths.home_dir(), "imports", f"{ledger}-{paths._safe(old_id)}.txt")
        dst = os.path.join(paths.home_dir(), "imports", f"{ledger}-{paths._safe(project.id)}.txt")
        try:
            with open(src, encoding="utf-8") as fh:
                keys = fh.read()
            fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as out:
                out.write(keys)
            os.unlink(src)
        except OSError:
            pass
    for stale in (paths.digest_file(old_id), paths.anchor_map_file(old_id)):
        try:
            os.unlink(stale)
        except OSError:
            pass
    observe(conn, project)
    freshness.changed(conn, project.id)
    return {"from": old_id, "to": project.id, **counts}
