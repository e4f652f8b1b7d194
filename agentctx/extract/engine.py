"""One extraction run: lock, read what is new since the cursor, call, validate, ingest, account cost, advance."""

from __future__ import annotations

import json
import os
import sqlite3
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..base import config, extras, paths
from ..base.errors import AgentctxError, MissingExtraError
from ..base.project import detect
from ..base.tokens import estimate, truncate
from ..store import db, records, sessions
from ..store import extraction as extraction_calls
from . import backend, cost, cursor, policy, prompt, quota, transcript, validate
from . import client as api
from .ingest import ingest
from .log import log

# One line of what to do, per Claude Code CLI failure that pauses extraction.
_ADVICE = {
    "rate_limit": "Your Claude Code usage limit was reached: extraction waits and tries again.",
    "auth": "Claude Code is not logged in here: run `claude` and /login (or set ANTHROPIC_API_KEY for the API backend).",
    "missing": "Install Claude Code, or point agentctx at it: `agentctx config set claudeCodePath /path/to/claude`.",
    "offline": "Claude Code could not reach its API (offline?): extraction waits and tries again.",
    "broken": "Check that `claude -p hello` works in a terminal.",
    "timeout": "The call took too long; it is retried later.",
}
LOCK_WAIT_S = 120.0  # a Stop run waits this long for the previous run of its session
FINAL_LOCK_WAIT_S = 300.0  # the SessionEnd pass waits longer: it must see the newest handover
PARALLEL = 3  # map-reduce chunk calls in flight at once
MAX_FAILURES = 3  # after this many failed attempts on the same new part, skip it rather than pay forever
RECORDS_BUDGET = 1_500  # tokens of existing-record lines shown to the model
HANDOVER_BUDGET = 400
EXPECTED_OUTPUT_TOKENS = 600  # for dry-run estimates only
_LISTED = ("decision", "convention", "preference", "discovery", "bugfix")


@dataclass(frozen=True)
class ExtractResult:
    """What a run did. `skipped` says why nothing was sent (None when a call was made)."""

    session_id: str
    written: int = 0
    dropped: int = 0
    reinforced: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    tokens_sent: int = 0
    skipped: str | None = None
    mode: str | None = None
    record_ids: tuple[str, ...] = ()


