"""`agentctx mcp` (serve the tools over stdio) and `agentctx sync` (review and apply the drift of CLAUDE.md, AGENTS.md
and GEMINI.md)."""

from __future__ import annotations

import argparse

from ..base.errors import UsageError
from .context import Context
from .parser import add_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..outside.drift import DriftReport


def cmd_mcp(args: argparse.Namespace, ctx: Context) -> int:
    if args.sdk:
        from ..mcp.sdk_server import main as sdk_main

        return sdk_main(cwd=ctx.cwd)
    from ..mcp.server import main

    return main(cwd=ctx.cwd)


def _render(report: DriftReport) -> list[str]:
    out: list[str] = []
    name = report.name
    if not report.files:
        return [f"no {name} in this project" + (" (looked for CLAUDE.md and .claude/CLAUDE.md)"
                                                if name == "CLAUDE.md" else "")]
    out.append("read: " + ", ".join(report.files))
    if report.missing:
        out.append(f"\n{len(report.missing)} record(s) not reflected in {name}:")
        out += [f"  {m['id']}  [{m['type']}] {m['title']}" for m in report.missing]
    if report.contradicted:
        out.append(f"\n{len(report.contradicted)} superseded record(s) still stated in {name} (edit by hand):")
        for c in report.contradicted:
            out.append(f"  {c['id']}  [{c['type']}] {c['title']}  (superseded by {c.get('superseded_by')})")
            if "file" in c:
                out.append(f"      {c['file']}:{c['line']}: {c['text']}")
    if not report.missing and not report.contradicted:
        out.append(f"{name} reflects every current decision and convention")
    return out


def cmd_sync(args: argparse.Namespace, ctx: Context) -> int:
    """One command for every instruction file the repository has: CLAUDE.md (always reported), AGENTS.md and
    GEMINI.md when present (`--file` picks one); each proposed change is confirmed on its own."""
    from ..outside import drift

    if args.file:
        reports = [drift.scan(ctx.conn, ctx.project, name=args.file)]
    else:
        reports = drift.scan_all(ctx.conn, ctx.project)
    if ctx.json:
        first = reports[0]
        ctx.emit({**first.to_dict(), "target": first.target, "file": first.name,
                  "instruction_files": [{"file": r.name, **r.to_dict(), "target": r.target} for r in reports]})
        return 0
    declined = False
    for n, report in enumerate(reports):
        if n:
            ctx.out(f"\n== {report.name} ==")
        elif len(reports) > 1:
            ctx.out(f"== {report.name} ==")
        for line in _render(report):
            ctx.out(line)
        if not report.proposed_diff:
            continue
        ctx.out("\nProposed change:\n")
        ctx.out(report.proposed_diff.rstrip("\n"))
        if not args.yes and not ctx.confirm(f"\nApply this change to {report.target}?"):
            declined = True
            continue
        target, backup = drift.apply(report)
        ctx.out(f"updated {target}" + (f" (backup: {backup})" if backup else ""))
    if declined:
        raise UsageError("not_confirmed", action="sync")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("mcp", help="serve the ctx_* tools to an MCP client over stdio")
    p.add_argument("--sdk", action="store_true", help="serve through the official mcp package ([mcp-sdk] extra)")
    p.set_defaults(handler=cmd_mcp)

    p = sub.add_parser("sync", help="compare CLAUDE.md (and AGENTS.md, GEMINI.md when present) with current decisions "
                                    "and conventions; add what is missing")
    p.add_argument("--yes", "--force", dest="yes", action="store_true", help="apply the proposed addition without asking")
    p.add_argument("--file", choices=("CLAUDE.md", "AGENTS.md", "GEMINI.md"),
                   help="only this instruction file (default: each one the repository has)")
    add_json(p)
    p.set_defaults(handler=cmd_sync)
