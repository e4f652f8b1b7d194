"""Near misses made visible: the prompt hook's decision for any query, and the decisions it logged for recent prompts.

One explanation path: the prompt hook logs its candidates with `candidate_rows`, and `agentctx search --explain`
runs the hook's own selection (`hooks.prompt.select`) through the same function, so `why` and `search --explain`
say the same of the same prompt (only the session's state differs: what it already had in front of it). Light on
purpose (no `__future__`, `typing`, `json` or `store.records` at import): the prompt hook imports it."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from ..base.models import SearchHit
    from .relevance import Assessed

# The decisions log is trimmed to its newest KEEP lines when `agentctx why` finds it past MAX_BYTES.
MAX_BYTES = 512_000
KEEP = 500
# The features shown next to a candidate, most telling first (all of them are in --json).
SHOWN = ("title_cover", "cover", "relevance", "question_cover", "telling")
# Characters of a prompt `why` shows: enough to recognise it, redacted (base/redact.py).
PROMPT_SHOWN = 80


def candidate_rows(weighed: "list[Assessed]", chosen: "list[SearchHit]", prompt: str, held: "dict[str, str]",
                   limit: int) -> "list[dict[str, Any]]":
    """The first `limit` candidates of the relevance decision as the prompt hook saw them: probability, reason,
    features, whether it passed the gate and whether it was injected, and, for one that passed but was not
    injected, why (`held`: in front of the model already, waiting for review, over the budget...)."""
    from . import relevance

    injected = {h.record.id for h in chosen}
    rows = []
    words: "dict[str, str] | None" = None  # the prompt's stems as typed, worked out once, only when needed
    for a in weighed[:limit]:
        rid = a.hit.record.id
        row = {"id": rid, "p": round(a.p, 4), "injected": rid in injected, "passed": a.inject, "reason": a.reason,
               "features": {k: round(v, 4) for k, v in a.features.items()}}
        if a.inject and rid not in injected:
            row["held"] = held.get(rid, "over the prompt's budget")
        only = relevance.asked_only(a.hit)
        if only:  # words of the record's own questions and aliases: nothing of the prompt it does not hold
            words = relevance.prompt_words(prompt) if words is None else words
            row["asked"] = sorted(words.get(stem, stem) for stem in only)
        rows.append(row)
    return rows


def decision_row(weighed: "list[Assessed]", rows: "list[dict[str, Any]]") -> "dict[str, Any]":
    """The prompt's class and threshold beside its candidates."""
    from . import relevance

    klass = weighed[0].klass if weighed else None
    return {"prompt_class": klass,
            "threshold": relevance.threshold(klass) if klass in relevance.CLASSES else None, "candidates": rows}


def explain(conn: "sqlite3.Connection", query: str, project_id: str,
            select: "Any" = None) -> "list[dict[str, Any]]":
    """What UserPromptSubmit would decide for `query` as a prompt in a new session: each candidate's probability
    against its threshold, whether it would be injected and, if it passes but would not be, why; the features that
    decided it. `select` is the hook's own selection (`hooks.prompt.select`, passed in by the CLI: this layer
    cannot import it); without it, the gate's verdict alone."""
    from . import relevance

    if select is not None:
        weighed, chosen, _, held = select(conn, query, project_id)
    else:
        weighed = relevance.decide(conn, query, project_id)
        chosen, held = [a.hit for a in weighed if a.inject], {}
    if not weighed:
        return []
    out = []
    for rank, (a, row) in enumerate(zip(weighed, candidate_rows(weighed, chosen, query, held, len(weighed)))):
        r = a.hit.record
        out.append({"rank": rank + 1, **row, "type": r.type, "title": r.title,
                    "threshold": relevance.threshold(a.klass) if a.klass in relevance.CLASSES else None,
                    "prompt_class": a.klass, "score_share": round(a.ratio, 3), "score": round(a.hit.score, 4),
                    "asked": row.get("asked", [])})
    return out


