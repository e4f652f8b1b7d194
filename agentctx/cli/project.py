"""`agentctx project`: which repository this project is, the other project ids that are the same repository, and
`project move` to join one into this one (SPEC §3.4, §11)."""

from __future__ import annotations

import argparse

from ..base.errors import UsageError
from .context import Context
from .parser import add_json


def cmd_project(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import identity

    same = identity.observe(ctx.conn, ctx.project)
    if ctx.json:
        ctx.emit({"project_id": ctx.project.id, "remote": ctx.project.remote, "root": str(ctx.project.root),
                  "same_repository": [s._asdict() for s in same]})
        return 0
    ctx.out(f"project {ctx.project.name} ({ctx.project.remote or ctx.project.root}), id {ctx.project.id[:16]}…")
    for s in same:
        ctx.out(identity.describe(s))
    if not same:
        ctx.out("no other project in the store is this repository")
    return 0


def cmd_move(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import identity
    from ..store import projects

    old = projects.resolve(ctx.conn, ctx.project.id, args.source)
    same = {s.project_id: s for s in identity.observe(ctx.conn, ctx.project)}
    found = same.get(old)
    label = (found.remote or found.root_dir) if found else old[:12]
    note = "" if found else " (not recognised as this repository: check it is the one you mean)"
    question = (f"Move every record of {label} ({old[:12]}…) into {ctx.project.name} ({ctx.project.id[:12]}…)"
                f"{note}?")
    if not args.yes and not ctx.confirm(question):
        raise UsageError("not_confirmed", action="project move")
    done = identity.move(ctx.conn, ctx.project, old)
    if ctx.json:
        ctx.emit(done)
    else:
        retired = done["duplicates_retired"]
        ctx.out(f"moved {done['records']} records from {label} into {ctx.project.name}"
                + (f"; {retired} duplicates the two both read (rule files, agents' memory, team file) retired"
                   if retired else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("project", help="which repository this project is; `project move` joins another project id "
                                       "that is the same repository (after its origin URL changed)")
    add_json(p)
    p.set_defaults(handler=cmd_project)
    actions = p.add_subparsers(dest="project_action", metavar="ACTION")
    m = actions.add_parser("move", help="move every record of another project id (the same repository under an "
                                        "earlier origin) into this project, keeping its history")
    m.add_argument("--from", dest="source", required=True, metavar="ID_OR_REMOTE",
                   help="the other project: its id (or 8+ first characters), or its remote as `status` shows it")
    m.add_argument("--force", "--yes", dest="yes", action="store_true", help="do not ask")
    add_json(m)
    m.set_defaults(handler=cmd_move)
