"""One memory with the agents' own: every agent's own memory file read into the store as inferred records with their
provenance, continuously (consolidation runs it): nothing twice, an edited line supersedes its record, a removed line
retires it; and the records each agent already loads itself, left out of its sessions (SPEC §3.10)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from ..agents import LABELS
from . import memdirs, memfiles
from ..base.ids import now_iso
from ..base.models import BODY_MAX, GLOBAL_PROJECT, NewRecord, Record
from ..base.project import Project
from ..store import agentmem as store
from ..store import records

SOURCE = "agent_memory"
MIN_WORDS = 3  # a bare link or a label: nothing to remember
EDIT_SIMILARITY = 0.3  # a changed line in the same file sharing this share of words with a gone one is its edit
SAME_AS_LOADED = 0.8  # a record saying what a loaded line says (drift's weighted coverage): delivered by the agent
DUPLICATE = 0.8  # Jaccard on words: the store already says it (as `import claude-memory`'s dedup)
SAME_TYPES = ("decision", "convention", "preference", "discovery", "bugfix")
PREFIX = 5  # word prefix compared by the cheap bound before the matcher (`_could_match`)
TITLE_SHARE = 0.4  # the bound: at least this share of a record's title words on some loaded line
SAME_LIMIT = 20000  # current records compared with an agent's loaded lines, newest first
INSTRUCTION_FILE = {"claude": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md"}  # what each loads itself
MARK = "\n\n(From "


@dataclass
class Report:
    """What one pass did, per agent, and what it could not read."""

    imported: dict[str, int] = field(default_factory=dict)
    linked: dict[str, int] = field(default_factory=dict)  # a fact the store already held: provenance added only
    superseded: dict[str, int] = field(default_factory=dict)
    retired: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    skipped_in_sessions: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def count(self, what: dict[str, int], agent: str, n: int = 1) -> None:
        what[agent] = what.get(agent, 0) + n

    def to_dict(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if v}

    def changed(self) -> bool:
        return bool(self.imported or self.linked or self.superseded or self.retired)


def _text(unit: memfiles.Unit) -> str | None:
    from ..stash.redact import scrub_text

    text = scrub_text(unit.text.strip())
    return text if len(memfiles.words(text)) >= MIN_WORDS else None


def body_of(text: str, unit: memfiles.Unit) -> str:
    section = f", section {memfiles.plain(unit.heading)}" if unit.heading else ""
    where = f"{MARK}{memfiles.AGENT_FILES[unit.agent]}: {unit.path}:{unit.line}{section}.)"
    if len(text) + len(where) > BODY_MAX:  # keep where it came from
        text = text[: BODY_MAX - len(where) - 1].rstrip() + "…"
    return text + where


def statement(record: Record) -> str:
    """A record's fact without the provenance line this module adds."""
    return record.body.split(MARK, 1)[0]


class _Known:
    """The current records a project sees, indexed for "the store already says it" (built on the first new fact:
    a pass with nothing new reads no record)."""

    def __init__(self, conn: sqlite3.Connection, project_id: str) -> None:
        self.conn, self.project_id = conn, project_id
        self._rows: list | None = None

    @property
    def rows(self) -> list:
        if self._rows is None:
            self._rows, self._keys, self._postings = [], {}, {}
            for r in records.current(self.conn, self.project_id):
                self.add(r)
        return self._rows

    def find(self, text: str, namespace: str, *, exclude: str | None = None) -> Record | None:
        rows = self.rows
        k, w = memfiles.key(text), memfiles.words(text)
        for i in self._keys.get(k, ()):
            if rows[i][0].project_id == namespace and rows[i][0].id != exclude:
                return rows[i][0]
        shared: dict[int, int] = {}  # records sharing words with the fact, by how many (postings, not a full scan)
        for word in w:
            for i in self._postings.get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        for i, n in sorted(shared.items(), key=lambda item: -item[1]):
            r, stored = rows[i][0], rows[i][1]
            if n < DUPLICATE * len(w):
                break  # Jaccard >= 0.8 needs at least 0.8 of the fact's words shared
            if r.project_id == namespace and r.id != exclude and n / len(w | stored) >= DUPLICATE:
                return r
        return None

    def add(self, r: Record) -> None:
        if self._rows is None:
            return  # not built yet: it will read the record with the others
        first = statement(r).split("\n\n", 1)[0]
        i = len(self._rows)
        stored = memfiles.words(f"{r.title} {first}")
        self._rows.append((r, stored))
        for k in (memfiles.key(first), memfiles.key(r.title)):
            self._keys.setdefault(k, []).append(i)
        for word in stored:
            self._postings.setdefault(word, []).append(i)


