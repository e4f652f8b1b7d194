"""Which repository each project id was seen as (checkout, remote, first commits), and moving one project's memory
under another id when they are one repository (SPEC §3.4: a changed origin URL gives a new id)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import NamedTuple

from ..base.errors import UsageError
from ..base.ids import now_iso
from ..base.models import GLOBAL_PROJECT
from .db import atomic

# Tables whose rows belong to a project and move with it as they are (the others are merged below).
_PLAIN = ("sessions", "injections", "prompts", "extraction_calls")
ROOT_COMMITS_MAX = 8


class Seen(NamedTuple):
    """One project id as a checkout was seen: its root, its remote (or None), its first commits, and the ids its
    other remotes (or an earlier origin) would give."""

    project_id: str
    root_dir: str
    remote: str | None
    root_commits: tuple[str, ...]
    also: tuple[str, ...]


class Same(NamedTuple):
    """Another project id that is this repository, with how many current records it holds and how we know."""

    project_id: str
    remote: str | None
    root_dir: str | None
    records: int
    why: str  # "checkout" (this checkout, another origin), "remote" (another remote's id), "commit" (same first commit)


def remember(conn: sqlite3.Connection, seen: Seen) -> None:
    with atomic(conn):
        conn.execute("INSERT OR REPLACE INTO project_roots (project_id, root_dir, remote, root_commits, also, seen_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     (seen.project_id, seen.root_dir, seen.remote,
                      " ".join(seen.root_commits[:ROOT_COMMITS_MAX]), " ".join(seen.also), now_iso()))


def _seen(conn: sqlite3.Connection, where: str, args: tuple[object, ...]) -> list[Seen]:
    rows = conn.execute(f"SELECT project_id, root_dir, remote, root_commits, also FROM project_roots WHERE {where}",
                        args)
    return [Seen(p, d, r, tuple((c or "").split()), tuple((a or "").split())) for p, d, r, c, a in rows]


def _counts(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, int]:
    wanted = sorted(set(ids) - {GLOBAL_PROJECT})
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    return {str(p): int(n) for p, n in conn.execute(
        f"SELECT project_id, count(*) FROM records WHERE project_id IN ({marks}) AND superseded_at IS NULL "
        "GROUP BY project_id", wanted)}


def same_repository(conn: sqlite3.Connection, project_id: str) -> list[Same]:
    """The other project ids, holding current records, that are the repository `project_id` was last seen as: the
    same checkout under another origin, an id one of its other remotes gives, or one sharing its first commit (a
    fork, or another clone: said, never joined without `agentctx project move`). Best evidence first."""
    mine = _seen(conn, "project_id = ?", (project_id,))
    if not mine:
        return []
    roots = {s.root_dir for s in mine}
    commits = {c for s in mine for c in s.root_commits}
    also = {a for s in mine for a in s.also} - {project_id}
    others = [s for s in _seen(conn, "project_id != ?", (project_id,))]
    why: dict[str, str] = {}
    for s in others:
        if s.root_dir in roots:
            why.setdefault(s.project_id, "checkout")
    for pid in also:
        why.setdefault(pid, "remote")
    for s in others:
        if commits & set(s.root_commits):
            why.setdefault(s.project_id, "commit")
    counts = _counts(conn, why)
    by_id = {s.project_id: s for s in others}
    order = {"checkout": 0, "remote": 1, "commit": 2}
    out = [Same(pid, by_id[pid].remote if pid in by_id else None, by_id[pid].root_dir if pid in by_id else None,
                counts[pid], w) for pid, w in why.items() if counts.get(pid)]
    return sorted(out, key=lambda s: (order[s.why], -s.records, s.project_id))


def resolve(conn: sqlite3.Connection, project_id: str, given: str) -> str:
    """The project id `given` names for `project move --from`: an id (or a unique prefix of 8+ characters), or a
    remote as `status` shows it; UsageError when it names none or several."""
    text = given.strip()
    if not text:
        raise UsageError("invalid_field", field="--from", problem="names no project")
    from ..base.project import normalize_remote

    ids = {str(r[0]) for r in conn.execute("SELECT DISTINCT project_id FROM records WHERE project_id != ?",
                                           (GLOBAL_PROJECT,))}
    ids |= {str(r[0]) for r in conn.execute("SELECT project_id FROM project_roots")}
    if text in ids:
        return text
    hits = {p for p in ids if len(text) >= 8 and p.startswith(text.lower())}
    remote = normalize_remote(text)
    hits |= {str(r[0]) for r in conn.execute("SELECT project_id FROM project_roots WHERE remote = ?", (remote,))}
    from ..base.ids import sha256_hex

    if sha256_hex(remote) in ids:
        hits.add(sha256_hex(remote))
    hits.discard(project_id)
    if len(hits) == 1:
        return hits.pop()
    if not hits:
        raise UsageError("invalid_field", field="--from", problem=f"{given!r} names no other project in the store")
    raise UsageError("invalid_field", field="--from", problem=f"{given!r} names {len(hits)} projects: give the id")


def move(conn: sqlite3.Connection, old: str, new: str) -> dict[str, int]:
    """Every record and row of project `old` moved under `new`, in one transaction; the history is the old
    project's: where both hold the same rule file, agent memory line or team entry, `old`'s row and record stay and
    `new`'s duplicate record is retired. Returns counts."""
    if old == new:
        raise UsageError("invalid_field", field="--from", problem="is this project already")
    if GLOBAL_PROJECT in (old, new):
        raise UsageError("invalid_field", field="--from", problem="global records belong to no project")
    retired: list[str] = []
    with atomic(conn):
        moved = conn.execute("UPDATE records SET project_id = ? WHERE project_id = ?", (new, old)).rowcount
        for table in _PLAIN:
            conn.execute(f"UPDATE {table} SET project_id = ? WHERE project_id = ?", (new, old))
        _merge_nodes(conn, old, new)
        retired += _keep_old(conn, "rule_files", ("path",), old, new)
        retired += _keep_old(conn, "team_sync", ("key",), old, new)
        conn.execute("INSERT OR IGNORE INTO team_versions (project_id, key, hash) SELECT ?, key, hash "
                     "FROM team_versions WHERE project_id = ?", (new, old))
        conn.execute("DELETE FROM team_versions WHERE project_id = ?", (old,))
        _keep_old(conn, "team_files", ("path",), old, new)
        retired += _agent_memory(conn, old, new)
        conn.execute("DELETE FROM agent_memory_skip WHERE project_id IN (?, ?)", (old, new))  # derived: next pass
        conn.execute("DELETE FROM project_roots WHERE project_id = ?", (old,))
        now = now_iso()
        for rid in dict.fromkeys(retired):
            conn.execute("UPDATE records SET superseded_at = ? WHERE id = ? AND superseded_at IS NULL", (now, rid))
    return {"records": moved, "duplicates_retired": len(set(retired))}


