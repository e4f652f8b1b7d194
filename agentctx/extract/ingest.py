"""Validated entries into the store (SPEC §6): dedup, reinforcement, deterministic supersession, handover."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from ..base.errors import AgentctxError
from ..base.models import GLOBAL_PROJECT, NewRecord, Record
from ..store import records
from .log import log
from .validate import Entry, Extraction, words

NEAR_DUPLICATE = 0.8  # Jaccard similarity of word sets above which two facts are the same fact


@dataclass
class Outcome:
    """What ingest did: records written, entries dropped (with reasons), records reinforced."""

    written: list[Record] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)


def _main_words(record: Record) -> set[str]:
    # The fact itself is the body's first paragraph; "Rationale:" / "Category:" lines are decoration.
    return set(words(record.body.split("\n\n", 1)[0])) | set(words(record.title))


def similar(entry: Entry, record: Record) -> bool:
    """Verbatim or near-verbatim: same title and body, or nearly the same words."""
    if record.title == entry.title and record.body == entry.body:
        return True
    mine, theirs = set(entry.key.split()), _main_words(record)
    if not mine or not theirs:
        return False
    return len(mine & theirs) / len(mine | theirs) >= NEAR_DUPLICATE


def _namespace(entry: Entry, project_id: str) -> str:
    return GLOBAL_PROJECT if entry.scope == "global" else project_id


def _duplicate(conn: sqlite3.Connection, entry: Entry, namespace: str) -> Record | None:
    for record in records.current(conn, namespace, types=[entry.type], own_only=True):
        if similar(entry, record):
            return record
    return None


def _supersedable(conn: sqlite3.Connection, entry: Entry, namespace: str) -> str | None:
    """The named record if superseding it is legitimate: real, current, same type and namespace."""
    if not entry.supersedes:
        return None
    target = records.get(conn, entry.supersedes)
    if target is None or not target.is_current or target.type != entry.type or target.project_id != namespace:
        log(f"supersedes {entry.supersedes!r} ignored for {entry.type} {entry.title!r}: not a current {entry.type} here")
        return None
    return target.id


REVIEW_REASON = "inferred by extraction: waiting for your review"


def _one(conn: sqlite3.Connection, entry: Entry, *, project_id: str, session_id: str, threshold: int,
         seen: set[str], out: Outcome, review: bool = False) -> None:
    namespace = _namespace(entry, project_id)
    dup = _duplicate(conn, entry, namespace)
    if dup is not None and dup.id == entry.supersedes and dup.body != entry.body:
        dup = None  # a reworded replacement of the very record it names is a supersession, not a duplicate
    if dup is not None:
        # Seen again in another session, or explicitly confirmed: that is what reinforcement means (SPEC §3.3).
        confirms = entry.confidence == "explicit" and dup.confidence == "inferred"
        if dup.id not in seen and (dup.session_id != session_id or confirms):
            records.reinforce(conn, dup.id, threshold=threshold, confirmed=confirms)
            seen.add(dup.id)
            out.reinforced.append(dup.id)
        else:
            out.dropped.append((entry.kind, "duplicate"))
        if not (dup.questions or dup.aliases) and (entry.questions or entry.aliases):
            # The same fact seen again, asked-as this time: the record is found the way people ask from now on.
            records.set_asked(conn, dup.id, None, questions=entry.questions, aliases=entry.aliases)
        if not dup.anchors and entry.anchors:  # seen again while touching what it governs
            records.set_anchors(conn, dup.id, None, entry.anchors, by="llm_extraction")
        return
    new = NewRecord(type=entry.type, title=entry.title, body=entry.body, project_id=namespace, scope=entry.scope,
                    confidence=entry.confidence, source="llm_extraction", session_id=session_id,
                    questions=entry.questions, aliases=entry.aliases, anchors=entry.anchors)
    target = _supersedable(conn, entry, namespace)
    try:
        record, _ = records.insert(conn, new, supersedes=target)
    except AgentctxError as exc:
        if target is None:
            raise
        log(f"supersedes {target} failed ({exc.code}); writing {entry.title!r} on its own")
        record, _ = records.insert(conn, new)
    if entry.evidence:
        from ..base.redact import scrub_text

        records.add_evidence(conn, record.id, scrub_text(entry.evidence))
    if review and record.confidence == "inferred":  # config `inferred: review` (SPEC §3.9): searchable, not injected
        from ..store import trust

        trust.set_mark(conn, record.id, "review", REVIEW_REASON)
    out.written.append(record)


def _handover(conn: sqlite3.Connection, title: str, body: str, *, project_id: str, session_id: str,
              out: Outcome) -> None:
    now = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    if now and now[0].body == body:
        out.dropped.append(("handover", "duplicate"))
        return
    new = NewRecord(type="handover", title=title, body=body, project_id=project_id, confidence="explicit",
                    source="llm_extraction", session_id=session_id)
    record, _ = records.insert(conn, new)  # keyed: replaces the project's current handover
    out.written.append(record)


def ingest(conn: sqlite3.Connection, extraction: Extraction, *, project_id: str, session_id: str, threshold: int,
           reinforced: set[str]) -> Outcome:
    """Write what survives; one bad entry is logged and skipped, never stops the rest."""
    out = Outcome(dropped=list(extraction.dropped))
    if extraction.flush:
        return out
    from ..base import freshness

    with freshness.deferred(conn):  # the digests these writes touch are rebuilt once, at the end
        _all(conn, extraction, project_id=project_id, session_id=session_id, threshold=threshold,
             reinforced=reinforced, out=out)
    return out


def _all(conn: sqlite3.Connection, extraction: Extraction, *, project_id: str, session_id: str, threshold: int,
         reinforced: set[str], out: Outcome) -> None:
    from ..base import config

    review = config.load()["inferred"] == "review"
    for entry in extraction.entries:
        try:
            _one(conn, entry, project_id=project_id, session_id=session_id, threshold=threshold, seen=reinforced,
                 out=out, review=review)
        except AgentctxError as exc:
            log(f"entry dropped ({exc.code}): {entry.type} {entry.title!r}")
            out.dropped.append((entry.kind, exc.code))
    if extraction.handover_title and extraction.handover_body:
        try:
            _handover(conn, extraction.handover_title, extraction.handover_body, project_id=project_id,
                      session_id=session_id, out=out)
        except AgentctxError as exc:
            log(f"handover dropped ({exc.code})")
            out.dropped.append(("handover", exc.code))
