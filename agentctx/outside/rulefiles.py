"""The repository's own rules for agents, read as anchored records so every agent gets the rule at the edit.

A Cursor rule never reaches Claude Code, a `.claude/rules` file never reaches Codex: each agent reads only its own
format. `sync` reads them all (outside/rulefmt.py parses each format), in consolidation and on `agentctx rules sync`,
never in a hook: one record per rule (type convention, confidence team, source rule_file), its globs as anchors. The
file stays the source of truth: an edit supersedes the record, a removed file retires it, an unchanged tree is not
read at all (size and mtime kept in `rule_files`), and running it twice changes nothing. Which agents already load
a rule on their own is decided in `outside.native`.

Its ~400 lines are one pass (find, bound, read, reconcile with `rule_files`, write): the walk's safety checks (real
paths inside the repository, one read per real folder) and the reconcile step share its state, so they stay here.
"""

from __future__ import annotations

import hashlib
import os
import stat

from ..base.models import BODY_MAX, TITLE_MAX, NewRecord, record_type
from . import rulefmt
from .native import rule_paths  # noqa: F401 (where callers found it; it reads titles `title_of` writes)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from ..base.models import Record
    from ..base.project import Project
    from ..store.rulefiles import RuleFileRow

# Bounds (SPEC §4.12): rule files read in one pass, bytes read of each, folders visited, folder depth for nested files.
FILES_MAX = 200
FILE_BYTES = 64 * 1024
DIRS_MAX = 5000
DEPTH_MAX = 8
# Folders never walked for nested AGENTS.md/CLAUDE.md/GEMINI.md: dependencies, build output, other VCS data. Hidden
# folders are skipped too, except `.claude` (a folder's `.claude/CLAUDE.md`) and the three whose rules we read.
SKIP_DIRS = frozenset({"node_modules", "vendor", "third_party", "dist", "build", "target", "out", "venv", "env",
                       "__pycache__", "site-packages", "bower_components", "Pods", "DerivedData"})
RULE_DIRS = ((".cursor", "rules"), (".claude", "rules"), (".github", "instructions"))
BODY_ROOM = BODY_MAX - 200  # room for the pointer to the file, and for a scrubbed secret's longer placeholder

class Candidate(record_type("Candidate", "path abspath size mtime_ns")):
    """A rule file found on disk: repository-relative POSIX path, where it is, its size and mtime."""

    __slots__ = ()


# --- finding them -----------------------------------------------------------------------------------------------


def discover(root: str) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """(rule files under `root`, skipped (path, why)): regular files only, symlinks only when they stay inside the
    repository, each real file once, at most FILES_MAX files, DIRS_MAX folders, DEPTH_MAX deep."""
    root = os.path.realpath(root)
    found: list[Candidate] = []
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()
    budget = [DIRS_MAX]

    def add(rel: str) -> None:
        if len(found) >= FILES_MAX:
            if not skipped or skipped[-1][1] != "over the limit":
                skipped.append((rel, f"over the limit of {FILES_MAX} rule files"))
            return
        path = os.path.join(root, rel)
        try:
            # The real path, whichever part of it is a link (the file, `.cursor`, `.claude/rules`): a file that lies
            # outside the repository is someone else's, never read as this repository's rule.
            real = os.path.realpath(path)
            if not _inside(root, real):
                skipped.append((rel, "a symlink that leaves the repository"))
                return
            st = os.stat(real)
        except OSError as exc:
            skipped.append((rel, exc.strerror or "unreadable"))
            return
        if not stat.S_ISREG(st.st_mode):
            skipped.append((rel, "not a regular file"))
            return
        if real in seen:
            return  # the same file under a second name: read once
        seen.add(real)
        found.append(Candidate(rel, real, st.st_size, st.st_mtime_ns))

    for first, second in RULE_DIRS:
        base = os.path.join(root, first, second)
        if not os.path.isdir(base):
            continue
        if not _inside(root, os.path.realpath(base)):  # `.cursor` or `.claude/rules` linked out of the repository
            skipped.append((f"{first}/{second}", "a symlink that leaves the repository"))
            continue
        # A folder linked to another place inside the repository is read under its own name (its format is named
        # by where the agent finds it); `seen` reads each real file once.
        for rel in _walk(root, f"{first}/{second}", budget, hidden_ok=True):
            if rulefmt.format_of(rel):
                add(rel)
    for rel in _walk(root, "", budget, hidden_ok=False, names=frozenset(rulefmt.NESTED_NAMES)):
        if rulefmt.format_of(rel):
            add(rel)
    return found, skipped


def _inside(root: str, real: str) -> bool:
    return real.startswith(root.rstrip(os.sep) + os.sep)


