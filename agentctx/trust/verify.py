"""Records checked against the code (consolidation's step, never a hook): fingerprint what new records name, re-check
every fingerprint, follow renames, mark what changed `unverified` with the reason, clear what came back."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from ..base import freshness
from ..base.models import Record
from ..base.project import Project
from ..store import records, trust
from . import codecheck

# Wall-clock budget of one verification pass inside consolidation (itself bounded at 120 s, SPEC §1.1); what is not
# checked in time is checked at the next pass (the order is the store's, so a pass always gets through its start).
BUDGET_S = 20.0
RENAME_BASES_MAX = 32  # distinct fingerprint commits rename detection diffs from, per pass
NOTHING = ""  # the path of a record's placeholder row: it names no file this repository has (looked at once)


def flag(reason: str) -> str:
    """What follows an unverified record's title wherever it is shown: " (code changed since: a.py, b.py)"."""
    return trust.flag(reason)


def _reason(problems: list[tuple[str, str, float]]) -> str:
    words = {"deleted": "deleted", "symbol_gone": "{sym} gone", "rewritten": "rewritten ({pct}% of its lines remain)"}
    parts = []
    for path, verdict, share in problems:
        sym, _, why = verdict.partition("|")
        text = words.get(why or sym, why or sym).format(sym=sym if why else "", pct=int(round(share * 100)))
        parts.append(f"{path}: {text}")
    return "; ".join(parts)


def _cached(read: Any) -> Any:
    """`read` (path -> bytes or None) once per path, as a `codecheck.Content` (blob and line hashes computed once)."""
    seen: dict[str, codecheck.Content | None] = {}

    def get(path: str) -> codecheck.Content | None:
        if path not in seen:
            seen[path] = codecheck.as_content(read(path))
        return seen[path]

    return get


def _epoch(iso: str) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return None


