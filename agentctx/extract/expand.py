"""The expansion pass: records stored without questions and aliases get them from the extraction backend, batched."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from ..base import config, extras
from ..base.errors import AgentctxError, MissingExtraError
from ..base.models import Record
from ..base.redact import scrub_text
from ..base.tokens import estimate
from ..store import expansion as attempts
from ..store import extraction as calls
from ..store import records
from . import backend, cost, cursor, quota
from . import client as api
from .log import log

# Handovers are keyed and live a week, profiles are detected facts asked by their key: neither is worth a call.
TYPES = ("decision", "convention", "preference", "discovery", "bugfix")
BATCH = 20  # records per call: ~7K tokens in, ~2.4K out, under the 4,096 output tokens a call may use
# Characters of a body sent: the whole of almost every record (they are written short), so the model sees the
# concrete names it is to write other names for, not only the start; ~9K tokens in for a batch of 20 at most.
BODY_SENT = 2_000
CONSOLIDATE_BATCHES = 2  # per consolidation: it runs at session end, in the background, and should stay short
# A failed record is sent again after a day, then after three more; after its third failure it is left alone
# until its text changes. At least a day apart, so no record counts twice against one day's bound.
RETRY_AFTER = (timedelta(days=1), timedelta(days=3))
OUTPUT_PER_RECORD = 120  # tokens the model writes per record, for estimates only
# One pass at a time, whoever runs it (two sessions ending together, `agentctx expand`): else both would pick the same
# records and pay twice. Held with no wait: the other pass's records are the same ones.
LOCK = "_expansion-pass"

TOOL_NAME = "record_expansions"
_STRINGS = {"type": "array", "items": {"type": "string"}}
SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["records"],
    "properties": {"records": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["id", "questions", "aliases"],
        "properties": {"id": {"type": "string"}, "questions": _STRINGS, "aliases": _STRINGS}}}}}
CONTRACT: api.Contract = (TOOL_NAME, "Record the questions and aliases written for each record.", SCHEMA)

SYSTEM = """You help a memory tool for coding agents find its records again. Later, a developer on this project will
type a prompt to their coding agent; when the prompt is about one of these records, the record must be found from the
words the developer used. You get the PROJECT (its stack, when known) and RECORDS of it (decisions,
conventions, preferences, discoveries, bug fixes), each as [id] (type) title, then its whole text.

