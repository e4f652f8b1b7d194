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
    if ctx.json:
        ctx.emit({"project_id": ctx.project.id, "rules": items})
        return 0
    if not items:
        ctx.out("no rule files read yet (`agentctx rules sync` reads .cursor/rules, .claude/rules, "
                ".github/instructions and nested AGENTS.md, CLAUDE.md, GEMINI.md)")
        return 0
    for item in items:
        rid = f"  [{str(item['record_id'])[-8:]}]" if item["record_id"] else ""
        native = f"  (loaded natively by {', '.join(item['native_agents'])})" if item["native_agents"] else ""  # type: ignore[arg-type]
        ctx.out(f"{item['path']}  {item['format']}/{item['mode']}{rid}{native}")
        ctx.out(f"    governs: {item['governs']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rules", help="the repository's rule files for agents (Cursor, Claude Code, Copilot, nested "
                                     "AGENTS.md): what was read and what each governs; `rules sync` reads them now")
    p.add_argument("action", nargs="?", choices=("list", "sync"), default="list",
                   help="list (default): what the store holds; sync: read the rule files now")
    p.add_argument("--force", action="store_true", help="with sync: read every rule file even when none changed")
    add_json(p)
    p.set_defaults(handler=cmd_rules)