def _walk(root: str, start: str, budget: list[int], *, hidden_ok: bool,
          names: "frozenset[str] | None" = None) -> "list[str]":
    """Files under `start` (all of them, or only those called one of `names`), depth-first, at most budget[0]
    folders visited in all: a huge tree costs a bounded walk, not a scan of every file. In a rule folder
    (`hidden_ok`), a folder that is a link to another folder inside the repository is walked too, each real folder
    once (a link loop ends there); one that leads out of it is not."""
    out: list[str] = []
    stack = [(start, 0)]
    walked: set[str] = set()
    while stack and budget[0] > 0:
        rel, depth = stack.pop()
        budget[0] -= 1
        folders: list[str] = []
        here = os.path.realpath(os.path.join(root, rel) if rel else root)
        if here in walked:
            continue
        walked.add(here)
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                for entry in it:
                    name = entry.name
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                        if not is_dir and hidden_ok and entry.is_symlink() and entry.is_dir():
                            is_dir = _inside(root, os.path.realpath(entry.path))
                            if not is_dir:
                                continue  # a folder linked out of the repository: not this repository's rules
                    except OSError:
                        continue
                    if not is_dir:
                        if names is None or name in names:
                            out.append(f"{rel}/{name}" if rel else name)
                    elif not (depth + 1 >= DEPTH_MAX or name == ".git" or name in SKIP_DIRS
                              or (name.startswith(".") and not hidden_ok and name != ".claude")):
                        folders.append(f"{rel}/{name}" if rel else name)
        except OSError:
            continue
        stack.extend((f, depth + 1) for f in sorted(folders, reverse=True))
    return sorted(out)


def read_text(candidate: Candidate) -> tuple[bytes, str | None, str]:
    """(bytes read, text or None, why not): at most FILE_BYTES; text that is not UTF-8 is refused, not guessed."""
    from ..base.safeio import read_head

    try:
        raw = read_head(candidate.abspath, FILE_BYTES)
    except OSError as exc:
        return b"", None, exc.strerror or "unreadable"
    data = raw
    if len(raw) == FILE_BYTES:  # cut mid-file: a multi-byte character may be split at the end
        for cut in range(4):
            try:
                return raw, data[:len(data) - cut].decode("utf-8"), ""
            except UnicodeDecodeError:
                continue
    try:
        return raw, data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return raw, None, "not valid UTF-8"


# --- records ----------------------------------------------------------------------------------------------------


def title_of(paths: "list[str]", label: str) -> str:
    """`<path> (also <path>, …): <label>` cut to TITLE_MAX, the paths first so they survive the cut (native_agents
    reads them back). Other copies too long to name in full are named by their format (`.claude/rules/`)."""
    also = paths[1:]
    if also and len(paths[0]) + sum(len(p) + 2 for p in also) > TITLE_MAX // 2:
        also = list(dict.fromkeys(_format_tag(p) for p in also))
    head = paths[0] + (f" (also {', '.join(also)})" if also else "")
    title = f"{head}: {' '.join(label.split())}"
    return title if len(title) <= TITLE_MAX else title[:TITLE_MAX - 1].rstrip() + "…"


def _format_tag(path: str) -> str:
    for first, second in RULE_DIRS:
        if path.startswith(f"{first}/{second}/"):
            return f"{first}/{second}/"
    return path.rsplit("/", 1)[-1]


def body_of(rule: "rulefmt.ParsedRule") -> str:
    body = rule.body.strip() or rule.title
    if len(body) <= BODY_ROOM:
        return body
    cut = body.rfind("\n", 0, BODY_ROOM)
    cut = cut if cut > BODY_ROOM // 2 else BODY_ROOM
    return body[:cut].rstrip() + f"\n(… the rest is in {rule.path})"


def native_agents(record: "Record") -> frozenset[str]:
    """The agents that load this record's rule on their own in every session (`outside.native`, the one place this
    is decided): empty for any record that is not a rule file's."""
    from .native import native_agents as decide

    return decide(record)


def _group(parsed: "list[rulefmt.ParsedRule]") -> "list[list[rulefmt.ParsedRule]]":
    """Rules delivered the same way with the same text are one record (a team that keeps `.cursor/rules/x.mdc` and a
    copy in `.claude/rules/x.md`): the agents that load either copy natively are all skipped."""
    groups: dict[tuple[object, ...], list[rulefmt.ParsedRule]] = {}
    for rule in parsed:
        key = (rule.mode, rule.anchors, " ".join(rule.body.split()))
        groups.setdefault(key, []).append(rule)
    return list(groups.values())


