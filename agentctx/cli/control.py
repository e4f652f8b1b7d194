"""What the user controls: on, off, review, forget, import claude-memory (docs/control.md)."""

from __future__ import annotations

import argparse

from ..base import control
from ..base.errors import UsageError
from . import terminal
from .context import Context
from .parser import add_json


def _needs_terminal(command: str, hint: str) -> UsageError:
    return UsageError("needs_terminal", command=command, hint=hint)


# ---- on / off ----

def cmd_switch(args: argparse.Namespace, ctx: Context) -> int:
    on = args.on
    if args.all:
        cleared = control.set_all(on)
        result = {"all": True, "on": on, "cleared": cleared}
        text = ("agentctx is on again for every project" + (f" (also turned back on: {', '.join(cleared)})" if cleared else "")
                if on else "agentctx is off for every project: nothing is loaded, captured or extracted; nothing was deleted")
        mode = control.settings()[0]
        if on and mode == "opt-in":
            text += "\nmode is opt-in: only projects that said `agentctx on` (or carry .agentctx/enabled) are remembered"
    else:
        project = ctx.project
        if on:
            glob = control.excluded_by(control.settings()[1], str(project.root))
            if glob is not None:
                raise UsageError("not_on_here", path=str(project.root), glob=glob)
        control.set_project(project.id, project.name, str(project.root), on)
        reason = control.check(project.id, str(project.root))[0]
        result = {"project": project.name, "project_id": project.id, "on": on, "state": control.describe(reason)}
        if on:
            text = f"agentctx is on for {project.name}"
            if reason is not None:
                text += f" — but {control.describe(reason)}"
        else:
            text = (f"agentctx is off for {project.name}: nothing is loaded, captured or extracted here; "
                    "its records stay (`agentctx reset` deletes them)")
    ctx.emit(result) if ctx.json else ctx.out(text)
    return 0


# ---- review ----

