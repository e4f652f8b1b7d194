"""Team memory and history commands: team export|import|status, history ID, profile export|import."""

from __future__ import annotations

import argparse

from ..base.errors import UsageError
from ..team import sync as team
from .context import Context
from .parser import add_json


def _plan_dict(p: team.Plan) -> dict[str, object]:
    return {
        "new": [{"id": e.key, "line": e.line, "type": e.type, "title": e.title} for e in p.new],
        "edited": [{"id": e.key, "line": e.line, "title": e.title, "record": h.id} for e, h in p.edits],
        "conflicts": [{"id": e.key, "line": e.line, "title": e.title, "record": h.id if h else None,
                       "store_title": h.title if h else None, "reason": why} for e, h, why in p.conflicts],
        "stale": [{"id": e.key, "line": e.line, "title": e.title} for e in p.stale],
        "proposed_removals": [{"id": k, "record": h.id if h else None, "title": h.title if h else None}
                              for k, h in p.removals],
        "local_changes": [{"id": k, "record": r.id, "title": r.title} for k, r in p.local],
        "errors": [{"line": line, "message": msg} for line, msg in p.errors],
    }


def _print_plan(ctx: Context, p: team.Plan, label: str, *, kind: str) -> None:
    for e in p.new:
        ctx.out(f"  new         {label}:{e.line}  [{e.type}] {e.title}")
    for e, h in p.edits:
        ctx.out(f"  edited      {label}:{e.line}  {e.title}  (supersedes {h.id})")
    for e, h, why in p.conflicts:
        where = f"{label}:{e.line}" if e.line else f"id={e.key}"
        ctx.out(f"  CONFLICT    {where}  {e.title}  (record {h.id if h else '-'}: {why})")
    for e in p.stale:
        ctx.out(f"  older copy  {label}:{e.line}  {e.title}  (an earlier version of id={e.key}; ignored)")
    for k, h in p.removals:
        ctx.out(f"  removal?    id={k}  {h.title if h else '(no local record)'}  "
                f"(gone from the file; `agentctx {kind} import --apply-removals` retires it)")
    for k, r in p.local:
        ctx.out(f"  local       id={k}  {r.title}  (changed here since the last sync; export to share it)")
    for line, msg in p.errors:
        ctx.out(f"  malformed   {label}:{line}  {msg} (skipped)")


def _import(ctx: Context, target: team.Target, args: argparse.Namespace, kind: str) -> int:
    cap = getattr(args, "max_records", None) or team.MAX_IMPORT_RECORDS
    result = team.import_file(ctx.conn, target, apply_removals=args.apply_removals, max_records=cap)
    if result.changed:  # this project's digest lists team decisions and global preferences alike
        from ..memory import digest

        digest.refresh(ctx.conn, ctx.project.id, project=ctx.project)
    p = result.plan
    if ctx.json:
        data = _plan_dict(p)
        data.update(path=result.path, created=result.created, superseded=[list(x) for x in result.superseded],
                    relinked=result.relinked, retired=result.retired, asked=result.asked,
                    errors=[{"line": line, "message": msg} for line, msg in result.errors])
        ctx.emit(data)
    else:
        ctx.out(f"{target.label}: {len(result.created)} new, {len(result.superseded)} superseded by hand edits, "
                f"{len(result.retired)} retired, {len(p.conflicts)} conflicts, {len(result.errors)} malformed"
                + (f", {len(result.asked)} with new questions or aliases" if result.asked else ""))
        shown = p._replace(new=[], edits=[], errors=list(result.errors), removals=[] if args.apply_removals else p.removals)
        _print_plan(ctx, shown, target.label, kind=kind)
    if result.errors or p.conflicts:  # reported above, nothing else lost: still a status a script can see
        import sys

        sys.stderr.write(f"agentctx: {target.label}: {len(p.conflicts)} conflicts, {len(result.errors)} malformed "
                         f"entries not imported (listed above; `agentctx {kind} import` again once fixed)\n")
        return 1
    return 0


