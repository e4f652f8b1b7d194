"""CLAUDE.md drift: which current decisions and conventions CLAUDE.md does not reflect, and which superseded ones
it still states; with a proposed addition as a unified diff (applied only on the user's confirmation)."""

from __future__ import annotations

import difflib
import hashlib
import math
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..base import paths, text
from ..base.errors import ConflictError
from ..base.ids import now_iso
from ..base.models import Record
from ..base.project import Project
from ..store import drift as store
from . import claudemd

# A record is reflected when one CLAUDE.md line (with its heading) covers this share of its weighted terms.
# Chosen on bench/data/drift-labelled.json (see docs/benchmarks.md, "MCP"); 0.5 = half the evidence.
COVERED = 0.5
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 0.5
MAX_BODY_TERMS = 12
MIN_TERMS = 2  # a record with fewer content terms is too vague to call missing or contradicted
MAX_MISSING = 100
SECTION = "## Project memory (agentctx)"


@dataclass(frozen=True)
class Match:
    """How well CLAUDE.md reflects one record: the weighted share of its terms on the best line."""

    score: float
    line: claudemd.Line | None


@dataclass(frozen=True)
class DriftReport:
    """The drift of one project's CLAUDE.md; entries name record ids."""

    missing: list[dict[str, Any]] = field(default_factory=list)
    contradicted: list[dict[str, Any]] = field(default_factory=list)
    proposed_diff: str = ""
    files: list[str] = field(default_factory=list)
    target: str | None = None  # the file the diff changes
    base_sha: str | None = None  # sha256 of the target when the diff was made (None = file absent)
    new_text: str | None = None
    name: str = "CLAUDE.md"  # which instruction file (claudemd.INSTRUCTION_FILES)

    def to_dict(self) -> dict[str, Any]:
        return {"missing": self.missing, "contradicted": self.contradicted, "proposed_diff": self.proposed_diff,
                "files": self.files}


