"""Records: validated inserts, reads with namespace rules, bi-temporal supersession, pins, reinforcement."""

import sqlite3
from collections.abc import Iterable  # loaded by sqlite3 already: free at run time

from ..base.errors import ConflictError, NotFoundError, ValidationError
from ..base.ids import now_iso, ulid
from .db import atomic
from ..base.models import (ALIAS_CHARS, ALIASES_MAX, BODY_MAX, CONFIDENCES, GLOBAL_PROJECT, QUESTION_CHARS, QUESTIONS_MAX,
                           RECORD_TYPES, SCOPES, SOURCES, TITLE_MAX, NewRecord, Record)
from . import COLUMNS, CURRENT, VISIBLE, lines, to_record  # noqa: F401 (re-exported: the row shape lives in the package)

EVIDENCE_MAX = 1000

# Keyed types: a new one replaces the current one with the same key, deterministically (SPEC §3.5).
KEYED_TYPES = ("handover", "profile")


def _changed(conn: sqlite3.Connection, project_id: str) -> None:
    """After a committed write: rebuild the digests it may change, so the next SessionStart sees it (SPEC §4.3)."""
    from ..base import freshness  # imported here: the hooks' read paths load this module without ever writing

    freshness.changed(conn, project_id)


def _check_choice(value: str, allowed: tuple[str, ...], code: str) -> None:
    if value not in allowed:
        raise ValidationError(code, value=value, allowed=", ".join(allowed))


def validate(new: NewRecord) -> NewRecord:
    """Check a record against the contract and return it normalised (scope global lives in `_global`)."""
    _check_choice(new.type, RECORD_TYPES, "invalid_type")
    _check_choice(new.scope, SCOPES, "invalid_scope")
    _check_choice(new.confidence, CONFIDENCES, "invalid_confidence")
    _check_choice(new.source, SOURCES, "invalid_source")
    for name in ("title", "body"):
        value = getattr(new, name)
        if not isinstance(value, str) or not value.strip():
            raise ValidationError("blank_field", field=name)
    from ..base.redact import scrub_text  # not at import: the prompt hook's path reads records, never writes them

    # Every record is scrubbed here, whoever writes it (CLI, MCP, capture, extraction, consolidation, import).
    title = scrub_text(" ".join(new.title.split()))
    if len(title) > TITLE_MAX:
        raise ValidationError("field_too_long", field="title", length=len(title), limit=TITLE_MAX)
    body = scrub_text(new.body.strip())
    if len(body) > BODY_MAX:
        raise ValidationError("field_too_long", field="body", length=len(body), limit=BODY_MAX)
    if not new.project_id:
        raise ValidationError("blank_field", field="project_id")
    if new.project_id == GLOBAL_PROJECT and new.scope != "global":  # no project could ever see it
        raise ValidationError("invalid_field", field="scope", problem="must be global in the _global namespace")
    project_id = GLOBAL_PROJECT if new.scope == "global" else new.project_id
    if new.valid_from is not None:
        from ..base.ids import parse_iso

        try:
            parse_iso(new.valid_from)
        except ValueError:
            raise ValidationError("invalid_field", field="valid_from", problem="is not an ISO 8601 timestamp") from None
    return new.replace(title=title, body=body, project_id=project_id,
                       questions=asked_items(new.questions, "questions"), aliases=asked_items(new.aliases, "aliases"),
                       anchors=anchor_items(new.anchors), guard=new.guard or "")


def anchor_items(items: "Iterable[str] | str | None", root: str | None = None) -> tuple[str, ...]:
    """What a record governs, in stored form (base/anchors.py); a bad anchor or too many: a ValidationError naming
    it. `root`: the repository, so an absolute path inside it is made relative."""
    from ..base.anchors import AnchorError, normalize_all

    try:
        return normalize_all(items, root)
    except AnchorError as exc:
        raise ValidationError("invalid_field", field="anchors", problem=f"refused: {exc}") from None