def by_other_names(conn: "sqlite3.Connection", query: str, project_id: str, rows: "list[dict[str, Any]]",
                   limit: int = 3) -> "list[dict[str, Any]]":
    """Records `agentctx search` finds for `query` only through the other names of its words (search.py's
    expansion: "database" -> PostgreSQL), which the prompt hook does not use: not among `rows`, its candidates
    (the hook's own, unexpanded search, which holds more than this one's first `limit`)."""
    from . import search

    seen = {row["id"] for row in rows}
    return [{"id": h.record.id, "type": h.record.type, "title": h.record.title}
            for h in search.search(conn, query, project_id, limit=limit).hits if h.record.id not in seen]


def recent(conn: "sqlite3.Connection", project_id: str, *, session_id: "str | None" = None,
           limit: int = 20) -> "list[dict[str, Any]]":
    """The prompt hook's logged decisions for this project, newest first, each candidate with its title, and the
    prompt's redacted start (`prompt_start`) when the store kept its words."""
    from ..base import paths

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
    from ..base import paths

    path = paths.decisions_log_file()
    try:
        if os.path.getsize(path) <= MAX_BYTES:
            return False
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return False
    return _trim(path, lines[-KEEP:])


def _rows(conn: "sqlite3.Connection", lines: "list[str]", project_id: str, session_id: "str | None",
          limit: int) -> "list[dict[str, Any]]":
    import json

    from ..store import records, sessions

    out: "list[dict[str, Any]]" = []
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
    kept = sessions.prompt_texts(conn, project_id, [(r.get("session_id"), r.get("prompt_hash")) for r in out])
    for row in out:
        text = kept.get((row.get("session_id"), row.get("prompt_hash")))
        if text is not None:
            row["prompt_start"] = prompt_start(text)
    return out


def prompt_start(text: str) -> str:
    """The start of a kept prompt as `why` shows it: secrets masked again (base/redact.py), one line, clipped."""
    from ..base.redact import scrub_text

    one = " ".join(scrub_text(text).split())
    return one if len(one) <= PROMPT_SHOWN else one[: PROMPT_SHOWN - 1] + "…"


def _trim(path: str, keep: "list[str]") -> bool:
    from ..base import safeio

    tmp = f"{path}.{os.getpid()}"
    try:
        fd = safeio.create_private(tmp)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in keep))
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def plain(cand: "dict[str, Any]", threshold: "float | None" = None) -> str:
    """One line for a person: what happened to a candidate and why, in words (numbers: `describe`, --verbose)."""
    title = f"[{cand.get('type')}] {cand.get('title')}  {cand.get('id')}"
    through = _through(cand)
    if cand.get("injected"):
        return f"    injected      {title}\n                  it names what the prompt is about{through}"
    if cand.get("passed"):
        why = cand.get("held") or "already in front of the model this session"
        return f"    not injected  {title}\n                  relevant, but {why}"
    p = float(cand.get("p") or 0.0)
    near = threshold is not None and threshold > 0 and p >= 0.75 * threshold
    why = ("nearly: it shares some of the prompt's words, not enough to be sure it is what the prompt is about"
           if near else "it shares too little with the prompt")
    return f"    {'nearly' if near else 'not injected':<13} {title}\n                  {why}{through}"


def _through(cand: "dict[str, Any]") -> str:
    """Words the candidate matched only through its questions or aliases, as a clause (or nothing)."""
    words = cand.get("asked") or ()
    return f"; {', '.join(words)} only through how it will be asked (its questions, aliases)" if words else ""


def describe(cand: "dict[str, Any]") -> str:
    """One line for a weighed candidate: outcome, probability, record, the reason and the features that decided it."""
    mark = "injected" if cand.get("injected") else ("passed" if cand.get("passed") else "not")
    feats = cand.get("features") or {}
    shown = ", ".join(f"{k} {feats[k]:.2f}" for k in SHOWN if k in feats)
    held = f"; not injected: {cand['held']}" if cand.get("held") and not cand.get("injected") else ""
    return (f"    {mark:<8} p={cand.get('p', 0):.3f}  [{cand.get('type')}] {cand.get('title')}  {cand.get('id')}\n"
            f"             {cand.get('reason', '')}" + (f"; {shown}" if shown else "") + _through(cand) + held)