def _similar(a: str, b: str) -> float:
    wa, wb = memfiles.words(a), memfiles.words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 0.0


def _namespace(project: Project, unit: memfiles.Unit) -> str:
    return GLOBAL_PROJECT if unit.scope == "global" else project.id


def _new(conn: sqlite3.Connection, project: Project, unit: memfiles.Unit, text: str, known: _Known,
         report: Report, now: str, *, exclude: str | None = None) -> None:
    namespace = _namespace(project, unit)
    same = known.find(text, namespace, exclude=exclude)
    if same is not None:
        store.add(conn, namespace, same.id, unit.agent, unit.path, unit.line, unit.hash, unit.loaded, now)
        report.count(report.linked, unit.agent)
        return
    kind = unit.kind or memfiles.classify(text, rules=False)
    if unit.scope == "global" and kind not in ("preference", "convention"):
        kind = "preference"  # a personal fact for every project: the store keeps global records as preferences
    record, _ = records.insert(conn, NewRecord(
        type=kind, title=unit.title or memfiles.title(text, unit.heading), body=body_of(text, unit),
        project_id=namespace, scope="global" if unit.scope == "global" else "project", confidence="inferred",
        source=SOURCE))
    store.add(conn, namespace, record.id, unit.agent, unit.path, unit.line, unit.hash, unit.loaded, now)
    known.add(record)
    report.count(report.imported, unit.agent)


def _edit(conn: sqlite3.Connection, row: object, unit: memfiles.Unit, text: str, report: Report, now: str) -> bool:
    """Supersede the record of a gone line by its edited text; False when the record is no longer the head."""
    old = records.get(conn, row.record_id)  # type: ignore[attr-defined]
    if old is None or not old.is_current or old.source != SOURCE:
        return False  # a record someone else wrote (linked, not ours): the edited line is a new fact
    new = NewRecord(type=old.type, title=unit.title or memfiles.title(text, unit.heading), body=body_of(text, unit),
                    project_id=old.project_id, scope=old.scope, confidence="inferred", source=SOURCE,
                    questions=old.questions, aliases=old.aliases)
    record, _ = records.insert(conn, new, supersedes=old.id)
    store.gone(conn, [row.id], now)  # type: ignore[attr-defined]
    store.add(conn, old.project_id, record.id, unit.agent, unit.path, unit.line, unit.hash, unit.loaded, now)
    report.count(report.superseded, unit.agent)
    return True


def _retire(conn: sqlite3.Connection, row: object, report: Report, now: str) -> None:
    """The line left its file: its record retires when this reader wrote it, nothing else stands for it and the
    user has not confirmed it (a confirmed fact is the user's now, whatever the agent forgot)."""
    store.gone(conn, [row.id], now)  # type: ignore[attr-defined]
    record = records.get(conn, row.record_id)  # type: ignore[attr-defined]
    if (record is None or not record.is_current or record.source != SOURCE or record.confidence == "explicit"
            or store.others_live(conn, record.id, row.id)):  # type: ignore[attr-defined]
        return
    records.retire(conn, record.id, record.project_id)
    report.count(report.retired, row.agent)  # type: ignore[attr-defined]


def _file(conn: sqlite3.Connection, project: Project, rows: list, units: list[tuple[memfiles.Unit, str]],
          known: _Known, report: Report, now: str, *, complete: bool) -> None:
    """One file: unchanged lines (by hash) keep their record, gone lines pair with new ones as edits, the rest
    are new facts or retire; `complete` False (the file was cut or not read): nothing retires."""
    by_hash: dict[str, list] = {}
    for row in rows:
        by_hash.setdefault(row.hash, []).append(row)
    fresh: list[tuple[memfiles.Unit, str]] = []
    still = []
    for unit, text in units:
        matches = by_hash.get(unit.hash)
        if matches:
            row = matches.pop(0)
            still.append((row.id, unit.line, unit.loaded))
            report.count(report.unchanged, unit.agent)
        else:
            fresh.append((unit, text))
    store.seen(conn, still, now)
    left = [row for group in by_hash.values() for row in group]
    replaced: dict[int, str] = {}
    if left and fresh:
        texts = {row.id: statement(r) if (r := records.get(conn, row.record_id)) else "" for row in left}
        for unit, text in list(fresh):
            best = max(left, key=lambda row: (_similar(texts[row.id], text), row.line == unit.line), default=None)
            if best is None:
                break
            if _similar(texts[best.id], text) < EDIT_SIMILARITY and best.line != unit.line:
                continue
            if _edit(conn, best, unit, text, report, now):
                left.remove(best)
                fresh.remove((unit, text))
            else:  # an edit of a line whose record is someone else's: it does not state the edited fact
                replaced[id(unit)] = best.record_id
    for unit, text in fresh:
        _new(conn, project, unit, text, known, report, now, exclude=replaced.get(id(unit)))
    if complete:
        for row in left:
            _retire(conn, row, report, now)