class _Stems:
    """Porter stems (as the search index makes them) with a cache; identity when FTS5 is unavailable."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}

    def __call__(self, words: Sequence[str]) -> list[str]:
        todo = [w for w in dict.fromkeys(words) if w not in self._cache]
        if todo:
            try:
                stems = text.stems(todo)
            except sqlite3.Error:
                stems = list(todo)
            self._cache.update(zip(todo, stems))
        return [self._cache[w] for w in words]


def _what(body: str) -> str:
    """The statement part of a body: the rationale explains a rule, CLAUDE.md usually states only the rule."""
    return body.split("\n\nRationale:", 1)[0]


class Matcher:
    """CLAUDE.md lines as stemmed term sets, with an idf so words on every line count for little."""

    def __init__(self, lines: list[claudemd.Line], stems: _Stems | None = None) -> None:
        self.stems = stems or _Stems()
        self.lines = lines
        self.units = [set(self._terms(f"{ln.text} {ln.heading}")) for ln in lines]
        self.df: dict[str, int] = {}
        for unit in self.units:
            for term in unit:
                self.df[term] = self.df.get(term, 0) + 1
        self.full_text = "\n".join(ln.text for ln in lines)
        self._said: "list[Any] | None" = None  # paraphrase statements of the lines, made on first use

    def _terms(self, value: str) -> list[str]:
        return self.stems(text.content_terms(value, max_terms=200))

    def idf(self, term: str) -> float:
        n = len(self.units)
        return math.log((n + 1) / (self.df.get(term, 0) + 0.5)) + 1.0

    def weights(self, record: Record) -> dict[str, float]:
        weights: dict[str, float] = {}
        for term in self._terms(record.title):
            weights[term] = TITLE_WEIGHT
        body_terms = [t for t in self._terms(_what(record.body)) if t not in weights][:MAX_BODY_TERMS]
        for term in body_terms:
            weights.setdefault(term, BODY_WEIGHT)
        return {t: w * self.idf(t) for t, w in weights.items()}

    def match(self, record: Record) -> Match:
        if record.id in self.full_text:  # written by an earlier `agentctx sync`
            line = next((ln for ln in self.lines if record.id in ln.text), None)
            return Match(1.0, line)
        weights = self.weights(record)
        total = sum(weights.values())
        if not total or not self.units:
            return Match(0.0, None)
        best, best_line = 0.0, None
        for unit, line in zip(self.units, self.lines):
            got = sum(w for t, w in weights.items() if t in unit) / total
            if got > best:
                best, best_line = got, line
        return Match(best, best_line)

    def informative(self, record: Record) -> bool:
        return len(set(self._terms(record.title))) >= MIN_TERMS

    def said_by(self, record: Record) -> claudemd.Line | None:
        """The line (with its heading) that already says what the record's bullet would say, in other words
        (trust.paraphrase: stemmed content words, none negated the other way, every number), or None."""
        from ..trust import paraphrase

        new = paraphrase.statement(f"{record.title}. {_summary(record)}")
        return next((ln for ln, known in zip(self.lines, self._statements()) if paraphrase.says(known, new)), None)

    def opposes(self, record: Record, line: claudemd.Line) -> bool:
        """Whether the line says what the record says the other way round ("never unittest" over "use unittest"):
        sharing the words does not reflect it."""
        from ..trust import paraphrase

        known = self._statements()[self.lines.index(line)]
        return paraphrase.opposes(known, paraphrase.statement(f"{record.title}. {_summary(record)}"))

    def _statements(self) -> "list[Any]":
        from ..trust import paraphrase

        if self._said is None:
            self._said = [paraphrase.statement(f"{ln.heading}: {ln.text}" if ln.heading else ln.text)
                          for ln in self.lines]
        return self._said


def _entry(record: Record, match: Match, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": record.id, "type": record.type, "title": record.title,
                           "coverage": round(match.score, 3)}
    if match.line is not None and match.score > 0:
        out["file"], out["line"], out["text"] = str(match.line.path), match.line.number, match.line.text
    out.update(extra)
    return out


def _summary(record: Record, limit: int = 160) -> str:
    for raw in _what(record.body).splitlines():
        line = raw.strip().lstrip("-* ").strip()
        if line and line.rstrip(".") != record.title.rstrip("."):
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def bullet(record: Record, *, outdated_title: bool = False) -> str:
    """One CLAUDE.md line for a record; a title kept from a predecessor whose fact it still states is left out."""
    summary = _summary(record)
    if outdated_title and summary:
        return f"- {summary} *(agentctx {record.type} {record.id})*"
    return f"- **{record.title}**" + (f": {summary}" if summary else "") + f" *(agentctx {record.type} {record.id})*"


def _outdated_titles(conn: sqlite3.Connection, shown: Sequence[Record]) -> set[str]:
    """Records whose title was kept over a supersession that changed what the title says (SPEC §3.5)."""
    from ..store import records

    out = set()
    for record in shown:
        old = store.predecessor(conn, record.id)
        if old is not None and old.title == record.title and records.kept_title_outdated(old, record.body):
            out.add(record.id)
    return out


def add_section(old: str, bullets: Sequence[str]) -> str:
    """`old` with the bullets appended to our section (created at the end when absent)."""
    lines = old.splitlines()
    if SECTION in (ln.strip() for ln in lines):
        start = next(i for i, ln in enumerate(lines) if ln.strip() == SECTION)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = list(bullets)
    else:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [SECTION, "", "Decisions and conventions recorded by agentctx.", "", *bullets]
    return "\n".join(lines) + "\n"


def _target(project: Project, name: str = "CLAUDE.md") -> Path:
    starts, _ = claudemd.INSTRUCTION_FILES[name]
    for path in starts(project.root):
        if path.is_file():
            return path
    return project.root / name


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _diff(target: Path, root: Path, missing: Sequence[Record],
          outdated: set[str] = frozenset()) -> tuple[str, str | None, str | None]:  # type: ignore[assignment]
    if not missing:
        return "", None, None
    try:
        data = _read_target(target)
        old, base = data.decode("utf-8", errors="replace"), _sha(data)
    except FileNotFoundError:
        old, base = "", None
    except ConflictError:  # not a file we can edit (a FIFO, a device, too large): propose nothing
        return "", None, None
    new = add_section(old, [bullet(r, outdated_title=r.id in outdated) for r in missing])
    try:
        rel = str(target.relative_to(root))
    except ValueError:
        rel = str(target)
    diff = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                fromfile=f"a/{rel}" if base else "/dev/null", tofile=f"b/{rel}")
    return "".join(diff), base, new


def scan(conn: sqlite3.Connection, project: Project, *, update_scores: bool = True,
         home: Path | None = None, name: str = "CLAUDE.md") -> DriftReport:
    """The drift report for `project`'s CLAUDE.md (or `name`: AGENTS.md, GEMINI.md); with `update_scores`, also
    writes claudemd_drift_score (derived; CLAUDE.md's only).

    Never raises for a missing or unreadable file: with none, nothing is missing (there is nothing to drift
    from) and scores reset to 0.
    """
    update_scores = update_scores and name == "CLAUDE.md"
    files = claudemd.load(project.root, home, name=name)
    if not files:
        if update_scores:
            _write_scores(conn, project.id, {})
        return DriftReport(name=name)
    matcher = Matcher(claudemd.lines(files))
    stale = list(_stale(conn, project, matcher))
    # A line that still states a superseded fact does not reflect its successor, even when the title was kept.
    stale_lines = {(id(m.line), head) for _, m, head in stale}
    missing: list[tuple[Record, Match]] = []
    scores: dict[str, float] = {}
    for record in store.candidates(conn, project.id):
        m = matcher.match(record)
        if (id(m.line), record.id) in stale_lines and record.id not in matcher.full_text:
            m = Match(0.0, m.line)
        if not matcher.informative(record):
            scores[record.id] = 0.0  # too vague to call missing (SPEC §3.1 derived fields): no drift
            continue
        if m.score >= COVERED and m.line is not None and record.id not in matcher.full_text \
                and matcher.opposes(record, m.line):
            m = Match(0.0, m.line)  # the line says the opposite: CLAUDE.md does not reflect the record
        if m.score < COVERED and (said := matcher.said_by(record)) is not None \
                and (id(said), record.id) not in stale_lines:
            m = Match(COVERED, said)  # CLAUDE.md says it in other words: nothing to add
        scores[record.id] = round(1.0 - m.score, 4)
        if m.score < COVERED:
            missing.append((record, m))
    contradicted = [_entry(old, m, superseded_by=old.superseded_by) for old, m, _ in stale]
    if update_scores:
        _write_scores(conn, project.id, scores)
    shown = missing[:MAX_MISSING]
    target = _target(project, name)
    records_shown = [r for r, _ in shown]
    diff, base, new = _diff(target, project.root, records_shown, _outdated_titles(conn, records_shown))
    return DriftReport([_entry(r, m) for r, m in shown], contradicted, diff, [str(f.path) for f in files],
                       str(target), base, new, name)


def scan_all(conn: sqlite3.Connection, project: Project, *, home: Path | None = None) -> list[DriftReport]:
    """CLAUDE.md's report (always, as before), then one for each other instruction file the repository has."""
    out = [scan(conn, project, home=home)]
    seen = {Path(f) for f in out[0].files[:2]}
    for name, (starts, _) in claudemd.INSTRUCTION_FILES.items():
        found = [p.resolve() for p in starts(project.root) if p.is_file()]
        if name == "CLAUDE.md" or not found or any(p in seen for p in found):
            continue  # absent, or a link to a file already scanned (AGENTS.md -> CLAUDE.md is common)
        seen.update(found)
        out.append(scan(conn, project, home=home, name=name))
    return out


def _stale(conn: sqlite3.Connection, project: Project,
           matcher: Matcher) -> Iterable[tuple[Record, Match, str | None]]:
    """Superseded records CLAUDE.md still states (a line says the old fact, nothing of the new), with their head."""
    from ..store import records

    for old in store.superseded(conn, project.id):
        if not matcher.informative(old):
            continue
        m = matcher.match(old)
        if m.score < COVERED or m.line is None:
            continue
        nxt = records.get(conn, old.superseded_by) if old.superseded_by else None
        head = records.head(conn, nxt) if nxt is not None else None
        if head is not None and old.id not in matcher.full_text:
            if states_new(matcher, old, head, set(matcher._terms(f"{m.line.text} {m.line.heading}"))):
                continue  # the line states the new fact at least as well as the old one
        yield old, m, head.id if head is not None else None


def states_new(matcher: Matcher, old: Record, head: Record, unit: set[str]) -> bool:
    """Whether a line (its term set) states the current record's fact at least as well as the superseded one's.
    Compared on what differs: a supersession often keeps the title, so the terms both share decide nothing."""
    old_w, new_w = matcher.weights(old), matcher.weights(head)
    says_new = share({t: w for t, w in new_w.items() if t not in old_w}, unit)
    says_old = share({t: w for t, w in old_w.items() if t not in new_w}, unit)
    return says_new > 0 and says_new >= says_old


def share(weights: dict[str, float], unit: set[str]) -> float:
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in unit) / total if total else 0.0