def cmd_review(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import review

    if args.confirm or args.delete or args.restore:
        if not args.yes:
            raise UsageError("invalid_field", field="--confirm/--delete/--restore",
                             problem="act without questions only with --yes")
        done = review.apply(ctx.conn, ctx.project, confirm=args.confirm or [], delete=args.delete or [],
                            restore=args.restore or [])
        ctx.emit(done) if ctx.json else _say_applied(ctx, done)
        return 0
    todo = None
    if args.team:
        from ..team.sync import last_import

        at, todo = last_import(ctx.conn, ctx.project.id)
        if not ctx.json:
            ctx.out(f"the last team import ({at}) brought in {len(todo)} record(s) still current" if at else
                    "no team import has brought records in yet")
    if args.expired:
        return _expired(ctx)
    if args.json:
        found = todo if todo is not None else review.pending(ctx.conn, ctx.project.id, everything=args.all)
        notes = review.notes(ctx.conn, ctx.project.id)
        ctx.emit([review.listing(r, notes.get(r.id)) for r in found])
        return 0
    if todo == []:
        return 0
    if not terminal.is_terminal():
        raise _needs_terminal("review", "`agentctx review --json` lists the records; "
                                        "`agentctx review --yes --confirm ID --delete ID` acts on explicit ids")
    done = review.walk(ctx.conn, ctx.project, terminal.Terminal(), everything=args.all, todo=todo)
    ctx.out("")
    ctx.out(f"reviewed: {len(done['confirmed'])} confirmed, {len(done['edited'])} edited, "
            f"{len(done['deleted'])} deleted, {len(done['skipped'])} skipped"
            + ("" if done["finished"] else f"; {done['remaining']} left for the next `agentctx review`"))
    return 0


def _say_applied(ctx: Context, done: dict) -> None:
    for record_id in done["confirmed"]:
        ctx.out(f"confirmed {record_id}")
    for record_id in done["deleted"]:
        ctx.out(f"deleted {record_id}")
    for record_id in done.get("restored", []):
        ctx.out(f"restored {record_id}")


def _expired(ctx: Context) -> int:
    """`review --expired`: what expired unused, why and when; `--restore ID --yes` brings one back."""
    from ..store import trust

    found = trust.marked(ctx.conn, ctx.project.id, "expired", current=False)
    if ctx.json:
        ctx.emit([{"id": r.id, "type": r.type, "title": r.title, "reason": why, "expired_at": at} for r, why, at in found])
        return 0
    if not found:
        ctx.out("nothing has expired")
    for r, why, at in found:
        ctx.out(f"{r.id}  [{r.type}] {r.title}  ({why}; {at[:10]})")
    if found:
        ctx.out("bring one back: agentctx review --yes --restore ID")
    return 0


# ---- forget ----

def cmd_forget(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import review

    query = " ".join(args.query or []).strip()
    if args.id:
        if not args.yes:
            raise UsageError("invalid_field", field="--id", problem="forgets without questions only with --yes")
        gone = review.forget_ids(ctx.conn, ctx.project, args.id)
        _say_forgotten(ctx, gone)
        return 0
    if not query:
        raise UsageError("invalid_field", field="QUERY", problem="is needed (or --yes with --id ID)")
    if not 1 <= args.limit <= 50:
        raise UsageError("invalid_field", field="--limit", problem="must be between 1 and 50")
    found = review.candidates(ctx.conn, ctx.project, query, args.limit)
    if args.json:
        ctx.emit([{**review.listing(c.record), "versions": c.versions, "score": round(c.score, 3),
                   "relevance": round(c.relevance, 3), "clear": c.clear} for c in found])
        return 0
    if args.yes:
        raise UsageError("invalid_field", field="--yes", problem="needs explicit ids: agentctx forget --yes --id ID")
    if not terminal.is_terminal():
        raise _needs_terminal("forget", "`agentctx forget QUERY --json` lists the matches; "
                                        "`agentctx forget --yes --id ID` forgets explicit ids")
    if not found:
        ctx.out("no matching records")
        return 0
    term = terminal.Terminal()
    ids = review.choose_to_forget(term, found)
    if not ids:
        ctx.out("nothing forgotten")
        return 0
    versions = sum(c.versions for c in found if c.record.id in ids)
    extra = versions - len(ids)
    for c in found:  # the question is about exactly these: nothing else can go with a "y"
        if c.record.id in ids:
            term.say(f"  - [{c.record.type}] {c.record.title}  {c.record.id}" + ("" if c.clear else "  (partial match)"))
    question = (f"Forget {len(ids)} record{'s' if len(ids) > 1 else ''}"
                + (f" and {extra} earlier/later version{'s' if extra > 1 else ''} of {'them' if len(ids) > 1 else 'it'}"
                   if extra else "") + "? This cannot be undone")
    if not term.yes(question):
        ctx.out("nothing forgotten")
        return 0
    _say_forgotten(ctx, review.forget_ids(ctx.conn, ctx.project, ids))
    return 0


def _say_forgotten(ctx: Context, gone: list[dict]) -> None:
    if ctx.json:
        ctx.emit(gone)
        return
    for item in gone:
        history = (f", with {item['history']} other version{'s' if item['history'] > 1 else ''} from its "
                   "supersession history") if item["history"] else ""
        ctx.out(f"forgot {item['id']} ({item['title']}){history}")


# ---- import claude-memory ----

def cmd_import(args: argparse.Namespace, ctx: Context) -> int:
    from pathlib import Path

    from ..outside import memory_import as cm
    from ..store import review as store_review

    root = ctx.project.root
    memory = Path(args.dir).expanduser() if args.dir else cm.memory_dir(root)
    proposals = cm.propose(root, memory)
    fresh = cm.new_only(proposals, store_review.visible_texts(ctx.conn, ctx.project.id), cm.ledger(ctx.project.id))
    fresh, skipped = cm.known_to_store(ctx.conn, ctx.project.id, fresh)
    where = {"memory_dir": str(memory) if memory else None, "rules": [str(p) for p in cm.rules_files(root)]}
    if args.json and not args.yes:
        ctx.emit({**where, "proposals": [p.to_dict() for p in fresh], "already_known": len(proposals) - len(fresh),
                  "skipped": [{**p.to_dict(), "why": why} for p, why in skipped]})
        return 0
    if not ctx.json:
        ctx.out(f"auto memory: {memory if memory else 'none found for ' + str(root)}")
        ctx.out(f"rules: {', '.join(where['rules']) or 'no CLAUDE.md'}")
        for p, why in skipped:
            ctx.out(f"  skipped [{p.type}] {p.title}  ({p.origin}): {why}")
        if not fresh:
            ctx.out(f"nothing new to import ({len(proposals)} found, all already in agentctx)")
            return 0
        for n, p in enumerate(fresh, 1):
            ctx.out(f"{n:>3}. [{p.type}] {p.title}  ({p.origin})")
        ctx.out(f"{len(proposals) - len(fresh)} more already in agentctx" if len(proposals) > len(fresh) else "")
    chosen = fresh
    if not args.yes:
        if not terminal.is_terminal():
            raise _needs_terminal("import claude-memory", "`agentctx import claude-memory --yes` imports every "
                                  "proposal; --json lists them")
        answer = terminal.Terminal().ask("import which? ('all', numbers like 1 3, or Enter for none) > ")
        chosen = _pick(answer, fresh)
    if not chosen:
        ctx.out("nothing imported")
        return 0
    ids = cm.write(ctx.conn, ctx.project.id, chosen)
    if ctx.json:
        ctx.emit({**where, "imported": ids})
    else:
        ctx.out(f"imported {len(ids)} record{'s' if len(ids) != 1 else ''} (source claude_memory); "
                "Claude Code's files were not changed")
    return 0


def _pick(answer: str | None, fresh: list) -> list:
    if answer is None or not answer.strip():
        return []
    if answer.strip().lower() in ("all", "a", "y", "yes"):
        return list(fresh)
    try:
        picks = {int(part) for part in answer.replace(",", " ").split()}
    except ValueError:
        raise UsageError("invalid_field", field="answer", problem="must be 'all' or numbers from the list") from None
    if not all(1 <= n <= len(fresh) for n in picks):
        raise UsageError("invalid_field", field="answer", problem=f"numbers must be between 1 and {len(fresh)}")
    return [fresh[n - 1] for n in sorted(picks)]


def _limit(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {value!r}") from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    for name, on in (("on", True), ("off", False)):
        p = sub.add_parser(name, help=f"turn agentctx {name} for this project (--all: every project); deletes nothing")
        p.add_argument("--all", action="store_true", help="every project" + (
            " (also clears each project's own off)" if on else " (a global switch; project flags stay)"))
        add_json(p)
        p.set_defaults(handler=cmd_switch, on=on)

    p = sub.add_parser("review", help="walk through the records written since the last review (inferred first)")
    p.add_argument("--all", action="store_true", help="every current record, not only the new ones")
    p.add_argument("--team", action="store_true",
                   help="what the last import of the team file (.agentctx/context.md) brought in")
    p.add_argument("--confirm", action="append", metavar="ID", help="confirm this record (with --yes; repeatable)")
    p.add_argument("--delete", action="append", metavar="ID", help="delete this record (with --yes; repeatable)")
    p.add_argument("--restore", action="append", metavar="ID",
                   help="bring back a record that expired unused (with --yes; repeatable)")
    p.add_argument("--expired", action="store_true", help="list the records that expired unused, and why")
    p.add_argument("--yes", action="store_true", help="act on the explicit ids without a terminal")
    add_json(p)
    p.set_defaults(handler=cmd_review)

    p = sub.add_parser("forget", help="find records by search and delete the ones you confirm, with their history")
    p.add_argument("query", nargs="*", metavar="QUERY")
    p.add_argument("--id", action="append", metavar="ID", help="forget this record (with --yes; repeatable)")
    p.add_argument("--yes", action="store_true", help="forget the explicit ids without a terminal")
    p.add_argument("--limit", type=_limit, default=10, help="show at most N matches (1-50, default 10)")
    add_json(p)
    p.set_defaults(handler=cmd_forget)

    p = sub.add_parser("import", help="import records from another memory (claude-memory: Claude Code's own)")
    p.add_argument("what", choices=("claude-memory",))
    p.add_argument("--dir", metavar="DIR", help="the auto memory directory (default: Claude Code's for this project)")
    p.add_argument("--yes", action="store_true", help="import every proposal without asking")
    add_json(p)
    p.set_defaults(handler=cmd_import)