For every record, from the record alone, write:
- "questions": 4 to 6 short questions a developer on this project would type to their coding agent when the
  record is the answer: the plain words of someone who has not read it ("where do the release notes for my change
  go?", "why can't i use the orm here?"), naming the concrete things the record is about. One question each, lower
  case is fine.
- "aliases": up to 10 other names a developer on this project would type for the specific thing the record is
  about, that the record's own text does not use: the tool, file, command or practice by its other names,
  abbreviations and their expansions, misspellings people make, the rejected or competing alternatives by name.
  Each 1 to 4 words. Only names that point at this record: never a broad category that would fit many records or
  everyday requests ("logging", "documentation", "cloud provider", "testing", "database", "best practices"); write
  "json logs via structlog", "changelog.d fragment", "aws eu-west-2" instead, or leave it out. Fewer good aliases
  are better than ten vague ones.

Rules:
1. One entry per record, with its "id" exactly as given ("r1", "r2", ...). Never invent ids.
2. Use only what the record says or plainly implies; add no facts about the project.
3. Questions at most 200 characters, aliases at most 60; no repeats.
4. Text marked [REDACTED…] is a removed secret: never try to reconstruct it, and never write a password, key,
   token or other secret.

Example. PROJECT: Python 3.12, Flask, SQLite. RECORDS:
[r1] (decision) Use raw SQL via sqlite3, no ORM
Use raw SQL via sqlite3, no ORM.

Rationale: it's one file.
Good entry: {"id": "r1", "questions": ["do we use an orm?", "how do i query the invoices table?", "why not
sqlalchemy?", "can i add models for the tables?", "where do the sql queries go?"], "aliases": ["sqlalchemy",
"peewee", "django orm", "query builder", "plain sqlite3", "hand-written sql"]}
Not: "database", "data layer", "persistence" (they fit any record about storage, and many prompts).
"""


@dataclass
class ExpandResult:
    """What a pass did: records sent, expanded and failed, its calls and their cost, a line per batch; `skipped` says
    why it sent nothing or stopped early (None when it ran out of records or of its bound)."""

    backend: str = "off"
    sent: int = 0
    expanded: int = 0
    failed: int = 0
    unknown_ids: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    skipped: str | None = None
    reason: str | None = None
    batches: list[str] = field(default_factory=list)
    record_ids: list[str] = field(default_factory=list)


def user_message(batch: list[tuple[str, Record]], project: str = "") -> str:
    """The user turn: the project (`project`: its stack, when known), then each record as `[id] (type)
    title` and its text (cut to BODY_SENT), scrubbed whole."""
    parts = [f"PROJECT: {project}" if project else "PROJECT: (stack not known)", "RECORDS:"]
    for key, record in batch:
        body = record.body if len(record.body) <= BODY_SENT else record.body[: BODY_SENT - 1].rstrip() + "…"
        parts.append(f"[{key}] ({record.type}) {record.title}\n{body}")
    # Records are stored scrubbed; scrubbed again with today's rules, since this text leaves the machine.
    return scrub_text("\n\n".join(parts))


def project_line(conn: sqlite3.Connection, batch: list[Record]) -> str:
    """What the model is told about the project of a batch's first record: the start of its profile's stack, so
    questions and aliases can name what this project uses. Empty when the project has no profile."""
    if not batch:
        return ""
    try:
        stack = [r for r in records.current(conn, batch[0].project_id, types=["profile"], own_only=True)
                 if r.title == "Stack"]
    except sqlite3.Error:
        return ""
    return " ".join(stack[0].body.split())[:300] if stack else ""


def _items(raw: Any, field_name: str) -> tuple[str, ...]:
    """One entry's questions or aliases, cut to the limits (store.records.asked_within_limits: a non-string, blank or
    overlong item is dropped, as half a question asks nothing; repeats too; each scrubbed as the store does)."""
    return records.asked_within_limits(raw, field_name)


def _key(raw: Any) -> str | None:
    return raw.strip().strip("[]").strip().lower() if isinstance(raw, str) else None


def answers(data: Any, keys: set[str]) -> tuple[dict[str, tuple[tuple[str, ...], tuple[str, ...]]], int]:
    """({id: (questions, aliases)}, ids not in `keys`) from a decoded answer: `{"records": [{id, questions,
    aliases}]}`, or a mapping by id. Each entry stands alone: a malformed one is skipped, the others kept; the first
    entry of an id wins; an entry with nothing usable is left out (its record counts as not answered)."""
    entries = data.get("records") if isinstance(data, dict) else None
    if entries is None and isinstance(data, dict):
        entries = data  # {"r1": {...}}: the id-keyed form some answers take
    if isinstance(entries, dict):
        entries = [dict(value, id=key) for key, value in entries.items() if isinstance(value, dict)]
    if not isinstance(entries, list):
        return {}, 0
    got: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    unknown = 0
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        key = _key(entry.get("id"))
        if key not in keys:
            unknown += 1
            continue
        if key in got:
            continue
        questions, aliases = _items(entry.get("questions"), "questions"), _items(entry.get("aliases"), "aliases")
        if questions or aliases:
            got[key] = (questions, aliases)
    return got, unknown


def estimate_batch(batch: list[Record], model: str) -> tuple[int, float]:
    """(input tokens, dollars) one call over `batch` would cost, estimated as chars / 4 (dry runs)."""
    keyed = [(f"r{i}", r) for i, r in enumerate(batch, 1)]
    sent = estimate(SYSTEM) + estimate(str(SCHEMA)) + estimate(user_message(keyed))
    return sent, cost.estimate_usd(sent, OUTPUT_PER_RECORD * len(batch), model)


def _client(choice: backend.Choice) -> Any:
    if choice.backend == "claude-code":
        from .claude_code import ClaudeCodeClient, quiet_dir

        return ClaudeCodeClient(str(choice.claude), cwd=quiet_dir())
    return api.make()  # MissingExtraError without the [llm] extra


def _stop(result: ExpandResult, code: str, reason: str) -> ExpandResult:
    result.skipped, result.reason = code, reason
    return result


def run(conn: sqlite3.Connection, project_id: str | None, *, limit: int | None = None,
        max_batches: int | None = None, dry_run: bool = False, client: Any = None,
        settings: dict[str, Any] | None = None, out: Callable[[str], None] | None = None, sleep: Any = None,
        now: datetime | None = None) -> ExpandResult:
    """Write questions and aliases for the records visible from `project_id` (every namespace with None) that have
    neither, newest first, BATCH to a call, within `expansionRecordsPerDay`, `limit` records and `max_batches` calls.
    `client` replaces the backend's (tests). Backend failures are reported in the result, never raised."""
    settings = settings if settings is not None else config.load()
    say = out or (lambda line: None)
    now = now or datetime.now(timezone.utc)
    choice = backend.choose(settings)
    result = ExpandResult(backend="api" if client is not None else choice.backend)  # a client passed in is the API's
    per_day = int(settings["expansionRecordsPerDay"])
    if per_day == 0:
        return _stop(result, "disabled", "config expansionRecordsPerDay is 0")
    if client is None and not choice.on and not dry_run:
        if settings["extraction"] in ("api", "auto") and api.api_key() is not None and extras.missing("llm"):
            return _stop(result, "missing_extra", extras.describe("llm"))
        return _stop(result, "off", choice.reason)
    if client is None and not dry_run and choice.backend == "claude-code":
        why = quota.paused()
        if why:
            return _stop(result, "paused", f"the Claude Code backend is {why}")
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    room = per_day - attempts.tried_since(conn, today)
    if room <= 0:
        return _stop(result, "daily_limit", f"{per_day} records were sent today (expansionRecordsPerDay)")
    room = room if limit is None else min(room, limit)
    if max_batches is not None:
        room = min(room, max_batches * BATCH)
    model = str(settings["extractionModel"])
    if dry_run:
        return _preview(conn, project_id, room, model, now, result, say)
    if client is None:
        try:
            client = _client(choice)
        except MissingExtraError:
            return _stop(result, "missing_extra", extras.describe("llm"))
    with cursor.lock(LOCK, 0) as held:
        if not held:
            return _stop(result, "busy", "another expansion pass is running")
        attempts.prune(conn, today - timedelta(days=1))
        per_hour = int(settings["extractionCallsPerHour"])
        while room > 0:
            if result.backend == "claude-code" and quota.over_limit(conn, per_hour, now):
                return _stop(result, "quota", f"{per_hour} Claude Code calls in the last hour "
                                              "(extractionCallsPerHour); the rest waits")
            due = attempts.due(conn, project_id, TYPES, limit=min(BATCH, room), now=now)
            if not due:
                break
            room -= len(due)
            if not _batch(conn, client, model, due, project_id, result, sleep, now, say):
                break
    if result.calls == 0 and result.skipped is None:
        _stop(result, "nothing_due", "no record needs questions or aliases now")
    return result