_ASKED_LIMITS = {"questions": (QUESTIONS_MAX, QUESTION_CHARS), "aliases": (ALIASES_MAX, ALIAS_CHARS)}


def asked_within_limits(items: object, field: str) -> tuple[str, ...]:
    """What a model or a file wrote as `questions` or `aliases`, kept within the store's limits instead of refused
    (`asked_items` refuses): items that are not text, blank, or too long once scrubbed are dropped, repeats too, and
    only the first limit-many are kept. A string counts as one item per line. Never raises."""
    from ..base.redact import scrub_text

    if isinstance(items, str):
        items = items.splitlines()
    if not isinstance(items, (list, tuple)):
        return ()
    most, chars = _ASKED_LIMITS[field]
    out: dict[str, str] = {}
    for item in items:
        if len(out) >= most:
            break
        if isinstance(item, str):
            one = scrub_text(" ".join(item.split()))
            if one and len(one) <= chars:
                out.setdefault(one.casefold(), one)
    return tuple(out.values())


def asked_items(items: "Iterable[str] | str | None", field: str) -> tuple[str, ...]:
    """`questions` or `aliases` normalised: each item on one line, scrubbed of secrets like the body, blanks and
    repeats (ignoring case) dropped; a string counts as one item per line. Over the limits: a ValidationError."""
    from ..base.redact import scrub_text

    if items is None:
        return ()
    if isinstance(items, str):
        items = items.splitlines()
    most, chars = _ASKED_LIMITS[field]
    out: dict[str, str] = {}
    for item in items:
        if not isinstance(item, str):
            raise ValidationError("invalid_field", field=field, problem="must be a list of strings")
        one = scrub_text(" ".join(item.split()))
        if not one:
            continue
        if len(one) > chars:
            raise ValidationError("field_too_long", field=f"an item of {field}", length=len(one), limit=chars)
        out.setdefault(one.casefold(), one)
    if len(out) > most:
        raise ValidationError("invalid_field", field=field, problem=f"has {len(out)} items; the limit is {most}")
    return tuple(out.values())


def _select(where: str) -> str:
    return f"SELECT {COLUMNS} FROM records WHERE {where}"


def get(conn: sqlite3.Connection, record_id: str, project_id: str | None = None) -> Record | None:
    """A record by id (current or not); with `project_id`, only if that project may see it."""
    record_id = record_id.strip()
    if len(record_id) == 26 and record_id.isalnum():
        record_id = record_id.upper()  # ULIDs are case-insensitive (Crockford base32); we store them upper-case
    if project_id is None:
        row = conn.execute(_select("id = ?"), (record_id,)).fetchone()
    else:
        row = conn.execute(_select(f"id = ? AND {VISIBLE}"), (record_id, project_id)).fetchone()
    return to_record(row) if row else None


MIN_PREFIX = 6  # characters of a short id reference: a prefix, or (better) the end of the id
SHORT_ID = 8  # the end of an id that lists show: 40 random bits, unique in any real store


def short_id(record_id: str) -> str:
    """The short form of an id people can type back (`resolve` matches the end of an id)."""
    return record_id[-SHORT_ID:]


