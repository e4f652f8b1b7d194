"""`agentctx mcp` (serve the tools over stdio) and `agentctx sync` (review and apply CLAUDE.md drift)."""

from __future__ import annotations

import argparse

from ..base.errors import UsageError
from .context import Context
from .parser import add_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..memory.drift import DriftReport


def cmd_mcp(args: argparse.Namespace, ctx: Context) -> int:
    if args.sdk:
        from ..mcp.sdk_server import main as sdk_main

        return sdk_main(cwd=ctx.cwd)
    from ..mcp.server import main

    return main(cwd=ctx.cwd)


def _render(report: DriftReport) -> list[str]:
    out: list[str] = []
    if not report.files:
        return ["no CLAUDE.md in this project (looked for CLAUDE.md and .claude/CLAUDE.md)"]
    out.append("read: " + ", ".join(report.files))
    if report.missing:
        out.append(f"\n{len(report.missing)} record(s) not reflected in CLAUDE.md:")
        out += [f"  {m['id']}  [{m['type']}] {m['title']}" for m in report.missing]
    if report.contradicted:
        out.append(f"\n{len(report.contradicted)} superseded record(s) still stated in CLAUDE.md (edit by hand):")
        for c in report.contradicted:
            out.append(f"  {c['id']}  [{c['type']}] {c['title']}  (superseded by {c.get('superseded_by')})")
            if "file" in c:
                out.append(f"      {c['file']}:{c['line']}: {c['text']}")
    if not report.missing and not report.contradicted:
        out.append("CLAUDE.md reflects every current decision and convention")
    return out


def cmd_sync(args: argparse.Namespace, ctx: Context) -> int:
    from ..memory import drift

    report = drift.scan(ctx.conn, ctx.project)
    if ctx.json:
        ctx.emit({**report.to_dict(), "target": report.target})
        return 0
    for line in _render(report):
        ctx.out(line)
    if not report.proposed_diff:
        return 0
    ctx.out("\nProposed change:\n")
    ctx.out(report.proposed_diff.rstrip("\n"))
    if not args.yes and not ctx.confirm(f"\nApply this change to {report.target}?"):
        raise UsageError("not_confirmed", action="sync")
    target, backup = drift.apply(report)
    ctx.out(f"updated {target}" + (f" (backup: {backup})" if backup else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mcp", help="serve the ctx_* tools to an MCP client over stdio")
    p.add_argument("--sdk", action="store_true", help="serve through the official mcp package ([mcp-sdk] extra)")
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("sync", help="compare CLAUDE.md with current decisions and conventions; add what is missing")
    p.add_argument("--yes", "--force", dest="yes", action="store_true", help="apply the proposed addition without asking")
    add_json(p)
    p.set_defaults(handler=cmd_sync)