def _project_id(conn: sqlite3.Connection, session_id: str, cwd: str | None, seen_cwd: str | None) -> str:
    # An explicit cwd wins; else the session's project as the hooks recorded it; else the transcript's cwd.
    if cwd:
        return detect(cwd).id
    row = conn.execute("SELECT project_id FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row and row[0]:
        return str(row[0])
    return detect(seen_cwd if seen_cwd and os.path.isdir(seen_cwd) else None).id


def context_lines(conn: sqlite3.Connection, project_id: str) -> tuple[list[str], str]:
    """Existing records (id, type, title) within budget, newest first, and the current handover's body."""
    lines: list[str] = []
    used = 0
    for r in records.current(conn, project_id, types=_LISTED, limit=400):
        line = f"- {r.id} [{r.type}] {r.title}"
        used += estimate(line) + 1
        if used > RECORDS_BUDGET:
            break
        lines.append(line)
    hand = records.current(conn, project_id, types=["handover"], own_only=True, limit=1)
    return lines, truncate(policy.clean(hand[0].body), HANDOVER_BUDGET) if hand else ""


def _carry_from(turns: tuple[transcript.Turn, ...], default: int) -> int:
    """Offset of the earliest turn that still fits in the carry-over budget (raw text, before caps)."""
    start, used = default, 0
    for turn in reversed(turns):
        used += estimate(turn.text) + 4
        if used > policy.CARRY_TOKENS * 2:
            break
        start = turn.offset
    return start


def _merge(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """Deterministic fallback when the synthesis call fails: entries concatenated, the latest active_work."""
    merged: dict[str, Any] = {"decisions": [], "preferences": [], "conventions": [], "gotchas": [],
                              "active_work": None, "flush_ok": all(o.get("flush_ok") is True for o in outputs)}
    for out in outputs:
        for key in ("decisions", "preferences", "conventions", "gotchas"):
            if isinstance(out.get(key), list):
                merged[key].extend(out[key])
        if isinstance(out.get("active_work"), dict):
            merged["active_work"] = out["active_work"]
    return merged


@dataclass
class _Attempts:
    """The calls a run attempted, and the last failure its backend says to wait on (a rate limit, a login problem,
    a CLI that cannot run) rather than count against the part being sent."""

    made: int = 0
    wait_on: str | None = None


def _call(client: Any, model: str, plan: policy.Plan, lines: list[str], handover: str,
          sleep: Any, attempts: _Attempts | None = None) -> tuple[dict[str, Any] | None, float, cost.Usage, str | None]:
    """(data, usd, usage, error) over however many calls the plan needs."""
    usd, usage = 0.0, cost.Usage()

    def one(system: str, user: str, calls: int) -> api.Answer:
        nonlocal usd, usage
        answer = api.complete(client, model, system, user, calls=calls, sleep=sleep)
        usd += answer.cost_usd if answer.cost_usd is not None else cost.usd(answer.usage, answer.model)
        usage = usage + answer.usage
        if attempts is not None:
            attempts.made += 1
            if answer.backs_off:
                attempts.wait_on = answer.error
        if answer.error:
            log(f"call failed ({answer.mode}): {answer.error}")
        return answer

    if len(plan.windows) == 1:
        ans = one(prompt.SYSTEM, prompt.user_message(plan.windows[0], carry=plan.carry, records=lines,
                                                     handover=handover, actions=plan.actions), 1)
        return ans.data, usd, usage, ans.error
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        answers = list(pool.map(
            lambda w: one(prompt.SYSTEM, prompt.user_message(w, carry=plan.carry, records=lines, actions=plan.actions),
                          len(plan.windows)),
            plan.windows))
    outputs = [a.data for a in answers if a.data is not None]
    if not outputs:
        return None, usd, usage, answers[-1].error
    lost = len(answers) - len(outputs)
    if lost:
        log(f"map-reduce: {lost} of {len(answers)} chunks failed; synthesising the rest")
    synth = one(prompt.SYNTHESIS, prompt.synthesis_message(outputs, records=lines, handover=handover), 1)
    return (synth.data if synth.data is not None else _merge(outputs)), usd, usage, None


def _root_of(cwd: str | None) -> str | None:
    """The repository root a session's relative anchors are taken from."""
    if not cwd:
        return None
    from ..base.roots import git_root

    return git_root(cwd) or cwd


def _settle_offline(conn: sqlite3.Connection, session_id: str, project_id: str, path: Path) -> None:
    """A session extracted by hand (`agentctx extract`, backfill) that Claude Code does not have open gets its end,
    at the transcript's last change: else it stays a session with no end forever."""
    if os.path.exists(paths.open_marker_file(session_id)):
        return  # live: its SessionEnd (or the stale-session close) ends it
    row = conn.execute("SELECT ended_at FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row is None or row[0] is not None:
        return
    from datetime import datetime, timezone

    from ..base.ids import to_iso

    sessions.end(conn, session_id, project_id, at=to_iso(datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)))


def plan_tokens(plan: policy.Plan, lines: list[str], handover: str) -> tuple[int, int]:
    """(input tokens, calls) a plan will send, estimated as chars / 4; used by dry runs and backfill."""
    fixed = estimate(prompt.SYSTEM) + estimate(json.dumps(prompt.SCHEMA))
    users = [prompt.user_message(w, carry=plan.carry, records=lines, handover=handover, actions=plan.actions)
             for w in plan.windows]
    sent = sum(fixed + estimate(u) for u in users)
    if len(users) > 1:  # the synthesis call reads every chunk's answer
        sent += fixed + estimate(prompt.SYNTHESIS) + EXPECTED_OUTPUT_TOKENS * len(users)
    return sent, len(users) + (1 if len(users) > 1 else 0)


def estimate_plan(plan: policy.Plan, model: str, lines: list[str], handover: str) -> tuple[int, int, float]:
    """(input tokens, calls, dollars): the one estimate behind `extract --dry-run` and `backfill`."""
    sent, calls = plan_tokens(plan, lines, handover)
    return sent, calls, cost.estimate_usd(sent, EXPECTED_OUTPUT_TOKENS * calls, model)


def _preview(plan: policy.Plan, model: str, lines: list[str], handover: str,
             out: Callable[[str], None]) -> tuple[int, float]:
    sent, calls, usd = estimate_plan(plan, model, lines, handover)
    for i, window in enumerate(plan.windows, 1):
        user = prompt.user_message(window, carry=plan.carry, records=lines, handover=handover, actions=plan.actions)
        out(f"--- request {i}/{len(plan.windows)} ({plan.mode}, model {model}) ---\n{user}\n")
    out(f"would send ~{sent} input tokens in {calls} call(s); estimated cost ${usd:.4f}")
    return sent, usd


def execute(session_id: str, transcript_path: str | Path, *, cwd: str | None = None, final: bool = False,
            dry_run: bool = False, no_llm: bool = False, client: Any = None, out: Callable[[str], None] | None = None,
            sleep: Any = None, lock_wait: float | None = None) -> ExtractResult:
    """Extract what is new in the transcript. Never raises: failures are logged and reported as `skipped`."""
    try:
        return _execute(session_id, Path(transcript_path), cwd=cwd, final=final, dry_run=dry_run, no_llm=no_llm,
                        client=client, out=out or (lambda s: None), sleep=sleep, lock_wait=lock_wait)
    except Exception as exc:  # extraction must never surface in the session
        log(f"extract failed for session {session_id}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
        return ExtractResult(session_id, skipped="error")


def _execute(session_id: str, path: Path, *, cwd: str | None, final: bool, dry_run: bool, no_llm: bool,
             client: Any, out: Callable[[str], None], sleep: Any, lock_wait: float | None) -> ExtractResult:
    settings = config.load()
    if no_llm or not settings["llm"] or settings["extraction"] == "off":
        return ExtractResult(session_id, skipped="llm_off")
    choice = backend.choose(settings)
    if client is None and not dry_run and not choice.on:
        if settings["extraction"] in ("api", "auto") and api.api_key() is not None and extras.missing("llm"):
            log(f"extract skipped for session {session_id}: {extras.describe('llm')}")
            return ExtractResult(session_id, skipped="missing_extra")
        return ExtractResult(session_id, skipped="no_api_key")  # rung 3: deterministic capture only
    if client is None and not dry_run and choice.backend == "claude-code":
        why = quota.paused()
        if why:
            log(f"extract skipped for session {session_id}: the Claude Code backend is {why}")
            return ExtractResult(session_id, skipped="paused")
    if client is None and not dry_run and choice.backend == "api":
        quota.clear()  # a pause belongs to the CLI backend
    if not path.is_file():
        return ExtractResult(session_id, skipped="no_transcript")
    try:
        conn = db.connect(paths.db_path())
    except AgentctxError as exc:
        log(f"extract skipped for session {session_id}: {exc.code}")
        return ExtractResult(session_id, skipped="no_database")
    wait = lock_wait if lock_wait is not None else (FINAL_LOCK_WAIT_S if final else LOCK_WAIT_S)
    try:
        with cursor.lock(session_id, 0 if dry_run else wait) as held:
            if not held and not dry_run:
                log(f"extract skipped for session {session_id}: another run still holds the lock")
                return ExtractResult(session_id, skipped="busy")
            return _locked(conn, session_id, path, cwd=cwd, dry_run=dry_run, client=client, out=out,
                           sleep=sleep, model=str(settings["extractionModel"]),
                           threshold=int(settings["reinforceThreshold"]),
                           via=choice if client is None else None, per_hour=int(settings["extractionCallsPerHour"]))
    finally:
        conn.close()


def _locked(conn: sqlite3.Connection, session_id: str, path: Path, *, cwd: str | None, dry_run: bool, client: Any,
            out: Callable[[str], None], sleep: Any, model: str, threshold: int,
            via: backend.Choice | None = None, per_hour: int = 0) -> ExtractResult:
    cur = cursor.load(session_id)
    if cur.transcript and cur.transcript != str(path):
        log(f"session {session_id}: transcript moved to {path}")
    size = path.stat().st_size
    if cur.offset > size:  # the file was rewritten: start again
        cur = cursor.Cursor(session_id)
    part = transcript.read(path, min(cur.carry_from, cur.offset))
    earlier = tuple(t for t in part.turns if t.offset < cur.offset)
    new = tuple(t for t in part.turns if t.offset >= cur.offset)
    plan = policy.plan(new, earlier)
    if part.actions:  # what this part's tool calls touched: the only things an entry may be anchored to
        from dataclasses import replace

        root = _root_of(cwd or part.cwd or transcript.session_cwd(path))
        plan = replace(plan, actions=transcript.action_lines([a for a in part.actions if a[0] >= cur.offset], root))
    advanced = cur.advance(transcript=str(path), offset=part.end,
                           carry_from=_carry_from(part.turns, part.end), failures=0)
    if plan.mode == "empty":
        if not dry_run:
            cursor.save(advanced)
        if dry_run:
            out("nothing new to send")
        return ExtractResult(session_id, skipped="nothing_new")
    project_id = _project_id(conn, session_id, cwd, part.cwd or transcript.session_cwd(path))
    lines, handover = context_lines(conn, project_id)
    if dry_run:
        sent, usd = _preview(plan, model, lines, handover, out)
        return ExtractResult(session_id, cost_usd=usd, tokens_sent=sent, skipped="dry_run", mode=plan.mode)
    name = via.backend if via is not None else "api"  # a client passed in is the API's shape
    if client is None and via is not None and via.backend == "claude-code":
        if quota.over_limit(conn, per_hour):
            log(f"extract skipped for session {session_id}: {per_hour} Claude Code extraction calls in the last "
                "hour (extractionCallsPerHour); the rest waits for the next Stop or SessionEnd")
            return ExtractResult(session_id, skipped="quota", mode=plan.mode)
        from .claude_code import ClaudeCodeClient, quiet_dir

        client = ClaudeCodeClient(str(via.claude), cwd=quiet_dir())
    if client is None:
        try:
            client = api.make()
        except MissingExtraError:
            log(f"extract skipped: {extras.describe('llm')}")
            return ExtractResult(session_id, skipped="missing_extra")
    attempts = _Attempts()
    data, usd, usage, error = _call(client, model, plan, lines, handover, sleep, attempts)
    shape = validate.problem(data) if data is not None else None
    if shape is not None:
        log(f"extract: session {session_id}: the answer failed validation ({shape}); nothing written")
        data, error = None, f"invalid answer: {shape}"
    if usd > 0:
        sessions.add_cost(conn, session_id, project_id, usd)  # paid for, whatever the answer was worth
    if attempts.made:
        extraction_calls.log_call(conn, backend=name, project_id=project_id, session_id=session_id,
                                  calls=max(usage.calls, attempts.made), input_tokens=usage.sent,
                                  output_tokens=usage.output, cost_usd=usd,
                                  outcome="ok" if data is not None else (error or "failed")[:200])
    if data is None and attempts.wait_on:
        kind, _, detail = attempts.wait_on.partition(":")
        seconds = quota.pause(kind, detail.strip())
        log(f"extract paused for session {session_id}: {attempts.wait_on}. {_ADVICE.get(kind, '')} "
            f"Nothing was written; this part is sent again in {seconds / 60:.0f} min or later.")
        return ExtractResult(session_id, cost_usd=usd, calls=usage.calls, tokens_sent=usage.sent,
                             skipped="paused", mode=plan.mode)
    if data is None:
        failures = cur.failures + 1
        gave_up = failures >= MAX_FAILURES
        cursor.save(advanced.advance(sent_tokens=cur.sent_tokens + usage.sent, cost_usd=cur.cost_usd + usd,
                                     runs=cur.runs + 1) if gave_up else
                    cur.advance(failures=failures, cost_usd=cur.cost_usd + usd, runs=cur.runs + 1))
        log(f"extract failed for session {session_id}: {error}" + ("; giving up on this part" if gave_up else ""))
        return ExtractResult(session_id, cost_usd=usd, calls=usage.calls, tokens_sent=usage.sent,
                             skipped="unparseable" if str(error).startswith(("unparseable", "invalid answer", "not_json"))
                             else "api_error", mode=plan.mode)
    extraction = validate.check(data, plan.evidence, plan.actions)
    seen = set(cur.reinforced)
    result = ingest(conn, extraction, project_id=project_id, session_id=session_id, threshold=threshold,
                    reinforced=seen)
    cursor.save(advanced.advance(sent_tokens=cur.sent_tokens + usage.sent, cost_usd=cur.cost_usd + usd,
                                 runs=cur.runs + 1, reinforced=tuple(sorted(seen))))
    _settle_offline(conn, session_id, project_id, path)
    for kind, reason in result.dropped:
        log(f"session {session_id}: dropped {kind} ({reason})")
    log(f"session {session_id}: {plan.mode}, {usage.calls} call(s), {usage.sent} tokens in, {usage.output} out, "
        f"cache w/r {usage.cache_write_5m + usage.cache_write_1h}/{usage.cache_read}, ${usd:.5f}; "
        f"wrote {len(result.written)}, reinforced {len(result.reinforced)}, dropped {len(result.dropped)}"
        + (" (flush)" if extraction.flush else ""))
    return ExtractResult(session_id, written=len(result.written), dropped=len(result.dropped),
                         reinforced=len(result.reinforced), cost_usd=usd, calls=usage.calls, tokens_sent=usage.sent,
                         mode=plan.mode, record_ids=tuple(r.id for r in result.written))
