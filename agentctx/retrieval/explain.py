"""Near misses made visible: the prompt hook's decision for any query, and the decisions it logged for recent prompts."""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

from ..base import paths, safeio
from ..store import records

# The decisions log is trimmed to its newest KEEP lines when `agentctx why` finds it past MAX_BYTES.
MAX_BYTES = 512_000
KEEP = 500
# The features shown next to a candidate, most telling first (all of them are in --json).
SHOWN = ("title_cover", "cover", "relevance", "question_cover", "telling")


def explain(conn: sqlite3.Connection, query: str, project_id: str) -> list[dict[str, Any]]:
    """What UserPromptSubmit would decide for `query` as a prompt (ignoring the session's dedup): each candidate's
    probability against its threshold, whether it would be injected, why, and the features that decided it."""
    from . import relevance

    out = []
    words = relevance.prompt_words(query)
    for rank, a in enumerate(relevance.decide(conn, query, project_id)):
        r = a.hit.record
        out.append({"rank": rank + 1, "id": r.id, "type": r.type, "title": r.title, "injected": a.inject,
                    "p": round(a.p, 4), "threshold": relevance.threshold(a.klass) if a.klass in relevance.CLASSES
                    else None, "prompt_class": a.klass, "score_share": round(a.ratio, 3), "reason": a.reason,
                    "score": round(a.hit.score, 4), "features": {k: round(v, 4) for k, v in a.features.items()},
                    "asked": sorted(words.get(stem, stem) for stem in relevance.asked_only(a.hit))})
    return out


def by_other_names(conn: sqlite3.Connection, query: str, project_id: str, rows: list[dict[str, Any]],
                   limit: int = 3) -> list[dict[str, Any]]:
    """Records `agentctx search` finds for `query` only through the other names of its words (search.py's
    expansion: "database" -> PostgreSQL), which the prompt hook does not use: not among `rows`, its candidates
    (the hook's own, unexpanded search, which holds more than this one's first `limit`)."""
    from . import search

    seen = {row["id"] for row in rows}
    return [{"id": h.record.id, "type": h.record.type, "title": h.record.title}
            for h in search.search(conn, query, project_id, limit=limit).hits if h.record.id not in seen]


def recent(conn: sqlite3.Connection, project_id: str, *, session_id: str | None = None,
           limit: int = 20) -> list[dict[str, Any]]:
    """The prompt hook's logged decisions for this project, newest first, each candidate with its title."""
    path = paths.decisions_log_file()
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    if sum(len(line) + 1 for line in lines) > MAX_BYTES:
        _trim(path, lines[-KEEP:])
    return _rows(conn, lines, project_id, session_id, limit)


def trim_log() -> bool:
    """Cut the decisions log to its newest KEEP lines when it has grown past MAX_BYTES (consolidation calls this,
    so the log stays bounded even when `why` is never run). True when it was cut."""
    path = paths.decisions_log_file()
    try:
        if os.path.getsize(path) <= MAX_BYTES:
            return False
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return False
    return _trim(path, lines[-KEEP:])


def _rows(conn: sqlite3.Connection, lines: list[str], project_id: str, session_id: str | None,
          limit: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in reversed(lines):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if not isinstance(row, dict) or row.get("project_id") != project_id:
            continue
        if session_id and row.get("session_id") != session_id:
            continue
        for cand in row.get("candidates") or ():
            rec = records.get(conn, cand.get("id", ""))
            cand["type"] = rec.type if rec else None
            cand["title"] = rec.title if rec else "(deleted)"
        out.append(row)
        if len(out) >= limit:
            break
    return out


def _trim(path: str, keep: list[str]) -> bool:
    tmp = f"{path}.{os.getpid()}"
    try:
        fd = safeio.create_private(tmp)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in keep))
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def plain(cand: dict[str, Any], threshold: float | None = None) -> str:
    """One line for a person: what happened to a candidate and why, in words (numbers: `describe`, --verbose)."""
    title = f"[{cand.get('type')}] {cand.get('title')}  {cand.get('id')}"
    through = _through(cand)
    if cand.get("injected"):
        return f"    injected      {title}\n                  it names what the prompt is about{through}"
    if cand.get("passed"):
        return f"    not injected  {title}\n                  relevant, but already in front of the model this session"
    p = float(cand.get("p") or 0.0)
    near = threshold is not None and threshold > 0 and p >= 0.75 * threshold
    why = ("nearly: it shares some of the prompt's words, not enough to be sure it is what the prompt is about"
           if near else "it shares too little with the prompt")
    return f"    {'nearly' if near else 'not injected':<13} {title}\n                  {why}{through}"


def _through(cand: dict[str, Any]) -> str:
    """Words the candidate matched only through its questions or aliases, as a clause (or nothing)."""
    words = cand.get("asked") or ()
    return f"; {', '.join(words)} only through how it will be asked (its questions, aliases)" if words else ""


def describe(cand: dict[str, Any]) -> str:
    """One line for a weighed candidate: outcome, probability, record, the reason and the features that decided it."""
    mark = "injected" if cand.get("injected") else ("passed" if cand.get("passed") else "not")
    feats = cand.get("features") or {}
    shown = ", ".join(f"{k} {feats[k]:.2f}" for k in SHOWN if k in feats)
    return (f"    {mark:<8} p={cand.get('p', 0):.3f}  [{cand.get('type')}] {cand.get('title')}  {cand.get('id')}\n"
            f"             {cand.get('reason', '')}" + (f"; {shown}" if shown else "") + _through(cand))