def _problem_paths(problems: list[str]) -> set[str]:
    return {p.split(": ", 1)[0] for p in problems}


def sync(conn: sqlite3.Connection, project: Project, found: list[memfiles.Found] | None = None) -> Report:
    """Bring every agent's own memory for `project` into the store (what changed since the last pass), then
    rewrite the project's skip set. Never raises for an agent's file; problems are in the report."""
    from ..base import freshness
    from ..store.db import atomic

    found = memdirs.read_all(project.root) if found is None else found  # the files first, outside the lock
    report = Report()
    # One write transaction: a second consolidation (SessionEnd's, beside `agentctx consolidate`) waits, then sees
    # what this one wrote, so nothing is imported twice.
    with freshness.deferred(conn), atomic(conn):  # one digest rebuild after the pass, not one per record written
        _apply(conn, project, found, report)
        report.skipped_in_sessions = {a: len(ids) for a, ids in _skip(conn, project, found).items() if ids}
    return report


def _apply(conn: sqlite3.Connection, project: Project, found: list[memfiles.Found], report: Report) -> None:
    now = now_iso()
    known = _Known(conn, project.id)
    live = store.live(conn, (project.id, GLOBAL_PROJECT))
    for agent in found:
        report.problems += agent.problems
        if agent.problems and not agent.files and not agent.units and not agent.where:
            continue  # the reader itself failed (memdirs.read_all): nothing is known gone
        bad = _problem_paths(agent.problems)
        by_path: dict[str, list[tuple[memfiles.Unit, str]]] = {path: [] for path in agent.files}
        for unit in agent.units:
            text = _text(unit)
            if text is not None:
                by_path.setdefault(unit.path, []).append((unit, text))
        rows_by_path: dict[str, list] = {}
        for row in live:
            if row.agent == agent.agent:
                rows_by_path.setdefault(row.path, []).append(row)
        for path in dict.fromkeys([*by_path, *rows_by_path]):
            units = by_path.get(path, [])
            _file(conn, project, rows_by_path.get(path, []), units, known, report, now, complete=path not in bad)


def _skip(conn: sqlite3.Connection, project: Project, found: list[memfiles.Found]) -> dict[str, dict[str, str]]:
    """Per agent, the current records it already has in front of its model: while its own memory is on, its loaded
    lines' records ('own') and records that say what one of those lines says ('same'); always, records that say
    what a line of the instruction file it loads says ('file': CLAUDE.md, AGENTS.md, GEMINI.md, `sync`'s section
    included). Written to the store for SessionStart and the prompt hook."""
    from . import claudemd

    skip: dict[str, dict[str, str]] = {}
    live = store.live(conn, (project.id, GLOBAL_PROJECT))
    current: list[tuple[str, str]] | None = None
    for agent in found:
        ids: dict[str, str] = {}
        sets: list[tuple[str, list[claudemd.Line]]] = []
        if agent.on:
            for row in live:
                if row.agent == agent.agent and row.loaded:
                    record = records.get(conn, row.record_id)
                    if record is not None and record.is_current:
                        ids[record.id] = "own"
            sets.append(("same", [claudemd.Line(Path(u.path), u.line, u.text, u.heading, False)
                                  for u in agent.units if u.loaded]))
        try:
            files = claudemd.load(project.root, name=INSTRUCTION_FILE[agent.agent])
        except OSError:
            files = []
        sets.append(("file", [ln for ln in claudemd.lines(files) if not ln.in_code]))
        for why, lines in sets:
            if not lines:
                continue
            if current is None:
                current = store.current_titles(conn, project.id, SAME_TYPES, limit=SAME_LIMIT)
            _same_as(conn, lines, current, ids, why)
        skip[agent.agent] = ids
    store.set_skip(conn, project.id, skip)
    return skip


def _same_as(conn: sqlite3.Connection, lines: list, current: list[tuple[str, str]], ids: dict[str, str],
             why: str) -> None:
    """Add to `ids` the current records one of `lines` says (drift's matcher at SAME_AS_LOADED, or the record's id
    written on a line by `sync`)."""
    from . import drift

    matcher = drift.Matcher(lines)
    near: dict[str, list[int]] = {}  # word prefix -> the lines that hold it
    for n, ln in enumerate(lines):
        for prefix in {w[:PREFIX] for w in memfiles.words(f"{ln.text} {ln.heading}") if len(w) > 2}:
            near.setdefault(prefix, []).append(n)
    for rid, title in current:
        if rid in ids or (rid not in matcher.full_text and not _could_match(title, near)):
            continue
        record = records.get(conn, rid)
        if record is None or (rid not in matcher.full_text and not matcher.informative(record)):
            continue
        if matcher.match(record._replace(body=statement(record))).score >= SAME_AS_LOADED:
            ids[record.id] = why