def _write_scores(conn: sqlite3.Connection, project_id: str, scores: dict[str, float]) -> None:
    try:
        store.set_scores(conn, project_id, scores)
    except Exception as exc:  # derived data: a busy store is not a reason to fail the scan
        sys.stderr.write(f"agentctx: drift scores not written: {exc}\n")


def _read_target(target: Path) -> bytes:
    """The memory file a diff edits, whole: a regular file (through a link) within claudemd.MAX_BYTES, or an error
    that says why it is not edited (a FIFO would hang `sync`; a link to /dev/zero would fill memory)."""
    from ..base import safeio

    try:
        data = safeio.read_head(str(target), claudemd.MAX_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ConflictError("invalid_field", field=str(target), problem=f"not editable: {exc.strerror or exc}") from None
    if len(data) > claudemd.MAX_BYTES:
        raise ConflictError("invalid_field", field=str(target),
                            problem=f"larger than {claudemd.MAX_BYTES // 1024} KiB: edit it by hand")
    return data


def apply(report: DriftReport) -> tuple[Path, Path | None]:
    """Write the report's proposed addition to its target; returns (target, backup or None when it was new).

    Raises ConflictError when the file changed since the report was made (the user confirmed another diff).
    """
    if not report.target or report.new_text is None:
        raise ConflictError("invalid_field", field="drift report", problem="proposes no change")
    target = Path(report.target)
    try:
        current: bytes | None = _read_target(target)
    except FileNotFoundError:
        current = None
    if (None if current is None else _sha(current)) != report.base_sha:
        raise ConflictError("invalid_field", field=str(target), problem="changed since the report; run sync again")
    backup = None
    if current is not None:
        backups = paths.ensure_private_dir(paths.home() / "backups")
        stamp = now_iso().replace(":", "").replace("-", "").replace(".", "")
        backup = backups / f"{target.name}.{stamp}.bak"
        backup.touch(mode=0o600)  # the user's words: private like the store, whatever the umask
        backup.write_bytes(current)
    from ..base.userfiles import atomic_write

    # Through a symlink (a dotfile manager's CLAUDE.md): the file it points to is edited and the link stays.
    atomic_write(target, report.new_text, mode=0o644)
    return target, backup
