"""Backfill: find this project's past transcripts under ~/.claude/projects/, estimate, then extract (resumable)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from ..base import config, paths
from ..base.errors import AgentctxError
from ..base.project import detect
from ..store import db
from . import cursor, policy, transcript
from .engine import ExtractResult, context_lines, estimate_plan, execute


@dataclass(frozen=True)
class Found:
    session_id: str
    path: str
    size: int
    modified: str


@dataclass(frozen=True)
class Estimate:
    """What a backfill would send: transcripts found, those with something new, tokens, calls and dollars."""

    root: str
    model: str
    transcripts: tuple[Found, ...] = ()
    pending: int = 0
    tokens: int = 0
    calls: int = 0
    usd: float = 0.0
    per_session: dict[str, int] = field(default_factory=dict)


def parse_since(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()


def encode(path: str) -> str:
    """Claude Code's directory name for a cwd: every character outside [A-Za-z0-9] becomes '-' (lossy)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _inside(cwd: str | None, root: Path) -> bool:
    if not cwd:
        return False
    try:
        Path(cwd).resolve().relative_to(root)
        return True
    except (ValueError, OSError):
        return False


def discover(project: str | None = None, *, since: float | None = None) -> list[Found]:
    """Main-session transcripts whose recorded cwd is inside the project root, oldest first.

    The directory name only narrows the search (the encoding is lossy); the `cwd` inside each file decides."""
    root = detect(project).root.resolve()
    base = paths.claude_home() / "projects"
    prefix = encode(str(root))
    found: list[Found] = []
    if not base.is_dir():
        return found
    for folder in sorted(base.iterdir()):
        if not folder.is_dir() or not (folder.name == prefix or folder.name.startswith(prefix + "-")):
            continue
        for path in folder.glob("*.jsonl"):  # subagent transcripts live deeper and are not main sessions
            stat = path.stat()
            if since is not None and stat.st_mtime < since:
                continue
            if not _inside(transcript.session_cwd(path), root):
                continue
            stamp = datetime.fromtimestamp(stat.st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            found.append(Found(path.stem, str(path), stat.st_size, stamp))
    return sorted(found, key=lambda f: (f.modified, f.session_id))


def estimate(found: list[Found], *, cwd: str | None = None) -> Estimate:
    """Tokens and dollars for what each transcript has beyond its cursor (what a run would send)."""
    model = str(config.load()["extractionModel"])
    project = detect(cwd)
    lines, handover = _context(project.id)
    tokens = calls = pending = 0
    usd = 0.0
    per: dict[str, int] = {}
    for item in found:
        cur = cursor.load(item.session_id)
        if cur.offset > item.size:
            cur = cursor.Cursor(item.session_id)
        part = transcript.read(item.path, min(cur.carry_from, cur.offset))
        plan = policy.plan([t for t in part.turns if t.offset >= cur.offset],
                           [t for t in part.turns if t.offset < cur.offset])
        if plan.mode == "empty":
            continue
        sent, n, dollars = estimate_plan(plan, model, lines, handover)
        tokens, calls, pending, usd = tokens + sent, calls + n, pending + 1, usd + dollars
        per[item.session_id] = sent
    return Estimate(str(project.root), model, tuple(found), pending, tokens, calls, usd, per)


def _context(project_id: str) -> tuple[list[str], str]:
    """The record lines and handover a run would send (as `extract --dry-run` counts them); none without a store."""
    try:
        conn = db.connect(paths.db_path())
    except AgentctxError:
        return [], ""
    try:
        return context_lines(conn, project_id)
    finally:
        conn.close()


def describe(e: Estimate) -> str:
    if not e.transcripts:
        return f"no Claude Code transcripts found for {e.root} under {paths.claude_home() / 'projects'}"
    return (f"{len(e.transcripts)} transcript(s) for {e.root}; {e.pending} with something new to extract\n"
            f"would send ~{e.tokens} input tokens in {e.calls} call(s) to {e.model}: about ${e.usd:.4f}")


def _bar(done: int, total: int, spent: float, out: IO[str]) -> None:
    width = 30
    fill = width * done // max(total, 1)
    out.write(f"\r[{'#' * fill}{'-' * (width - fill)}] {done}/{total} sessions  ${spent:.4f}")
    if done == total:
        out.write("\n")
    out.flush()


def run(found: list[Found], *, cwd: str | None = None, progress: IO[str] | None = None) -> list[ExtractResult]:
    """Extract each transcript in turn. Each session keeps its cursor, so an interrupted backfill resumes."""
    root = str(detect(cwd).root)
    results: list[ExtractResult] = []
    spent = 0.0
    for i, item in enumerate(found, 1):
        result = execute(item.session_id, item.path, cwd=root)
        results.append(result)
        spent += result.cost_usd
        if progress is not None:
            _bar(i, len(found), spent, progress)
    return results