def _preview(conn: sqlite3.Connection, project_id: str | None, room: int, model: str, now: datetime,
             result: ExpandResult, say: Callable[[str], None]) -> ExpandResult:
    due = attempts.due(conn, project_id, TYPES, limit=room, now=now)
    for n, start in enumerate(range(0, len(due), BATCH), 1):
        batch = due[start:start + BATCH]
        sent, usd = estimate_batch(batch, model)
        line = f"batch {n}: would send {len(batch)} records, ~{sent:,} tokens in, ~${usd:.4f}"
        result.batches.append(line)
        result.input_tokens += sent
        result.cost_usd += usd
        say(line)
    result.record_ids = [r.id for r in due]
    return _stop(result, "dry_run", f"{len(due)} records would be sent; nothing was")


def _batch(conn: sqlite3.Connection, client: Any, model: str, due: list[Record], project_id: str | None,
           result: ExpandResult, sleep: Any, now: datetime, say: Callable[[str], None]) -> bool:
    """One call over `due`; False when the pass should stop (the backend failed or asks to wait)."""
    n = result.calls + 1
    keyed = {f"r{i}": r for i, r in enumerate(due, 1)}
    answer = api.complete(client, model, SYSTEM, user_message(list(keyed.items()), project_line(conn, due)),
                          sleep=sleep, contract=CONTRACT)
    usd = answer.cost_usd if answer.cost_usd is not None else cost.usd(answer.usage, answer.model)
    result.calls += 1
    result.input_tokens += answer.usage.sent
    result.output_tokens += answer.usage.output
    result.cost_usd += usd
    calls.log_call(conn, backend=result.backend, project_id=project_id, session_id=None,
                   calls=max(answer.usage.calls, 1), input_tokens=answer.usage.sent,
                   output_tokens=answer.usage.output, cost_usd=usd, purpose="expand",
                   outcome="ok" if answer.data is not None else (answer.error or "failed")[:200])
    spent = f"1 call, {answer.usage.sent:,} tokens in, {answer.usage.output:,} out, ${usd:.4f}"
    if answer.data is None and answer.backs_off:
        # A rate limit or a login problem is nobody's record's fault: nothing is marked, and extraction waits too.
        kind, _, detail = (answer.error or "").partition(":")
        seconds = quota.pause(kind, detail.strip())
        _said(result, say, f"batch {n}: {len(due)} records not expanded: {answer.error}; the Claude Code backend "
                           f"waits {seconds / 60:.0f} min ({spent})")
        _stop(result, "paused", str(answer.error))
        return False
    if answer.data is None:
        attempts.mark(conn, [(r, answer.error or "failed") for r in due], now=now, retry_after=RETRY_AFTER)
        result.sent += len(due)
        result.failed += len(due)
        _said(result, say, f"batch {n}: {len(due)} records sent, the answer could not be used ({answer.error}); "
                           f"they are tried again later ({spent})")
        _stop(result, "failed", str(answer.error))
        return False
    got, unknown = answers(answer.data, set(keyed))
    outcomes: list[tuple[Record, str | None]] = [(r, _store(conn, r, got.get(k), result)) for k, r in keyed.items()]
    attempts.mark(conn, outcomes, now=now, retry_after=RETRY_AFTER)
    failed = sum(1 for _, why in outcomes if why is not None)
    result.sent += len(due)
    result.failed += failed
    result.unknown_ids += unknown
    _said(result, say, f"batch {n}: {len(due)} records sent, {len(due) - failed} given questions and aliases"
                       + (f", {failed} not answered (tried again later)" if failed else "")
                       + (f", {unknown} unknown ids ignored" if unknown else "") + f" ({spent})")
    return True


