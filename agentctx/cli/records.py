"""Record commands: record, supersede, show, search, pin, unpin, delete, export."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..base.errors import NotFoundError, UsageError
from ..base.models import ALIASES_MAX, QUESTIONS_MAX, RECORD_TYPES, SCOPES, NewRecord, Record
from ..retrieval import search as search_mod
from ..store import records
from ..team.export import to_markdown
from ..agents import LABELS
from .context import Context
from .terminal import printable
from .parser import add_json


def _text_arg(value: str, name: str) -> str:
    """`-` reads the value from stdin, so long bodies need no shell quoting."""
    if value == "-":
        return sys.stdin.read()
    return value


def _record_dict(record: Record) -> dict[str, object]:
    return record.to_dict()


def _root(ctx: Context) -> str | None:
    """The repository an absolute anchor may point into (made relative to it); None outside a repository."""
    return getattr(ctx.project, "root_dir", None) or None


def cmd_record(args: argparse.Namespace, ctx: Context) -> int:
    body = records.with_rationale(_text_arg(args.body, "body"), args.rationale)
    new = NewRecord(type=args.type, title=_text_arg(args.title, "title"), body=body,
                    project_id=ctx.project.id, scope=args.scope, confidence="explicit", source="cli",
                    pinned=args.pin, questions=tuple(args.questions or ()), aliases=tuple(args.aliases or ()),
                    anchors=records.anchor_items(args.anchors, _root(ctx)))
    record, superseded = records.insert(ctx.conn, new, supersedes=args.supersedes)
    asked_in = [" ".join(q.split()) for q in (*new.questions, *new.aliases) if q.strip()]
    if (record.title, record.body) != (" ".join(new.title.split()), new.body.strip()) or any(  # scrubbed by the store
            q not in (*record.questions, *record.aliases) for q in asked_in):
        sys.stderr.write("agentctx: secrets in what you recorded were redacted before it was stored "
                         f"(`agentctx show {record.id}` shows what was kept)\n")
    _expand_soon(record, ctx)
    if ctx.json:
        ctx.emit({"id": record.id, "type": record.type, "title": record.title, "scope": record.scope,
                  "recorded_at": record.recorded_at, "superseded": [s.id for s in superseded]})
    else:
        ctx.out(record.id)
    return 0


ASK_HINT = ("agentctx: {id} is found only by its own words (no LLM backend writes how it will be asked): pass "
            "--question \"how someone would ask for it\" and --alias OTHER-NAME (repeatable) when you record, or "
            "run `agentctx expand` once a backend is on")


def _expand_soon(record: Record, ctx: Context) -> None:
    """Questions and other names for a record written without them: the expansion pass in the background when a
    backend is on, else one line saying how to give them (SPEC §6.7)."""
    from ..extract.later import expand_soon

    if expand_soon(record, _root(ctx)) == "off":
        sys.stderr.write(ASK_HINT.format(id=record.id) + "\n")


def cmd_supersede(args: argparse.Namespace, ctx: Context) -> int:
    target = records.resolve(ctx.conn, args.old_id, ctx.project.id)
    body = _text_arg(args.body, "body")
    old, new = records.supersede(ctx.conn, target.id, ctx.project.id, body=body, rationale=args.rationale,
                                 title=args.title, source="cli", questions=args.questions, aliases=args.aliases,
                                 anchors=None if args.anchors is None else records.anchor_items(args.anchors, _root(ctx)),
                                 refuse_outdated_title=True)
    if ctx.json:
        ctx.emit({"old_id": old.id, "new_id": new.id, "id": new.id})
    else:
        ctx.out(new.id)
    return 0


def _agents(ctx: Context, chain: "list[Record]") -> dict[str, str]:
    """Session id -> the agent it ran in, for the records shown (store.sessions; older sessions may not say)."""
    from ..store import sessions

    wanted = [r.session_id for r in chain if r.session_id]
    found = sessions.agents_of(ctx.conn, wanted)
    if set(wanted) - set(found):  # a live session: its start may still be in the hooks' pending ledger
        from ..memory import pending

        pending.drain_pending(ctx.conn)
        found = sessions.agents_of(ctx.conn, wanted)
    return found


def _show_text(record: Record, head: Record | None = None, agents: "dict[str, str] | None" = None,
               marks: "dict[str, str] | None" = None) -> str:
    state = "CURRENT" if record.is_current else f"SUPERSEDED by {record.superseded_by} at {record.superseded_at}"
    if head is not None and head.id != record.id:
        state += f"\n  current     {head.id} ({head.title})"
    lines = [
        f"{record.title}",
        f"  id          {record.id}",
        f"  type        {record.type} ({record.scope}{', pinned' if record.pinned else ''})",
        f"  confidence  {record.confidence}" + (f" (seen {record.reinforce_count}x more)" if record.reinforce_count else "")
        + (" (from the team file: a teammate's entry; `agentctx review --team`)" if record.confidence == "team" else ""),
        f"  source      {record.source}" + (f", session {record.session_id}" if record.session_id else "")
        + (f" ({LABELS.get(agent, agent)})" if (agent := (agents or {}).get(record.session_id or "")) else ""),
        f"  valid from  {record.valid_from}",
        f"  recorded    {record.recorded_at}",
        f"  state       {state}",
        *[f"  {kind:<11} {why}" for kind, why in sorted((marks or {}).items())],
        "",
        record.body,
    ]
    if record.questions or record.aliases:  # how it will be asked: searched, never injected as its text
        lines += ["", "Asked as (searched, not injected):"]
        lines += [f"  ? {q}" for q in record.questions]
        if record.aliases:
            lines.append(f"  also: {', '.join(record.aliases)}")
    if record.anchors:  # what it governs: matched before a tool call, never injected as its text
        lines += ["", "Governs (matched before an edit or a command, not injected):"]
        lines += [f"  {a}" for a in record.anchors]
    if record.guard:  # the user made it enforced: the pre-action hook asks or denies (SPEC §4.11)
        from ..base.guards import describe

        lines += ["", f"Guard (enforced before an agent's action): {describe(record.guard) or record.guard}",
                  f"  `agentctx guard {record.id} --off` to stop"]
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    record = records.resolve(ctx.conn, args.id, ctx.project.id)
    if args.history:
        chain = records.history(ctx.conn, record.id, ctx.project.id)
        agents = _agents(ctx, chain)
        if ctx.json:
            ctx.emit([{**_record_dict(r), "agent": agents.get(r.session_id or "")} for r in chain])
        else:
            ctx.out("\n\n".join(_show_text(r, agents=agents) for r in chain))
        return 0
    # A read never fails on a superseded record: it is shown as such, with the record that replaced it.
    head = None if record.is_current else records.head(ctx.conn, record)
    agents = _agents(ctx, [record])
    from ..store import trust

    marks = trust.marks_for(ctx.conn, [record.id]).get(record.id, {})
    if record.is_current:
        records.touch(ctx.conn, [record.id])  # fetched: used (SPEC §3.9)
    came_from = _came_from(ctx, record.id)
    if ctx.json:
        ctx.emit({**_record_dict(record), "head": head.id if head else record.id,
                  "agent": agents.get(record.session_id or ""), "marks": marks, "provenance": came_from})
    else:
        ctx.out(_show_text(record, head, agents, marks))
        for p in came_from:  # the agents' own memory lines it came from (SPEC §3.10)
            ctx.out(f"  from        {LABELS.get(p['agent'], p['agent'])}: {p['path']}:{p['line']}"
                    + (f" (removed {p['gone_at']})" if p["gone_at"] else ""))
    return 0


def _came_from(ctx: Context, record_id: str) -> "list[dict[str, object]]":
    from ..store import agentmem

    return [{"agent": p.agent, "path": p.path, "line": p.line, "gone_at": p.gone_at}
            for p in agentmem.provenance(ctx.conn, record_id)]


def cmd_search(args: argparse.Namespace, ctx: Context) -> int:
    query = " ".join(args.query)
    if not query.strip():
        raise UsageError("invalid_field", field="query", problem="must not be blank")
    if not 1 <= args.limit <= 50:
        raise UsageError("invalid_field", field="--limit", problem="must be between 1 and 50")
    if getattr(args, "explain", False):
        return _explain(query, ctx)
    from ..retrieval import hybrid  # its vectors load lazily inside; keyword-only (marked) without the extra

    relevant = 0.0 if args.all else hybrid.INTERACTIVE_FLOOR
    if args.as_of:  # history: what was current at that moment (agentctx/memory/history.py)
        from ..memory.history import parse_as_of, search_as_of

        when = parse_as_of(args.as_of, ctx.project.root_dir)
        if args.keyword_only:
            result = search_as_of(search_mod.search, ctx.conn, query, ctx.project.id, when, types=args.type or (),
                                  limit=max(args.limit * hybrid.POOL_FACTOR, hybrid.POOL_MIN), scope=args.scope)
            result = result._replace(hits=hybrid.relevant_first(result.hits, relevant)[:args.limit])
        else:
            result = search_as_of(hybrid.search, ctx.conn, query, ctx.project.id, when, types=args.type or (),
                                  limit=args.limit, scope=args.scope, relevant=relevant)
    elif args.keyword_only:
        pool = max(args.limit * hybrid.POOL_FACTOR, hybrid.POOL_MIN)
        result = search_mod.search(ctx.conn, query, ctx.project.id, types=args.type or (), limit=pool,
                                   history=args.history, scope=args.scope)
        result = result._replace(hits=hybrid.relevant_first(result.hits, relevant)[:args.limit])
    else:
        result = hybrid.search(ctx.conn, query, ctx.project.id, types=args.type or (), limit=args.limit,
                               history=args.history, scope=args.scope, relevant=relevant,
                               lazy=0 if args.all else hybrid.LAZY_MIN, cut=0.0 if args.all else hybrid.CUT)
    if ctx.json:
        rows = []
        for hit in result.hits:
            row = hit.to_index()
            if result.degraded:
                row["degraded"] = result.degraded
            rows.append(row)
        ctx.emit(rows)
        return 0
    if result.degraded:
        sys.stderr.write(f"agentctx: search degraded ({result.degraded}); run `agentctx doctor`\n")
    if not result.hits:
        ctx.out("no matching records")
        return 0
    for hit in result.hits:
        r = hit.record
        flags = ("*" if r.pinned else " ") + ("~" if r.confidence == "inferred" else " ")
        # With --as-of every hit was current at that time: label it as it stood then, not as it stands now.
        old = "" if r.is_current or args.as_of else "  [superseded]"
        if args.as_of and not r.is_current:
            old = f"  [current at {args.as_of}; superseded since]"
        ctx.out(f"{r.id}  {hit.score:7.3f} {flags} {r.type:<10}  {r.title}{old}")
    return 0


def _explain(query: str, ctx: Context) -> int:
    """The prompt hook's decision for the query: every candidate against its threshold, and why."""
    from ..hooks.prompt import select
    from ..retrieval.explain import by_other_names, describe, explain

    rows = explain(ctx.conn, query, ctx.project.id, select)  # the hook's own selection, in a new session
    if ctx.json:
        ctx.emit(rows)
        return 0
    if not rows:
        ctx.out("no candidates: the prompt hook would inject nothing")
    else:
        first = rows[0]
        ctx.out(f"as a prompt: {first['prompt_class']} prompt, threshold {first['threshold']}; "
                f"{sum(r['injected'] for r in rows)} of {len(rows)} candidates would be injected (at most 3)")
        for row in rows:
            ctx.out(describe(row))
    for other in by_other_names(ctx.conn, query, ctx.project.id, rows):
        ctx.out(f"    search only [{other['type']}] {other['title']}  {other['id']}\n"
                "             found by another name of a word (e.g. database: PostgreSQL); the prompt hook "
                "matches the prompt's own words only")
    return 0


