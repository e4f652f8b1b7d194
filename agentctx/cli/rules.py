"""`rules` and `rules sync`: the repository's own rules for agents, as records every agent gets at the edit."""

from __future__ import annotations

import argparse

from .context import Context
from .parser import add_json


def cmd_rules(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import keep_digests_fresh
    from ..outside import rulefiles

    if args.action == "sync":
        keep_digests_fresh()
        report = rulefiles.sync(ctx.conn, ctx.project, force=args.force)
        if ctx.json:
            ctx.emit(report)
        else:
            for line in rulefiles.describe(report):
                ctx.out(line)
        return 0
    items = rulefiles.listing(ctx.conn, ctx.project.id)
    if args.action == "show":
        return _show(ctx, items, args.path)
    if ctx.json:
        ctx.emit({"project_id": ctx.project.id, "rules": items})
        return 0
    if not items:
        ctx.out("no rule files read yet (`agentctx rules sync` reads .cursor/rules, .claude/rules, "
                ".github/instructions and nested AGENTS.md, CLAUDE.md, GEMINI.md)")
        return 0
    for item in items:
        rid = f"  [{str(item['record_id'])[-8:]}]" if item["record_id"] else ""
        native = f"  (loaded by the agent itself: {', '.join(item['native_agents'])})" if item["native_agents"] else ""  # type: ignore[arg-type]
        ctx.out(f"{item['path']}  {item['format']}/{item['mode']}{rid}{native}")
        ctx.out(f"    governs: {item['governs']}")
    return 0


def _show(ctx: Context, items: "list[dict[str, object]]", path: "str | None") -> int:
    """`rules show PATH`: the whole text agentctx delivers for one rule file (what the digest names when a rule
    that applies in every session has no room there)."""
    from ..base.errors import NotFoundError, UsageError
    from ..store import records

    if not path:
        raise UsageError("invalid_field", field="rules show", problem="needs the rule file's path")
    wanted = path[2:] if path.startswith("./") else path
    item = next((i for i in items if i["path"] in (path, wanted) and i["record_id"]), None)
    record = records.get(ctx.conn, str(item["record_id"]), ctx.project.id) if item else None
    if record is None:
        raise NotFoundError("rule_file_not_found", path=path)
    if ctx.json:
        ctx.emit({"path": item["path"], "record_id": record.id, "title": record.title, "body": record.body})  # type: ignore[index]
        return 0
    ctx.out(f"{item['path']} ({record.id}):")  # type: ignore[index]
    ctx.out(record.body)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rules", help="the repository's rule files for agents (Cursor, Claude Code, Copilot, nested "
                                     "AGENTS.md): what was read and what each governs; `rules sync` reads them now")
    p.add_argument("action", nargs="?", choices=("list", "sync", "show"), default="list",
                   help="list (default): what the store holds; sync: read the rule files now; show PATH: the whole "
                        "text delivered for one rule file")
    p.add_argument("path", nargs="?", help="with show: the rule file's repository-relative path")
    p.add_argument("--force", action="store_true", help="with sync: read every rule file even when none changed")
    add_json(p)
    p.set_defaults(handler=cmd_rules)