def resolve(conn: sqlite3.Connection, ref: str, project_id: str | None = None) -> Record:
    """A record by its id, a unique id prefix, or a unique end of an id (at least MIN_PREFIX characters each),
    visible from `project_id` (any namespace with None: the dashboard). A ULID's first 10 characters are its
    millisecond time, so records written within ~35 minutes share a 6-character prefix; its last 16 are random,
    so its end identifies it: the short form lists show (`short_id`). The one rule of every command, MCP `ctx_get`
    and the dashboard."""
    from ..base.errors import UsageError

    record = get(conn, ref, project_id)
    if record is not None:
        return record
    short = ref.strip().upper()
    if not (short.isalnum() and short.isascii() and len(short) < 26):
        raise NotFoundError("record_not_found", id=ref)
    if len(short) < MIN_PREFIX:
        raise UsageError("id_too_short", id=ref, min=MIN_PREFIX, example=short_id("01M8T5ABCDEFGHJKMNPQRSTVWX"))
    where, args = (f"AND {VISIBLE}", [project_id]) if project_id is not None else ("", [])
    # ULIDs are Crockford base32 (digits and capitals): "~" sorts after all of them, so this is an index range.
    rows = [to_record(r) for r in conn.execute(_select(f"id >= ? AND id < ? {where} ORDER BY id LIMIT 6"),
                                               (short, short + "~", *args))]
    if not rows:  # the end of an id (a scan: people type these, tools pass whole ids)
        rows = [to_record(r) for r in conn.execute(_select(f"substr(id, -?) = ? {where} ORDER BY id LIMIT 6"),
                                                   (len(short), short, *args))]
    if not rows:
        raise NotFoundError("record_not_found", id=ref)
    if len(rows) > 1:
        shown = [f"{r.id} {r.title!r}" for r in rows[:5]]
        raise UsageError("ambiguous_id", id=ref, count=f"{len(rows)}+" if len(rows) > 5 else len(rows),
                         candidates="; ".join(shown), matches=[r.id for r in rows[:5]])
    return rows[0]


def visible_history(conn: sqlite3.Connection, project_id: str) -> list[Record]:
    """Every record the project can see, current or superseded (what an import checks against)."""
    return [to_record(r) for r in conn.execute(_select(f"{VISIBLE} ORDER BY recorded_at, id"), (project_id,))]


def kept_title_outdated(old: Record, body: str) -> list[str]:
    """Words of `old`'s title that its body stated and `body` (its replacement's) no longer does: keeping the title
    over that body would say the old fact ("expire after 15 minutes" over a body saying 5)."""
    from ..base.text import content_terms, stems, tokens

    # By stem: a title saying "supported" is stated by a body saying "supports". The old body's appended rationale
    # (why it changed last time) states nothing the title says.
    words = content_terms(old.title)
    stated = old.body.rpartition("\n\nRationale: ")[0] or old.body
    new_stems, old_stems = set(stems(tokens(body))), set(stems(tokens(stated)))
    return [w for w, s in zip(words, stems(words)) if s in old_stems and s not in new_stems]