def cmd_pin(args: argparse.Namespace, ctx: Context) -> int:
    target = records.resolve(ctx.conn, args.id, ctx.project.id)
    record = records.set_pinned(ctx.conn, target.id, ctx.project.id, args.pinned)
    if ctx.json:
        ctx.emit({"id": record.id, "pinned": record.pinned})
    else:
        ctx.out(f"{'pinned' if record.pinned else 'unpinned'} {record.id}")
    return 0


def cmd_delete(args: argparse.Namespace, ctx: Context) -> int:
    record = records.resolve(ctx.conn, args.id, ctx.project.id)
    if not args.force and not ctx.confirm(f"Delete {record.id} ({record.type}: {record.title})? This cannot be undone."):
        raise UsageError("not_confirmed", action="delete")
    records.delete(ctx.conn, record.id, ctx.project.id)
    if ctx.json:
        ctx.emit({"deleted": record.id})
    else:
        ctx.out(f"deleted {record.id}")
    return 0


def cmd_export(args: argparse.Namespace, ctx: Context) -> int:
    current = records.current(ctx.conn, ctx.project.id)
    text = to_markdown(ctx.project.name, current)
    if args.out:
        path = Path(args.out)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise NotFoundError("file_unwritable", path=str(path), detail=exc.strerror or str(exc)) from None
        ctx.out(f"wrote {len(current)} records to {path}")
    else:
        sys.stdout.write(printable(text))
    return 0


