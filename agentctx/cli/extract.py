"""`agentctx extract` (one session, what is new), `backfill` (past transcripts) and `expand` (questions, aliases)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from .context import Context
from .parser import add_json
from .terminal import printable


def register(sub: Any) -> None:
    p = sub.add_parser("extract", help="extract records from what is new in a session transcript (LLM)")
    p.add_argument("--session-id", required=True, metavar="S")
    p.add_argument("--transcript", required=True, metavar="P", help="the session's JSONL transcript")
    p.add_argument("--dry-run", action="store_true", help="print what would be sent and its estimated cost")
    p.add_argument("--no-llm", action="store_true", help="send nothing (deterministic capture only)")
    p.add_argument("--final", action="store_true", help="the SessionEnd pass: wait for a running extraction")
    add_json(p)
    p.set_defaults(handler=extract_cmd)

    b = sub.add_parser("backfill", help="extract records from this project's past Claude Code transcripts")
    b.add_argument("--since", metavar="DATE", help="only transcripts modified on or after DATE (YYYY-MM-DD)")
    b.add_argument("--project", metavar="PATH", help="the project root (default: this project)")
    b.add_argument("--dry-run", action="store_true", help="list transcripts and the estimated cost, send nothing")
    b.add_argument("--yes", action="store_true", help="do not ask before spending")
    add_json(b)
    b.set_defaults(handler=backfill_cmd)

    e = sub.add_parser("expand", help="give records stored without them the questions they answer and other names "
                                      "for what they are about (LLM, batched)")
    e.add_argument("--limit", type=int, metavar="N",
                   help="at most N records (default: what is left of today's expansionRecordsPerDay)")
    e.add_argument("--all-projects", action="store_true", help="every project's records, not only this project's")
    e.add_argument("--dry-run", action="store_true", help="list the batches and their estimated cost, send nothing")
    add_json(e)
    e.set_defaults(handler=expand_cmd)


def extract_cmd(args: argparse.Namespace, ctx: Context) -> int:
    from ..extract import execute

    result = execute(args.session_id, args.transcript, cwd=ctx.cwd, final=args.final, dry_run=args.dry_run,
                     no_llm=args.no_llm, out=(lambda s: None) if ctx.json else ctx.out)
    if ctx.json:
        ctx.emit(asdict(result))
    elif not args.dry_run:
        ctx.out(_summary(result))
    return 0  # scripts and hooks rely on it: extraction never fails the caller


# Why nothing was sent, for a person (the codes stay in --json and in parentheses).
REASONS = {
    "llm_off": "LLM extraction is off (--no-llm, or config llm=false: `agentctx config set llm true`)",
    "no_api_key": "no extraction backend: set ANTHROPIC_API_KEY with the [llm] extra, or install Claude Code "
                  "(`claude` on PATH, or `agentctx config set claudeCodePath PATH`)",
    "paused": "the Claude Code backend is paused after a failure (logs/extract.log says why and until when)",
    "quota": "the Claude Code backend made extractionCallsPerHour calls in the last hour; the rest waits",
    "no_transcript": "there is no transcript at that path",
    "no_database": "there is no store yet: run `agentctx init`",
    "nothing_new": "nothing new since the last extraction of this session",
    "busy": "another extraction of this session is running",
    "api_error": "the API call failed (details in logs/extract.log)",
    "unparseable": "the model's answer could not be used (details in logs/extract.log)",
    "error": "an unexpected error (details in logs/extract.log)",
}


def _reason(code: str) -> str:
    if code == "missing_extra":
        from ..base.extras import describe

        return describe("llm")
    return REASONS.get(code, code)


def _summary(r: Any) -> str:
    if r.skipped:
        return f"nothing extracted ({r.skipped}): {_reason(r.skipped)}"
    return (f"{r.written} records written, {r.reinforced} reinforced, {r.dropped} dropped; "
            f"{r.calls} call(s), {r.tokens_sent} tokens, ${r.cost_usd:.4f}")


def expand_cmd(args: argparse.Namespace, ctx: Context) -> int:
    from ..base.errors import AgentctxError, MissingExtraError, UsageError
    from ..extract import expand

    if args.limit is not None and args.limit < 1:
        raise UsageError("invalid_field", field="--limit", problem="must be at least 1")
    result = expand.run(ctx.conn, None if args.all_projects else ctx.project.id, limit=args.limit,
                        dry_run=args.dry_run, out=None if ctx.json else ctx.out)
    if result.skipped == "missing_extra":
        raise MissingExtraError("the expansion pass", "llm")
    if result.skipped == "off":
        fix = ("turn it on with `agentctx config set llm true` and `agentctx config set extraction auto`"
               if "config" in str(result.reason) else "set ANTHROPIC_API_KEY with the [llm] extra, or install Claude "
               "Code (`claude` on PATH, or `agentctx config set claudeCodePath PATH`)")
        raise AgentctxError("no_llm_backend", feature="the expansion pass", reason=result.reason, fix=fix)
    if ctx.json:
        ctx.emit(asdict(result))
    else:
        ctx.out(expand.describe(result))
    return 0


def backfill_cmd(args: argparse.Namespace, ctx: Context) -> int:
    from ..base.errors import UsageError
    from ..extract import backfill

    try:
        since = backfill.parse_since(args.since)
    except ValueError:
        raise UsageError("invalid_field", field="--since", problem="is not a date (YYYY-MM-DD)") from None
    root = args.project or ctx.cwd
    found = backfill.discover(root, since=since)
    estimate = backfill.estimate(found, cwd=root)
    if ctx.json and (args.dry_run or not found):
        ctx.emit(asdict(estimate))
        return 0
    say = (lambda text: sys.stderr.write(printable(text) + "\n")) if ctx.json else ctx.out  # --json: stdout is JSON only
    say(backfill.describe(estimate))
    from ..base.extras import describe, missing
    from ..extract import backend

    choice = backend.choose()
    if estimate.pending and choice.backend != "claude-code" and missing("llm"):
        if args.dry_run:
            say(f"note: {describe('llm')}")
        else:
            from ..base.errors import MissingExtraError

            raise MissingExtraError("backfill", "llm")  # exit 1: nothing can be extracted, say so, do not report $0
    if args.dry_run:
        return 0
    if not estimate.pending:
        if ctx.json:
            ctx.emit({"sessions": 0, "written": 0, "cost_usd": 0.0, "skipped": {}})
        return 0
    if not choice.on:
        say(f"nothing sent: extraction is off ({choice.reason})")
        if ctx.json:
            ctx.emit({"sessions": 0, "written": 0, "cost_usd": 0.0, "skipped": {}, "reason": choice.reason})
        return 0
    price = (f"about ${estimate.usd:.2f}" if choice.backend == "api" else
             f"about {estimate.tokens:,} input tokens of your Claude Code quota")
    if not args.yes and not ctx.confirm(f"Extract {estimate.pending} transcript(s) for {price}?"):
        say("nothing sent")
        return 1
    results = backfill.run(found, cwd=root, progress=None if ctx.json else sys.stderr)
    written = sum(r.written for r in results)
    spent = sum(r.cost_usd for r in results)
    if ctx.json:
        ctx.emit({"sessions": len(results), "written": written, "cost_usd": round(spent, 6),
                  "skipped": {r.session_id: r.skipped for r in results if r.skipped}})
    else:
        ctx.out(f"{len(results)} session(s): {written} records written, ${spent:.4f}")
    return 0