def _export(ctx: Context, target: team.Target, args: argparse.Namespace) -> int:
    result = team.export_file(ctx.conn, target, force=args.force)
    if ctx.json:
        ctx.emit({"path": result.path, "entries": result.entries, "written": result.written, "bytes": result.bytes,
                  "left_out": result.left_out})
    else:
        state = "wrote" if result.written else "unchanged:"
        ctx.out(f"{state} {target.label} ({result.entries} entries, {result.bytes} bytes)")
        if result.left_out:
            ctx.out(f"  {len(result.left_out)} entries proposed for removal left out: "
                    f"`agentctx team import --apply-removals` retires them")
    return 0


def cmd_team(args: argparse.Namespace, ctx: Context) -> int:
    target = team.team_target(ctx.project)
    if args.auto:  # the SessionStart hook's detached run: quiet, never fails
        team.auto_import(ctx.project)
        return 0
    if args.action == "export":
        return _export(ctx, target, args)
    if args.action == "import":
        return _import(ctx, target, args, "team")
    text = team.read_file(target)
    p = team.plan(ctx.conn, target, text)
    if ctx.json:
        ctx.emit({"path": target.path, "exists": text is not None, **_plan_dict(p),
                  "unexported": [{"record": r.id, "title": r.title} for r in team.unexported(ctx.conn, target)]})
        return 0
    if text is None:
        ctx.out(f"no {target.label} yet: `agentctx team export` writes it")
    else:
        ctx.out(f"{target.label}: {team.summary(p)}, {len(p.stale)} older copies, {len(p.removals)} proposed removals, "
                f"{len(p.local)} local changes")
    _print_plan(ctx, p, target.label, kind="team")
    fresh = team.unexported(ctx.conn, target)
    if fresh:
        ctx.out(f"  {len(fresh)} shareable records not exported yet: `agentctx team export`")
    return 0


def cmd_profile_transfer(args: argparse.Namespace, ctx: Context) -> int:
    """`profile export [DIR]` and `profile import PATH` (called from the profile command)."""
    # PATH is the profile command's first free positional (named `path` here, `key` where `profile edit` shares it).
    path = getattr(args, "path", None) or getattr(args, "key", None)
    if getattr(args, "value", None) is not None:
        raise UsageError("invalid_field", field=f"profile {args.action}", problem="takes one PATH")
    if args.action == "export":
        return _export(ctx, team.profile_target(path), args)
    if not path:
        raise UsageError("invalid_field", field="profile import", problem="needs a PATH (a file or a profile directory)")
    return _import(ctx, team.profile_target(path), args, "profile")


def cmd_history(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory.history import chain
    from ..store import records

    from ..base.guards import describe
    from ..store.guardlog import changes

    steps = chain(ctx.conn, records.resolve(ctx.conn, args.id, ctx.project.id).id, ctx.project.id)
    guards = changes(ctx.conn, [s.record.id for s in steps])
    if ctx.json:
        ctx.emit([{**s.to_dict(), "guard": s.record.guard, "guard_changes": guards.get(s.record.id, [])}
                  for s in steps])
        return 0
    for i, s in enumerate(steps, 1):
        r = s.record
        ctx.out(f"{i}. {r.id}  [{r.type}] {r.title}  ({s.state}, {r.confidence}, {r.source})")
        ctx.out(f"   valid from {r.valid_from}   recorded {r.recorded_at}   superseded {r.superseded_at or '-'}")
        if s.rationale:
            ctx.out(f"   why: {s.rationale}")
        for g in guards.get(r.id, []):  # who made, changed, lifted or kept its guard
            what = describe(g["guard"]) or "no guard"
            ctx.out(f"   guard: {what}  by {g['by']} at {g['at']}" + (f"  ({g['note']})" if g["note"] else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("team", help="team memory through git: .agentctx/context.md")
    p.add_argument("action", choices=("export", "import", "status"),
                   help="export: write the file from the store; import: bring its changes in; status: compare")
    p.add_argument("--force", action="store_true", help="export: overwrite changes in the file that were not imported")
    p.add_argument("--apply-removals", action="store_true",
                   help="import: retire the records whose entries were removed from the file")
    p.add_argument("--max-records", type=int, metavar="N",
                   help=f"import: allow this import to add or change up to N records (default {team.MAX_IMPORT_RECORDS})")
    p.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)  # SessionStart's detached import
    add_json(p)
    p.set_defaults(handler=cmd_team)

    p = sub.add_parser("history", help="a record's whole supersession chain, with the rationale of each step")
    p.add_argument("id")
    add_json(p)
    p.set_defaults(handler=cmd_history)