def require(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    record = get(conn, record_id, project_id)
    if record is None:
        raise NotFoundError("record_not_found", id=record_id)
    return record


def head(conn: sqlite3.Connection, record: Record) -> Record:
    """The current record at the end of `record`'s supersession chain."""
    seen = {record.id}
    while record.superseded_by:
        nxt = get(conn, record.superseded_by)
        if nxt is None or nxt.id in seen:
            break
        seen.add(nxt.id)
        record = nxt
    return record


def history(conn: sqlite3.Connection, record_id: str, project_id: str) -> list[Record]:
    """The whole supersession chain through `record_id`, oldest first."""
    record = require(conn, record_id, project_id)
    chain = [record]
    seen = {record.id}
    cur = record
    while True:  # back
        row = conn.execute(_select("superseded_by = ?"), (cur.id,)).fetchone()
        if row is None or row[0] in seen:
            break
        cur = to_record(row)
        seen.add(cur.id)
        chain.insert(0, cur)
    cur = record
    while cur.superseded_by and cur.superseded_by not in seen:  # forward
        nxt = get(conn, cur.superseded_by)
        if nxt is None:
            break
        seen.add(nxt.id)
        chain.append(nxt)
        cur = nxt
    return chain


def _write(conn: sqlite3.Connection, new: NewRecord, now: str) -> Record:
    rid = ulid()
    conn.execute(
        f"INSERT INTO records ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, NULL, NULL, 0, NULL, 1.0, 0.0, ?, ?, 1, "
        "?, ?, ?, ?)",
        (rid, new.project_id, new.type, new.title, new.body, new.scope, int(new.pinned), new.confidence,
         new.valid_from or now, now, new.source, new.session_id, lines(new.questions), lines(new.aliases),
         lines(new.anchors), new.guard or ""),
    )
    record = get(conn, rid)
    assert record is not None
    return record


def _mark_superseded(conn: sqlite3.Connection, old: Record, new_id: str, now: str) -> None:
    cur = conn.execute(
        "UPDATE records SET superseded_at = ?, superseded_by = ? WHERE id = ? AND superseded_at IS NULL",
        (now, new_id, old.id),
    )
    if cur.rowcount != 1:  # lost a race with another writer: the caller's view of the head is stale
        fresh = get(conn, old.id)
        raise ConflictError("already_superseded", id=old.id, superseded_by=fresh.superseded_by if fresh else None,
                            head=head(conn, fresh).id if fresh else None)


def _check_head(conn: sqlite3.Connection, old: Record, new: NewRecord) -> None:
    if old.superseded_at is not None:
        raise ConflictError("already_superseded", id=old.id, superseded_by=old.superseded_by, head=head(conn, old).id)
    if old.project_id != new.project_id:
        raise ConflictError("cross_namespace", id=old.id)


def _keyed_predecessors(conn: sqlite3.Connection, new: NewRecord) -> list[Record]:
    if new.type == "handover":
        rows = conn.execute(_select(f"project_id = ? AND type = 'handover' AND {CURRENT}"), (new.project_id,))
    elif new.type == "profile":
        rows = conn.execute(_select(f"project_id = ? AND type = 'profile' AND title = ? AND {CURRENT}"),
                            (new.project_id, new.title))
    else:
        return []
    return [to_record(r) for r in rows]


def _keep_guard(new: NewRecord, olds: "list[Record]") -> "tuple[NewRecord, Record | None]":
    """Only the user lifts a guard (SPEC §4.11): a writer other than the CLI or the dashboard that supersedes a
    guarded record (an agent through MCP, extraction, an import) gives the new head the old guard and the old
    anchors (the guard's scope) whatever it asked for. (new, the guarded record it kept the guard of, or None)."""
    from .guardlog import USER_SOURCES

    if new.source in USER_SOURCES:
        return new, None
    guarded = next((o for o in olds if o.guard), None)
    if guarded is None:
        return new, None
    return new.replace(guard=guarded.guard, anchors=guarded.anchors), guarded


def insert(conn: sqlite3.Connection, new: NewRecord, *, supersedes: str | None = None) -> tuple[Record, list[Record]]:
    """Validate and store `new`, superseding `supersedes` (and any keyed predecessor) in the same transaction; a
    guard on a superseded record is kept on the new head unless the user writes it (`_keep_guard`).

    Returns the new record and the records it superseded. Nothing is written when anything fails.
    """
    from . import guardlog

    new = validate(new)
    with atomic(conn):
        now = now_iso()
        olds: list[Record] = []
        if supersedes:
            old = get(conn, supersedes, new.project_id)
            if old is None:
                raise NotFoundError("record_not_found", id=supersedes)
            _check_head(conn, old, new)
            olds.append(old)
        for pred in _keyed_predecessors(conn, new):
            if pred.id not in {o.id for o in olds}:
                olds.append(pred)
        new, kept = _keep_guard(new, olds)
        record = _write(conn, new, now)
        if kept is not None:
            guardlog.note(conn, record.id, new.source, new.guard,
                          f"kept from {kept.id}: only the user lifts a guard (agentctx guard {record.id} --off)", now)
        else:
            guarded = [o for o in olds if o.guard]
            if guarded and all(o.guard != new.guard for o in guarded):  # the user changed or dropped it
                guardlog.note(conn, record.id, new.source, new.guard,
                              f"superseding {guarded[0].id}" + ("" if new.guard else ": lifted"), now)
        for old in olds:
            _mark_superseded(conn, old, record.id, now)
            conn.execute("INSERT OR IGNORE INTO edges (id, from_id, to_id, rel_type) VALUES (?, ?, ?, 'supersedes')",
                         (ulid(), record.id, old.id))
        superseded = [get(conn, o.id) for o in olds]
    _changed(conn, new.project_id)
    return record, [s for s in superseded if s is not None]


def with_rationale(body: str, rationale: "str | None") -> str:
    """A record's text with why it was chosen or changed after it (`Rationale: …`, SPEC §3.5), as `record`,
    `supersede`, `ctx_record` and `ctx_supersede` write it and history reads it back."""
    text = body.strip()
    if rationale and rationale.strip():
        text = f"{text}\n\nRationale: {rationale.strip()}"
    return text


def supersede(conn: sqlite3.Connection, old_id: str, project_id: str, *, body: str, rationale: str | None = None,
              title: str | None = None, source: str = "cli", session_id: str | None = None,
              questions: "Iterable[str] | None" = None, aliases: "Iterable[str] | None" = None,
              anchors: "Iterable[str] | None" = None,
              refuse_outdated_title: bool = False) -> tuple[Record, Record]:
    """Replace the head `old_id` with a new explicit record of the same type and scope; returns (old, new). The new
    record keeps the old one's questions, aliases, anchors and guard unless `questions`, `aliases` or `anchors`
    replace them. With `refuse_outdated_title` (the CLI, MCP), keeping a title the new body contradicts raises
    `title_outdated`."""
    old = require(conn, old_id, project_id)
    if refuse_outdated_title and title is None and old.superseded_at is None:
        outdated = kept_title_outdated(old, body)
        if outdated:
            raise ValidationError("title_outdated", title=old.title, words=", ".join(repr(w) for w in outdated))
    text = with_rationale(body, rationale)
    new = NewRecord(type=old.type, title=title or old.title, body=text, project_id=project_id, scope=old.scope,
                    confidence="explicit", source=source, session_id=session_id, pinned=old.pinned,
                    questions=old.questions if questions is None else tuple(questions),
                    aliases=old.aliases if aliases is None else tuple(aliases),
                    anchors=old.anchors if anchors is None else tuple(anchors), guard=old.guard)
    if old.scope == "global" and old.project_id == GLOBAL_PROJECT:
        new = new.replace(project_id=GLOBAL_PROJECT)
    elif old.project_id != project_id:
        raise ConflictError("cross_namespace", id=old.id)
    record, superseded = insert(conn, new, supersedes=old.id)
    return superseded[0], record


def set_asked(conn: sqlite3.Connection, record_id: str, project_id: str | None, *,
              questions: "Iterable[str] | None" = None, aliases: "Iterable[str] | None" = None) -> Record:
    """Set how a record will be asked, in place: its questions and aliases are index data about the record, not the
    fact it states, so changing them supersedes nothing (the expansion pass, the dashboard). None keeps a field."""
    record = require(conn, record_id, project_id) if project_id is not None else get(conn, record_id)
    if record is None:
        raise NotFoundError("record_not_found", id=record_id)
    new_q = record.questions if questions is None else asked_items(questions, "questions")
    new_a = record.aliases if aliases is None else asked_items(aliases, "aliases")
    if (new_q, new_a) == (record.questions, record.aliases):
        return record
    with atomic(conn):
        conn.execute("UPDATE records SET questions = ?, aliases = ? WHERE id = ?",
                     (lines(new_q), lines(new_a), record.id))
    return record._replace(questions=new_q, aliases=new_a)


def set_anchors(conn: sqlite3.Connection, record_id: str, project_id: str | None,
                anchors: "Iterable[str] | str", *, root: str | None = None, by: str = "cli") -> Record:
    """Set what a record governs, in place: anchors are index data about the record, not the fact it states, so
    changing them supersedes nothing (capture, the dashboard, a team import). The digests and the anchor map are
    refreshed, since the pre-action hook reads them. A guarded record's anchors are its guard's scope: only the user
    (`by` cli or dashboard) changes them; any other writer leaves them as they are."""
    from .guardlog import USER_SOURCES

    record = require(conn, record_id, project_id) if project_id is not None else get(conn, record_id)
    if record is None:
        raise NotFoundError("record_not_found", id=record_id)
    if record.guard and by not in USER_SOURCES:
        return record
    new = anchor_items(anchors, root)
    if new == record.anchors:
        return record
    with atomic(conn):
        conn.execute("UPDATE records SET anchors = ? WHERE id = ?", (lines(new), record.id))
    _changed(conn, record.project_id)
    return record._replace(anchors=new)


def set_guard(conn: sqlite3.Connection, record_id: str, project_id: str, guard: str, *, by: str = "cli") -> Record:
    """Make a record a guard (`base/guards.py` stored form) or, with "", stop enforcing it; in place, like anchors,
    noted in `guard_changes` with who did it (`by`: `cli` or `dashboard`, the only ways a guard changes).
    Only a record someone stated can be enforced: an inferred one (capture, an unconfirmed extraction) cannot."""
    from . import guardlog

    record = require(conn, record_id, project_id)
    if guard and record.confidence == "inferred":
        raise ValidationError("invalid_field", field="guard",
                              problem="refused: an inferred record cannot be a guard (confirm it first)")
    if guard == record.guard:
        return record
    with atomic(conn):
        conn.execute("UPDATE records SET guard = ? WHERE id = ?", (guard, record.id))
        guardlog.note(conn, record.id, by, guard, "" if guard else "lifted")
    _changed(conn, record.project_id)
    return record._replace(guard=guard)


def anchored(conn: sqlite3.Connection, project_id: str) -> list[Record]:
    """Current records visible from `project_id` that govern something (anchors) or are guards: the pre-action
    hook's map. Pinned and stated records first, then newest."""
    sql = _select(f"{VISIBLE} AND {CURRENT} AND (anchors != '' OR guard != '')")
    sql += (" ORDER BY guard = '', pinned DESC, CASE confidence WHEN 'explicit' THEN 0 WHEN 'team' THEN 1 "
            "WHEN 'reinforced' THEN 2 ELSE 3 END, recorded_at DESC, id DESC")
    return [to_record(r) for r in conn.execute(sql, (project_id,))]


def retire(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    """End a current record's transaction time with no successor (`superseded_at` set, `superseded_by` NULL):
    it leaves default retrieval, stays in history and `as_of` queries. Nothing is deleted."""
    record = require(conn, record_id, project_id)
    with atomic(conn):
        if record.superseded_at is not None:
            raise ConflictError("already_superseded", id=record.id, superseded_by=record.superseded_by,
                                head=head(conn, record).id)
        conn.execute("UPDATE records SET superseded_at = ? WHERE id = ? AND superseded_at IS NULL",
                     (now_iso(), record.id))
        fresh = get(conn, record.id)
    assert fresh is not None
    _changed(conn, record.project_id)  # a retired rule must leave the digest and the anchor map at once
    return fresh


def set_pinned(conn: sqlite3.Connection, record_id: str, project_id: str, pinned: bool) -> Record:
    record = require(conn, record_id, project_id)
    with atomic(conn):
        conn.execute("UPDATE records SET pinned = ? WHERE id = ?", (int(pinned), record.id))
    if record.pinned != pinned:
        _changed(conn, record.project_id)
    return record.replace(pinned=pinned)


def reinforce(conn: sqlite3.Connection, record_id: str, *, threshold: int, confirmed: bool = False) -> Record:
    """Count one more independent sighting; inferred becomes reinforced once seen in `threshold` sessions (the
    record's own plus `reinforce_count` others, SPEC §3.3) or on an explicit confirmation."""
    with atomic(conn):
        conn.execute("UPDATE records SET reinforce_count = reinforce_count + 1 WHERE id = ?", (record_id,))
        promoted = conn.execute(
            "UPDATE records SET confidence = 'reinforced' WHERE id = ? AND confidence = 'inferred' "
            "AND (reinforce_count + 1 >= ? OR ?)",
            (record_id, threshold, int(confirmed)),
        ).rowcount
        record = get(conn, record_id)
    if record is None:
        raise NotFoundError("record_not_found", id=record_id)
    if promoted:
        _changed(conn, record.project_id)
    return record


def add_evidence(conn: sqlite3.Connection, record_id: str, quote: str) -> None:
    """Keep the quote an extracted record was grounded in (the first one: later sightings only reinforce)."""
    quote = quote.strip()[:EVIDENCE_MAX]
    if quote:
        with atomic(conn):
            conn.execute("INSERT OR IGNORE INTO record_evidence (record_id, quote) VALUES (?, ?)", (record_id, quote))


def evidence(conn: sqlite3.Connection, record_id: str) -> str | None:
    row = conn.execute("SELECT quote FROM record_evidence WHERE record_id = ?", (record_id,)).fetchone()
    return row[0] if row else None


def confirm(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    """The user vouches for a record: it becomes explicit (a confidence change, not a new fact: no supersession)."""
    record = require(conn, record_id, project_id)
    if not record.is_current:
        raise ConflictError("already_superseded", id=record.id, superseded_by=record.superseded_by,
                            head=head(conn, record).id)
    with atomic(conn):
        conn.execute("UPDATE records SET confidence = 'explicit' WHERE id = ?", (record.id,))
    if record.confidence != "explicit":  # an inferred record enters the digest; the map shows its confidence
        _changed(conn, record.project_id)
    return record.replace(confidence="explicit")


def delete(conn: sqlite3.Connection, record_id: str, project_id: str) -> Record:
    """Delete one record on the user's explicit request; its predecessor becomes current again if it was the head."""
    record = require(conn, record_id, project_id)
    with atomic(conn):
        conn.execute(
            "UPDATE records SET superseded_by = ?, superseded_at = CASE WHEN ? IS NULL THEN NULL ELSE superseded_at END "
            "WHERE superseded_by = ?",
            (record.superseded_by, record.superseded_by, record.id),
        )
        conn.execute("DELETE FROM edges WHERE from_id = ? OR to_id = ?", (record.id, record.id))
        conn.execute("DELETE FROM records WHERE id = ?", (record.id,))
    _changed(conn, record.project_id)
    return record


def current(conn: sqlite3.Connection, project_id: str, *, types: Iterable[str] | None = None,
            own_only: bool = False, limit: int | None = None) -> list[Record]:
    """Current records visible from `project_id`, newest first."""
    where = "project_id = ?" if own_only else VISIBLE
    args: list[object] = [project_id]
    sql = _select(f"{where} AND {CURRENT}")
    type_list = list(types or ())
    if type_list:
        sql += f" AND type IN ({','.join('?' * len(type_list))})"
        args += type_list
    sql += " ORDER BY recorded_at DESC, id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [to_record(r) for r in conn.execute(sql, args)]


def all_current(conn: sqlite3.Connection) -> "Iterable[Record]":
    """Every current record of every namespace, by id (derived files keyed by record id: retrieval/meaning.py)."""
    return (to_record(r) for r in conn.execute(_select(f"{CURRENT} ORDER BY id")))


def established(conn: sqlite3.Connection, project_id: str, *, types: Iterable[str], limit: int) -> list[Record]:
    """The digest's current non-inferred records of one namespace: pinned first, then stored score, types in the
    order given, newest first."""
    # One query per type, each an ordered scan of records_ranked that stops at `limit`: one query over all types
    # would sort every established record of the project on each digest rebuild.
    rank = {t: i for i, t in enumerate(dict.fromkeys(types))}
    # A rule file's record enters the digest only when its format says it always applies (kept pinned, SPEC §4.12):
    # the others are delivered at the edit they govern, or when a prompt is about them.
    sql = _select(f"project_id = ? AND {CURRENT} AND confidence != 'inferred' AND type = ? "
                  "AND (source != 'rule_file' OR pinned = 1)")
    sql += " ORDER BY pinned DESC, score DESC, recorded_at DESC, id DESC LIMIT ?"
    found = [to_record(r) for t in rank for r in conn.execute(sql, (project_id, t, limit))]
    found.sort(key=lambda r: (r.recorded_at, r.id), reverse=True)  # stable sorts: newest first breaks the ties
    found.sort(key=lambda r: (not r.pinned, -(r.score or 0.0), rank[r.type]))
    return found[:limit]


def counts_by_type(conn: sqlite3.Connection, project_id: str, *, scope: str | None = None) -> dict[str, int]:
    """Current records of one namespace by type (optionally of one scope only)."""
    sql = f"SELECT type, count(*) FROM records WHERE project_id = ? AND {CURRENT}"
    args: list[object] = [project_id]
    if scope is not None:
        sql += " AND scope = ?"
        args.append(scope)
    return {t: n for t, n in conn.execute(sql + " GROUP BY type", args)}


def find_same(conn: sqlite3.Connection, new: NewRecord) -> Record | None:
    """A current record with the same namespace, type, title and body (verbatim duplicate)."""
    new = validate(new)
    row = conn.execute(
        _select(f"project_id = ? AND type = ? AND title = ? AND body = ? AND {CURRENT}"),
        (new.project_id, new.type, new.title, new.body),
    ).fetchone()
    return to_record(row) if row else None


def touch(conn: sqlite3.Connection, ids: Iterable[str]) -> None:
    """Count a read of each record (derived access statistics)."""
    id_list = list(ids)
    if not id_list:
        return
    with atomic(conn):
        conn.executemany("UPDATE records SET access_count = access_count + 1, last_accessed = ? WHERE id = ?",
                         [(now_iso(), i) for i in id_list])


def delete_type(conn: sqlite3.Connection, project_id: str, type_: str) -> int:
    """Delete every record of one type in one namespace, superseded ones included (`profile clear`)."""
    with atomic(conn):
        ids = [r[0] for r in conn.execute("SELECT id FROM records WHERE project_id = ? AND type = ?",
                                          (project_id, type_))]
        marks = ",".join("?" * len(ids))
        if ids:
            conn.execute(f"UPDATE records SET superseded_by = NULL WHERE superseded_by IN ({marks})", ids)
            conn.execute(f"DELETE FROM edges WHERE from_id IN ({marks}) OR to_id IN ({marks})", ids + ids)
            conn.execute(f"DELETE FROM records WHERE id IN ({marks})", ids)
    if ids:
        _changed(conn, project_id)
    return len(ids)


def delete_project(conn: sqlite3.Connection, project_id: str) -> int:
    """Remove every record and derived row of one project (never `_global`); returns the records removed."""
    with atomic(conn):
        ids = [r[0] for r in conn.execute("SELECT id FROM records WHERE project_id = ?", (project_id,))]
        conn.execute("UPDATE records SET superseded_by = NULL WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM edges WHERE from_id IN (SELECT id FROM records WHERE project_id = ?) "
                     "OR to_id IN (SELECT id FROM records WHERE project_id = ?)", (project_id, project_id))
        conn.execute("DELETE FROM edges WHERE from_id IN (SELECT id FROM nodes WHERE project_id = ?) "
                     "OR to_id IN (SELECT id FROM nodes WHERE project_id = ?)", (project_id, project_id))
        conn.execute("DELETE FROM records WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM nodes WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM sessions WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM injections WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM prompts WHERE project_id = ?", (project_id,))
        # its file sync state (SPEC §3.8) and its "before" marks (§4.11)
        for table in ("team_sync", "team_versions", "team_files", "rule_files", "before_marks"):
            conn.execute(f"DELETE FROM {table} WHERE project_id = ?", (project_id,))
        for table in ("agent_memory", "agent_memory_skip"):  # the agents' own memory read for it (SPEC §3.10)
            conn.execute(f"DELETE FROM {table} WHERE project_id = ?", (project_id,))
        conn.execute("DELETE FROM project_roots WHERE project_id = ?", (project_id,))  # which repository it was
    _changed(conn, project_id)
    return len(ids)