class _Then:
    """The code as it was when each record was written: HEAD's commit at that time (`WorkTree.head_at`), its files
    listed and read through git once per commit (at most RENAME_BASES_MAX commits a pass; the rest use today's)."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree  # None: today's code only
        self.now = tree.commit if tree is not None else ""
        self._listed: dict[str, set[str]] = {}

    def commit_for(self, record: Record) -> str:
        if self.tree is None:
            return self.now
        head_at = getattr(self.tree, "head_at", None)  # a CommitTree (the replay bench) has no history to ask
        when = _epoch(record.recorded_at)
        if head_at is None or when is None:
            return self.tree.commit
        return head_at(when) or self.tree.commit

    def paths(self, commit: str) -> set[str]:
        if not commit or self.tree is None or getattr(self.tree, "at", None) is None:
            return set()
        if commit not in self._listed:
            if len(self._listed) >= RENAME_BASES_MAX:
                return set()
            then = self.tree.at(commit)
            self._listed[commit] = set(then.tracked().paths) if then is not None else set()
        return self._listed[commit]

    def read(self, commit: str, path: str) -> codecheck.Content | None:
        if path not in self.paths(commit):
            return None
        then = self.tree.at(commit)
        return codecheck.as_content(then.read(path)) if then is not None else None


def fingerprint_new(conn: sqlite3.Connection, project_id: str, tree: Any, tracked: codecheck.Tracked,
                    read: Any, deadline: float, *, as_written: bool = True) -> int:
    """Fingerprint the current records not looked at yet: each file they name as it was when the record was written
    (HEAD's commit then, read through git: a file renamed or deleted before this pass is still fingerprinted, so the
    check that follows sees the rename or the deletion), or as it is now when HEAD has not moved since and the file
    is there (uncommitted work the record describes). A record that names none gets a placeholder row, so its body
    is read once. `as_written` False: the code as it is now (a record the user vouched for again)."""
    read = _cached(read)
    then = _Then(tree if as_written else None)
    rows = []
    looked = 0
    try:
        for record in trust.unfingerprinted(conn, project_id):
            if time.monotonic() > deadline:
                break
            looked += 1
            base = then.commit_for(record) or tree.commit
            old_paths = then.paths(base)
            known = tracked if not old_paths else codecheck.Tracked(tracked.paths | old_paths, tracked.roots)
            made = 0
            for path, span, symbols in codecheck.named_in(record.body, record.anchors, known):
                data = (read(path) if base == tree.commit else None) or then.read(base, path) or read(path)
                if data is None:
                    continue
                blob, sketch, lines, symbol = codecheck.fingerprint(data, span, symbols)
                rows.append((record.id, path, blob, sketch, lines, symbol, base))
                made += 1
            if not made:
                rows.append((record.id, NOTHING, "", "", "", "", tree.commit))
    finally:
        if hasattr(tree, "at"):  # the commits read for this pass (a CommitTree's own reader stays for the check)
            tree.close()
    trust.save_fingerprints(conn, rows)
    return sum(1 for r in rows if r[1] != NOTHING)


def check_all(conn: sqlite3.Connection, project_id: str, tree: Any, read: Any, deadline: float,
              record_ids: list[str] | None = None) -> dict[str, int]:
    """Re-check the fingerprints of the project's current records; returns counts (checked, renamed, flagged,
    cleared, left for the next pass)."""
    read = _cached(read)
    fps = [f for f in trust.fingerprints(conn, project_id, record_ids) if f[1] != NOTHING]
    missing_bases = {}
    for rid, path, *_rest, commit in fps:
        if commit and read(path) is None:
            missing_bases[commit] = missing_bases.get(commit, 0) + 1
    moves: dict[str, dict[str, str]] = {}
    for commit, _n in sorted(missing_bases.items(), key=lambda kv: -kv[1])[:RENAME_BASES_MAX]:
        if time.monotonic() > deadline:
            break
        moves[commit] = tree.renames(commit)
    problems: dict[str, list[tuple[str, str, float]]] = {}
    checked: set[str] = set()
    renamed = left = 0
    for rid, path, blob, sketch, _lines, symbol, commit in fps:
        if time.monotonic() > deadline:
            left += 1
            continue
        checked.add(rid)
        data = read(path)
        if data is None:
            new = moves.get(commit, {}).get(path)
            seen = {path}
            while new and new not in seen and read(new) is None:  # renamed more than once
                seen.add(new)
                new = moves.get(commit, {}).get(new)
            if new and read(new) is not None:
                record = records.get(conn, rid)
                if record is not None:
                    trust.follow_rename(conn, record, path, new)
                    renamed += 1
                path, data = new, read(new)
        verdict, share = codecheck.check(data, blob, sketch, symbol)
        if verdict in ("deleted", "rewritten", "symbol_gone"):
            problems.setdefault(rid, []).append((path, f"{symbol}|{verdict}" if verdict == "symbol_gone" else verdict,
                                                 share))
    marks = trust.marks_for(conn, checked)
    flagged = cleared = 0
    for rid in checked:
        had = marks.get(rid, {}).get("unverified")
        if rid in problems:
            reason = _reason(problems[rid])
            if reason != had:
                trust.set_mark(conn, rid, "unverified", reason)
                flagged += had is None
        elif had is not None:
            trust.clear_mark(conn, rid, "unverified")  # the code came back
            cleared += 1
    return {"checked": len(checked), "renamed": renamed, "flagged": flagged, "cleared": cleared, "left": left}


def run(conn: sqlite3.Connection, project: Project, *, budget_s: float = BUDGET_S) -> dict[str, Any] | str:
    """Consolidation's verification pass over one project's repository (the work tree as it is now)."""
    tree = codecheck.WorkTree(str(project.root))
    if not tree.is_git:
        return "skipped (not a git repository)"
    deadline = time.monotonic() + budget_s
    read = _cached(tree.read)  # one read per file for both steps
    made = fingerprint_new(conn, project.id, tree, tree.tracked(), read, deadline)
    report: dict[str, Any] = {"fingerprinted": made, **check_all(conn, project.id, tree, read, deadline)}
    if report["flagged"] or report["cleared"] or report["renamed"]:
        freshness.changed(conn, project.id)  # the digest and the anchor map show the flags
    return report


def reverify(conn: sqlite3.Connection, project: Project, record: Record) -> dict[str, Any]:
    """The user vouches for a record whose code changed: its fingerprints are taken again from the code as it is now
    and its `unverified` mark is cleared (review's confirm, `agentctx verify ID`)."""
    trust.drop_fingerprints(conn, record.id)
    had = trust.clear_mark(conn, record.id, "unverified")
    made = 0
    tree = codecheck.WorkTree(str(project.root))
    if tree.is_git:
        made = fingerprint_new(conn, project.id, tree, tree.tracked(), tree.read, time.monotonic() + BUDGET_S,
                               as_written=False)
    freshness.changed(conn, record.project_id)
    return {"id": record.id, "cleared": had, "fingerprinted": made}


def describe(report: dict[str, Any]) -> str:
    parts = [f"{report['checked']} records checked against the code"]
    for key, words in (("fingerprinted", "files fingerprinted"), ("renamed", "followed a rename"),
                       ("flagged", "newly unverified"), ("cleared", "verified again"), ("left", "left for next time")):
        if report.get(key):
            parts.append(f"{report[key]} {words}")
    return ", ".join(parts)