def _could_match(title: str, near: dict[str, list[int]]) -> bool:
    """A cheap bound before the matcher (which stems every term): the matcher needs ≥ SAME_AS_LOADED of a record's
    weighted terms on ONE line, title terms weighing 4x body terms, which leaves no record whose title words (by
    their first letters, so plurals and tenses still meet) are mostly on no single loaded line."""
    title_words = {w[:PREFIX] for w in memfiles.words(title) if len(w) > 2}
    if not title_words:
        return False
    on_line: dict[int, int] = {}
    for prefix in title_words:
        for n in near.get(prefix, ()):
            on_line[n] = on_line.get(n, 0) + 1
    return max(on_line.values(), default=0) >= TITLE_SHARE * len(title_words)


def describe(report: Report) -> str:
    """One line for the consolidation report."""
    parts = []
    for label, what in (("imported", report.imported), ("already stored", report.linked),
                        ("superseded", report.superseded), ("retired", report.retired)):
        if what:
            parts.append(f"{label} " + ", ".join(f"{n} from {LABELS[a]}" for a, n in sorted(what.items())))
    return "; ".join(parts) or "nothing new"


def state(conn: sqlite3.Connection, project: Project,
          found: list[memfiles.Found] | None = None) -> list[dict[str, object]]:
    """Per agent, for `status`, `doctor` and the dashboard: whether its own memory is on and how to turn it off,
    what its files hold for this project, what came from it into the store, and what agentctx therefore does not
    deliver again in its sessions (as of the last consolidation)."""
    found = memdirs.read_all(project.root) if found is None else found
    came = store.summary(conn, project.id)
    skipped: dict[str, dict[str, int]] = {}
    for agent, _rid, why in store.skip_rows(conn, project.id):
        skipped.setdefault(agent, {}).setdefault(why, 0)
        skipped[agent][why] += 1
    out = []
    for f in found:
        units = [u for u in f.units if _text(u) is not None]
        out.append({
            "agent": f.agent, "label": LABELS[f.agent], "memory": memfiles.AGENT_FILES[f.agent], "on": f.on,
            "switch": memdirs.SWITCHES[f.agent], "where": f.where, "files": f.files,
            "facts": len(units), "loaded": sum(1 for u in units if u.loaded),
            "in_store": came.get(f.agent, {"lines": 0, "records": 0, "confirmed": 0}),
            "not_injected_again": skipped.get(f.agent, {}), "problems": f.problems,
        })
    return out


def render(rows: list[dict[str, object]]) -> list[str]:
    """`status` lines: one per agent whose own memory exists or is on."""
    lines = []
    for row in rows:
        if not row["files"] and not row["in_store"]["lines"]:  # type: ignore[index]
            continue
        came = row["in_store"]
        skip = row["not_injected_again"]
        line = (f"  {row['label']:<12} {'on ' if row['on'] else 'off'}  {row['facts']} facts in "
                f"{len(row['files'])} file(s), {row['loaded']} loaded every session; "  # type: ignore[arg-type]
                f"{came['records']} current record(s) from it ({came['confirmed']} confirmed)")  # type: ignore[index]
        if skip:
            line += f"; {sum(skip.values())} not injected again in its sessions"  # type: ignore[union-attr]
        lines.append(line)
    return (["", "agents' own memory (read by consolidation; `agentctx review` confirms)"] + lines) if lines else []


def overlap(rows: list[dict[str, object]]) -> list[tuple[str, str, str]]:
    """(agent label, what overlaps, what the user can do) for `doctor`: an agent whose own memory is on and holds
    what agentctx holds."""
    out = []
    for row in rows:
        skip = row["not_injected_again"]
        # what its memory holds; lines of its instruction file are there on purpose (`sync` writes them)
        n = sum(v for k, v in skip.items() if k in ("own", "same"))  # type: ignore[union-attr]
        if not row["on"] or not n:
            continue
        where = ", ".join(str(f) for f in row["files"][:3]) or str(row["where"])  # type: ignore[index]
        out.append((str(row["label"]), f"{n} record(s) agentctx holds are also in {row['memory']} ({where}); "
                    f"agentctx leaves them out of {row['label']} sessions, the other agents still get them",
                    f"to keep one copy, turn {row['label']}'s own memory off: {row['switch']}; or keep both "
                    "(nothing is delivered twice)"))
    return out