def _store(conn: sqlite3.Connection, record: Record, got: tuple[tuple[str, ...], tuple[str, ...]] | None,
           result: ExpandResult) -> str | None:
    """Set one record's questions and aliases; None when done, else why not (the others of the batch go on)."""
    if got is None:
        return "not answered"
    try:
        fresh = records.get(conn, record.id)
        if fresh is None:
            return "the record is gone"
        if not (fresh.questions or fresh.aliases):  # someone may have set them while the call ran: theirs stay
            records.set_asked(conn, record.id, None, questions=got[0], aliases=got[1])
        result.expanded += 1
        result.record_ids.append(record.id)
        return None
    except (AgentctxError, sqlite3.Error) as exc:
        log(f"expand: record {record.id}: not stored: {exc}")
        return f"not stored: {exc}"


def _said(result: ExpandResult, say: Callable[[str], None], line: str) -> None:
    result.batches.append(line)
    log(f"expand: {line}")
    say(line)


def describe(result: ExpandResult) -> str:
    """The pass in one line, for `agentctx expand` and consolidation's report."""
    spent = (f"; {result.calls} call(s), {result.input_tokens:,} tokens in, {result.output_tokens:,} out, "
             f"${result.cost_usd:.4f}") if result.calls else ""
    if result.skipped == "dry_run":
        return f"{result.reason} (~{result.input_tokens:,} tokens in, ~${result.cost_usd:.4f})"
    done = (f"{result.expanded} of {result.sent} records given questions and aliases"
            + (f", {result.failed} tried again later" if result.failed else "")) if result.sent else "nothing expanded"
    return done + (f" ({result.skipped}: {result.reason})" if result.skipped else "") + spent
