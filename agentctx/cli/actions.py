"""`agentctx guard` (make a record enforced before actions, or stop) and `agentctx stats` (what each record earned)."""

from __future__ import annotations

import argparse

from ..base.errors import UsageError, ValidationError
from .context import Context
from .parser import add_json


def cmd_guard(args: argparse.Namespace, ctx: Context) -> int:
    from ..base import guards
    from ..store import records

    target = records.resolve(ctx.conn, args.id, ctx.project.id)
    chosen = [m for m in ("never", "always") if getattr(args, m)]
    if args.off:
        if chosen or args.deny:
            raise UsageError("invalid_field", field="guard --off", problem="takes no pattern and no --deny")
        record = records.set_guard(ctx.conn, target.id, ctx.project.id, "")
    else:
        if len(chosen) != 1:
            raise UsageError("invalid_field", field="guard", problem="needs --never PATTERN or --always PATTERN (or --off)")
        mode = chosen[0]
        try:
            stored = guards.make(mode, getattr(args, mode), "deny" if args.deny else "ask",
                                 record_anchors=target.anchors, root=getattr(ctx.project, "root_dir", None) or None)
        except guards.GuardError as exc:
            raise ValidationError("invalid_field", field="guard", problem=f"refused: {exc}") from None
        record = records.set_guard(ctx.conn, target.id, ctx.project.id, stored)
    if ctx.json:
        parsed = guards.parse(record.guard)
        ctx.emit({"id": record.id, "guard": {"mode": parsed[0], "decision": parsed[1], "patterns": list(parsed[2])}
                  if parsed else None})
    elif record.guard:
        ctx.out(f"guard on {record.id}: {guards.describe(record.guard)} (before an agent's action; "
                f"`agentctx guard {record.id} --off` to stop)")
    else:
        ctx.out(f"no guard on {record.id}")
    return 0


def cmd_stats(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import pending
    from ..store import records, sessions

    pending.drain_pending(ctx.conn)  # the hooks append ledger rows to a file; bring them in first
    uses = sessions.record_uses(ctx.conn, ctx.project.id)
    rows = []
    for rid, u in uses.items():
        rec = records.get(ctx.conn, rid)
        followed, used = sessions.earned(u)
        rows.append({"id": rid, "title": rec.title if rec else "(deleted)", "type": rec.type if rec else None,
                     "current": bool(rec and rec.is_current), "guard": bool(rec and rec.guard),
                     "digests": u["digests"], "prompts": u["prompts"], "actions": u["actions"], "followed": followed,
                     "ignored": u["ignored"], "acted": u["acted"], "fetched": u["fetched"], "tokens": u["tokens"],
                     "never_used": not used})
    rows.sort(key=lambda r: (-r["tokens"], r["id"]))
    rows = rows[: args.limit]
    if ctx.json:
        ctx.emit({"records": rows})
        return 0
    if not rows:
        ctx.out("nothing injected yet")
        return 0
    ctx.out("per record: in the SessionStart digest, injected at prompts / at actions, followed, ignored, "
            "fetched (ctx_get), tokens spent")
    ctx.out(f"{'id':<12} {'digests':>7} {'prompts':>7} {'actions':>7} {'followed':>8} {'ignored':>7} {'fetched':>7} "
            f"{'tokens':>7}  title")
    for r in rows:
        # What is known: a record only shown (digest, prompts) may have been read; nothing says it was used.
        note = "  (only shown: never followed, acted on or fetched)" if r["never_used"] else ""
        guard = " [guard]" if r["guard"] else ""
        ctx.out(f"{r['id'][:12]:<12} {r['digests']:>7} {r['prompts']:>7} {r['actions']:>7} {r['followed']:>8} "
                f"{r['ignored']:>7} {r['fetched']:>7} {r['tokens']:>7}  {r['title']}{guard}{note}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("guard", help="enforce a record before an agent's actions (ask, or deny), or stop",
                       epilog="--never PATTERN: an action matching it is stopped. --always PATTERN: an action inside "
                              "the record's anchors that does not also match it is stopped (e.g. a record anchored "
                              "command:'git push' with --always command:'make test' stops a bare `git push`). "
                              "PATTERN is an anchor: command:WORDS, path:GLOB or tool:NAME. Stopped means the "
                              "agent asks you (Codex CLI cannot ask: it denies); --deny refuses outright.")
    p.add_argument("id", help="the record (explicit or team; not an inferred one)")
    p.add_argument("--never", action="append", metavar="PATTERN", help="stop actions that match (repeatable)")
    p.add_argument("--always", action="append", metavar="PATTERN",
                   help="stop actions within the record's anchors that do not match (repeatable)")
    p.add_argument("--deny", action="store_true", help="deny instead of asking you")
    p.add_argument("--off", action="store_true", help="stop enforcing this record")
    add_json(p)
    p.set_defaults(handler=cmd_guard)

    p = sub.add_parser("stats", help="per record: in digests, injected at prompts and at actions, followed, ignored, "
                                     "tokens")
    p.add_argument("--limit", type=int, default=50)
    add_json(p)
    p.set_defaults(handler=cmd_stats)