def _new_record(project_id: str, group: "list[rulefmt.ParsedRule]") -> NewRecord:
    first = group[0]
    return NewRecord(type="convention", title=title_of([r.path for r in group], first.title), body=body_of(first),
                     project_id=project_id, confidence="team", source="rule_file", pinned=first.mode == "always",
                     anchors=first.anchors)


def _same(new: NewRecord, old: "Record") -> bool:
    from ..store.records import validate

    v = validate(new)
    return (v.title, v.body, v.anchors, v.pinned) == (old.title, old.body, old.anchors, old.pinned)


# --- sync -------------------------------------------------------------------------------------------------------


def sync(conn: "sqlite3.Connection", project: "Project", *, force: bool = False) -> dict[str, object]:
    """Bring the project's rule-file records in line with its rule files; returns what it did. Reads nothing when no
    rule file changed since the last pass (unless `force`); never raises for one bad file (it is skipped, named)."""
    from ..base import freshness
    from ..store import rulefiles as sql
    from ..store.db import atomic
    from ..store.rulefiles import RuleFileRow

    report: dict[str, object] = {"files": 0, "read": 0, "added": 0, "updated": 0, "retired": 0, "skipped": []}
    skipped: list[str] = []
    found, missed = discover(str(project.root))
    report["files"] = len(found)
    skipped += [f"{p}: {why}" for p, why in missed]
    report["skipped"] = skipped
    _remember(str(project.root), project.id, found)
    known = sql.rows(conn, project.id)
    if not force and {c.path: (c.size, c.mtime_ns) for c in found} == {p: (r.size, r.mtime_ns) for p, r in known.items()}:
        return report
    parsed: list[rulefmt.ParsedRule] = []
    stamp: dict[str, tuple[str, int, int]] = {}
    rows: list[RuleFileRow] = []
    for cand in found:
        raw, text, why = read_text(cand)
        report["read"] = int(report["read"]) + 1  # type: ignore[call-overload]
        digest = hashlib.sha256(raw).hexdigest()
        if text is None:  # kept as read, so an unchanged bad file is not read again at every pass
            skipped.append(f"{cand.path}: {why}")
            rows.append(RuleFileRow(cand.path, None, digest, cand.size, cand.mtime_ns,
                                    rulefmt.format_of(cand.path) or "", "unreadable"))
            continue
        try:
            rule = rulefmt.parse(cand.path, text)
        except (ValueError, RecursionError) as exc:  # a bound missed: this one file is skipped, the pass goes on
            skipped.append(f"{cand.path}: not read ({exc})")
            continue
        if rule is None:
            continue
        stamp[cand.path] = (digest, cand.size, cand.mtime_ns)
        parsed.append(rule)
        skipped.extend(f"{cand.path}: {n}" for n in rule.notes)
    # Compared and written under one write lock, the sync state read again inside it: two passes at once (a
    # consolidation and `rules sync`) write each record once.
    with freshness.deferred(conn), atomic(conn):
        known = sql.rows(conn, project.id)
        rows += _apply(conn, project.id, parsed, stamp, known, report)
        sql.save(conn, project.id, rows)
        sql.forget(conn, project.id, [p for p in known if p not in {r.path for r in rows}])
    return report


def _remember(root: str, project_id: str, found: "list[Candidate]") -> None:
    """What SessionStart compares to notice a changed rule file (`outside.rulestamp`): the files found, and the rule
    folders holding them (a file added there changes their mtime)."""
    from . import rulestamp

    folders = {f"{a}/{b}" for a, b in RULE_DIRS}
    folders |= {c.path.rsplit("/", 1)[0] for c in found if any(c.path.startswith(f + "/") for f in list(folders))}
    rulestamp.remember(os.path.realpath(root), project_id, [(c.path, c.size, c.mtime_ns) for c in found],
                       sorted(folders))