def _keep_old(conn: sqlite3.Connection, table: str, key: tuple[str, ...], old: str, new: str) -> list[str]:
    """`new`'s rows that `old` also has (same key) are dropped, their records returned to retire (when another
    record than old's); the rest of `old`'s rows move."""
    cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    match = " AND ".join(f"o.{k} = n.{k}" for k in key)
    retire: list[str] = []
    if "record_id" in cols:
        retire = [str(r[0]) for r in conn.execute(
            f"SELECT n.record_id FROM {table} n JOIN {table} o ON {match} AND o.project_id = ? "
            "WHERE n.project_id = ? AND n.record_id IS NOT NULL AND n.record_id IS NOT o.record_id", (old, new))]
    conn.execute(f"DELETE FROM {table} AS n WHERE n.project_id = ? AND EXISTS (SELECT 1 FROM {table} o "
                 f"WHERE o.project_id = ? AND {match})", (new, old))
    conn.execute(f"UPDATE {table} SET project_id = ? WHERE project_id = ?", (new, old))
    return retire


def _agent_memory(conn: sqlite3.Connection, old: str, new: str) -> list[str]:
    """The agents' memory lines both projects read: old's rows stay, new's duplicate rows go with their records."""
    dup = list(conn.execute(
        "SELECT n.id, n.record_id FROM agent_memory n JOIN agent_memory o ON o.project_id = ? AND o.agent = n.agent "
        "AND o.path = n.path AND o.hash = n.hash WHERE n.project_id = ?", (old, new)))
    kept = {str(r[0]) for r in conn.execute("SELECT record_id FROM agent_memory WHERE project_id = ?", (old,))}
    conn.executemany("DELETE FROM agent_memory WHERE id = ?", [(i,) for i, _ in dup])
    conn.execute("UPDATE agent_memory SET project_id = ? WHERE project_id = ?", (new, old))
    return [str(rid) for _, rid in dup if str(rid) not in kept]


def _merge_nodes(conn: sqlite3.Connection, old: str, new: str) -> None:
    """File and branch nodes are unique per project: one both have keeps `new`'s id, old's links and edges join it."""
    pairs = list(conn.execute(
        "SELECT o.id, n.id FROM nodes o JOIN nodes n ON n.project_id = ? AND n.kind = o.kind AND n.name = o.name "
        "WHERE o.project_id = ?", (new, old)))
    for old_node, new_node in pairs:
        conn.execute("UPDATE OR IGNORE record_entities SET entity_id = ? WHERE entity_id = ?", (new_node, old_node))
        conn.execute("DELETE FROM record_entities WHERE entity_id = ?", (old_node,))
        conn.execute("UPDATE OR IGNORE edges SET from_id = ? WHERE from_id = ?", (new_node, old_node))
        conn.execute("UPDATE OR IGNORE edges SET to_id = ? WHERE to_id = ?", (new_node, old_node))
        conn.execute("DELETE FROM edges WHERE from_id = ? OR to_id = ?", (old_node, old_node))
        conn.execute("DELETE FROM nodes WHERE id = ?", (old_node,))
    conn.execute("UPDATE nodes SET project_id = ? WHERE project_id = ?", (new, old))