def _limit(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {value!r}") from None


def _asked_options(p: argparse.ArgumentParser, *, keep: bool = False) -> None:
    """--question and --alias: how the record will be asked (searched as their own fields, never injected)."""
    carried = " (default: the old record's)" if keep else ""
    p.add_argument("--question", "--questions", dest="questions", action="append", metavar="TEXT",
                   help=f"a question this record answers, as someone would ask it (repeatable, at most "
                        f"{QUESTIONS_MAX}){carried}")
    p.add_argument("--alias", "--aliases", dest="aliases", action="append", metavar="TEXT",
                   help=f"another name for what it is about: a synonym, abbreviation, category or rejected "
                        f"alternative (repeatable, at most {ALIASES_MAX}){carried}")


def _anchor_option(p: argparse.ArgumentParser, *, keep: bool = False) -> None:
    """--anchor: what the record governs (the pre-action hook delivers it before a matching edit or command)."""
    from ..base.anchors import ANCHORS_MAX

    carried = " (default: the old record's)" if keep else ""
    p.add_argument("--anchor", "--anchors", dest="anchors", action="append", metavar="KIND:VALUE",
                   help="what this record governs: path:GLOB (the default kind, relative to the repository), "
                        "symbol:NAME, command:WORDS or tool:NAME (repeatable, at most "
                        f"{ANCHORS_MAX}){carried}")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("record", help="store an explicit record")
    p.add_argument("--type", required=True, choices=RECORD_TYPES)
    p.add_argument("--title", required=True, help="one line, at most 120 characters ('-' reads stdin)")
    p.add_argument("--body", required=True, help="at most 2,000 characters ('-' reads stdin)")
    p.add_argument("--scope", default="project", choices=SCOPES)
    p.add_argument("--rationale", help="why: stored after the body as `Rationale: …` (a decision's reason)")
    p.add_argument("--supersedes", metavar="ID", help="the current record this one replaces")
    p.add_argument("--pin", action="store_true", help="pin the new record")
    _asked_options(p)
    _anchor_option(p)
    add_json(p)
    p.set_defaults(handler=cmd_record)

    p = sub.add_parser("supersede", help="replace a current record with a corrected one")
    p.add_argument("old_id", metavar="OLD", help="the current record's id (or a unique prefix of 6+ characters)")
    p.add_argument("--body", required=True, help="the new body ('-' reads stdin)")
    p.add_argument("--rationale", help="why it changed")
    p.add_argument("--title", help="a new title (default: keep the old one)")
    _asked_options(p, keep=True)
    _anchor_option(p, keep=True)
    add_json(p)
    p.set_defaults(handler=cmd_supersede)

    p = sub.add_parser("show", help="show one record (a superseded one names its current head)")
    p.add_argument("id", help="a record id (or a unique prefix of 6+ characters)")
    p.add_argument("--history", action="store_true", help="the whole supersession chain")
    add_json(p)
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("search", help="ranked search over this project's records")
    p.add_argument("query", nargs="+")
    p.add_argument("--type", action="append", choices=RECORD_TYPES, help="only this type (repeatable)")
    p.add_argument("--scope", choices=SCOPES, help="project only, or global only (default: both)")
    p.add_argument("--limit", type=_limit, default=10, help="at most N results (1-50, default 10)")
    p.add_argument("--history", action="store_true", help="include superseded records")
    p.add_argument("--as-of", metavar="DATE|GITREF", help="what was current then (a date, a timestamp, or a git ref's commit date)")
    p.add_argument("--keyword-only", action="store_true", help="no vectors: keyword ranking only")
    p.add_argument("--all", action="store_true",
                   help="no relevance floor: every match, fused with vectors whenever the store has them (slower)")
    p.add_argument("--explain", action="store_true",
                   help="what the prompt hook would inject for this query, each candidate against its threshold")
    add_json(p)
    p.set_defaults(handler=cmd_search)

    for name, pinned in (("pin", True), ("unpin", False)):
        p = sub.add_parser(name, help=f"{name} a record ({'always ranked higher' if pinned else 'ranked normally'})")
        p.add_argument("id", help="a record id (or a unique prefix of 6+ characters)")
        add_json(p)
        p.set_defaults(handler=cmd_pin, pinned=pinned)

    p = sub.add_parser("delete", help="delete one record (asks first)")
    p.add_argument("id", help="a record id (or a unique prefix of 6+ characters)")
    p.add_argument("--force", action="store_true", help="do not ask")
    add_json(p)
    p.set_defaults(handler=cmd_delete)

    p = sub.add_parser("export", help="Markdown export of this project's records, grouped by type")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    p.set_defaults(handler=cmd_export)