def _apply(conn: "sqlite3.Connection", project_id: str, parsed: "list[rulefmt.ParsedRule]",
           stamp: "dict[str, tuple[str, int, int]]", known: "dict[str, RuleFileRow]",
           report: dict[str, object]) -> "list[RuleFileRow]":
    """Records added, superseded or retired to match `parsed`; returns the sync rows to keep."""
    from ..base.errors import AgentctxError
    from ..store import records
    from ..store.rulefiles import RuleFileRow

    rows: "list[RuleFileRow]" = []
    kept: set[str] = set()

    def count(key: str) -> None:
        report[key] = int(report[key]) + 1  # type: ignore[call-overload]

    for group in _group([r for r in parsed if r.mode in rulefmt.DELIVERED_MODES]):
        prior = [known[r.path].record_id for r in group if r.path in known]
        old = _current_record(conn, project_id, prior)
        changed = any(r.path not in known or known[r.path].sha != stamp[r.path][0] for r in group)
        new = _new_record(project_id, group)
        try:
            if old is not None and _same(new, old):
                rid = old.id
            elif old is not None:
                rid = records.insert(conn, new, supersedes=old.id)[0].id
                count("updated")
            elif changed or not any(prior):
                rid = records.insert(conn, new)[0].id
                count("added")
            else:  # its record was retired or replaced by a person, and the file has not changed since: leave it
                rid = next(p for p in prior if p)
        except AgentctxError as exc:
            report["skipped"].append(f"{group[0].path}: {exc}")  # type: ignore[union-attr]
            continue
        kept.add(rid)
        rows.extend(RuleFileRow(r.path, rid, *stamp[r.path], r.format, r.mode) for r in group)
    rows.extend(RuleFileRow(r.path, None, *stamp[r.path], r.format, r.mode) for r in parsed
                if r.mode not in rulefmt.DELIVERED_MODES)
    for row in known.values():  # a file removed, made manual, or folded into another record: its record retires
        rid = row.record_id
        if rid and rid not in kept:
            rec = records.get(conn, rid, project_id)
            if rec is not None and rec.superseded_at is None and rec.source == "rule_file":
                records.retire(conn, rec.id, project_id)
                count("retired")
    return rows


def _current_record(conn: "sqlite3.Connection", project_id: str, ids: "list[str | None]") -> "Record | None":
    from ..store import records

    for rid in ids:
        rec = records.get(conn, rid, project_id) if rid else None
        if rec is not None and rec.superseded_at is None and rec.source == "rule_file":
            return rec
    return None


def listing(conn: "sqlite3.Connection", project_id: str) -> list[dict[str, object]]:
    """What was read and what each rule governs, for `agentctx rules`: one entry per rule file."""
    from ..store import records
    from ..store import rulefiles as sql

    out: list[dict[str, object]] = []
    for row in sql.rows(conn, project_id).values():
        rec = records.get(conn, row.record_id, project_id) if row.record_id else None
        if rec is not None and rec.superseded_at is not None:
            rec = records.head(conn, rec)
        current = rec is not None and rec.superseded_at is None
        out.append({"path": row.path, "format": row.format, "mode": row.mode, "record_id": rec.id if current else None,
                    "title": rec.title if current else None, "anchors": list(rec.anchors) if current else [],
                    "native_agents": _loaders(rec, row.path) if current else _loaders(None, row.path),
                    "governs": governs(row.mode, rec.anchors if current else ())})
    return out


def _loaders(record: "Record | None", path: str) -> list[str]:
    """Who loads a rule file themselves, in words for `agentctx rules`: `codex (sessions started in web/)` for an
    agent that loads it only from a working directory at or below its folder."""
    from .native import ALWAYS, AT_START_BELOW, of_record

    if record is not None:
        n = of_record(record)
        always, below = n.always, n.below
    else:
        fmt = rulefmt.format_of(path) or ""
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        always, below = set(ALWAYS.get(fmt, frozenset())), {a: folder for a in AT_START_BELOW.get(fmt, ())}
        always |= {a for a, f in below.items() if not f}
        below = {a: f for a, f in below.items() if f and a not in always}
    return sorted(always) + [f"{a} (in sessions started in {f}/ or below)" for a, f in sorted(below.items())]


def governs(mode: str, anchors: "tuple[str, ...]") -> str:
    """What a rule governs, in words."""
    if mode in ("globs", "directory"):
        return ", ".join(a.split(":", 1)[1] for a in anchors) or "nothing (no glob could be kept)"
    return {"always": "every session (the SessionStart digest)",
            "description": "prompts about its description (search and the prompt hook)",
            "manual": "nothing: its format applies it only when a person names it",
            "root": "nothing: its own agent loads it at start",
            "unreadable": "nothing: the file could not be read (`agentctx rules sync` says why)"}.get(mode, mode)


def describe(report: dict[str, object]) -> list[str]:
    """A sync report in words (consolidation's and `agentctx rules sync`'s)."""
    counts = [f"{report[k]} {k}" for k in ("added", "updated", "retired") if report.get(k)]
    if not report.get("read") and not counts:
        line = f"rule files: {report.get('files', 0)} unchanged, nothing read"
    elif not report.get("read"):  # every rule file is gone (or none is left to read): what it did is retire
        line = (f"rule files: {report.get('files', 0)} found, none to read, records {', '.join(counts)} "
                "(their files are gone)")
    else:
        line = f"rule files: {report.get('files', 0)} found, {report['read']} read" + (
            f", records {', '.join(counts)}" if counts else ", no record changed")
    skipped = report.get("skipped") or []
    return [line] + [f"  skipped {s}" for s in skipped]  # type: ignore[union-attr]
