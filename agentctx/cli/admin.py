"""Store administration commands: init, status, reset, config, doctor."""

from __future__ import annotations

import argparse
import sqlite3

from ..base import config, paths
from ..base.errors import UsageError
from ..claude import doctor, setup
from ..memory import status as status_mod
from .context import Context
from .parser import add_json


def cmd_init(args: argparse.Namespace, ctx: Context) -> int:
    from . import agents

    wiring, skipped = agents.to_wire(args.agent, args.force)  # installed here, or named by --agent (--force)
    for agent in wiring:
        agents.precheck(agent, args)  # a file that would be refused is refused before any is written
    done = setup.initialize() + skipped
    for agent in wiring:
        done += agents.wire(agent, ctx, args)
    done += [] if args.no_profile else setup.profile_and_digest(ctx.project)
    if ctx.json:
        ctx.emit({"home": str(paths.home()), "database": str(paths.db_path()), "done": done})
    else:
        for line in done:
            ctx.out(line)
        ctx.out(f"agentctx is ready for {ctx.project.name}"
                + ("" if wiring else " (no agent wired: see above)"))
    return 0


def cmd_status(args: argparse.Namespace, ctx: Context) -> int:
    from . import agents

    data = status_mod.report(ctx.conn, ctx.project)
    data["claude_code"] = setup.claude_code_state(ctx.project.root)
    data["agents"] = [a for a in agents.NAMES if agents.wired(a)]  # those our hooks are registered with
    data["agents_not_installed"] = [a for a in data["agents"] if not agents.DETECT[a]()]
    if ctx.json:
        ctx.emit(data)
    else:
        ctx.out(status_mod.render(data))
    return 0


def cmd_reset(args: argparse.Namespace, ctx: Context) -> int:
    ctx.conn  # fail early with "run agentctx init" when there is no store
    question = f"Delete every agentctx record of {ctx.project.name} ({ctx.project.id[:12]}…)? Global records stay."
    if not args.force and not ctx.confirm(question):
        raise UsageError("not_confirmed", action="reset")
    ctx.close()
    removed = setup.reset_project(ctx.project)
    if ctx.json:
        ctx.emit({"removed": removed, "project_id": ctx.project.id})
    else:
        ctx.out(f"removed {removed} records of {ctx.project.name}")
    return 0


def _shown(value: object) -> str:
    """A config value as `get`, `set` and the listing all print it: booleans as true/false, unset as nothing."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def cmd_config(args: argparse.Namespace, ctx: Context) -> int:
    if args.llm_flag is not None:  # `config --no-llm` / `--llm`, as the seed specification names them
        if args.key is not None or args.action != "get":
            raise UsageError("invalid_field", field="config --llm/--no-llm", problem="takes no KEY or VALUE")
        args.action, args.key, args.value = "set", "llm", "true" if args.llm_flag else "false"
    if args.action == "set":
        if args.key is None or args.value is None:
            raise UsageError("invalid_field", field="config set", problem="needs KEY and VALUE")
        value = config.set_value(args.key, args.value)
        ctx.emit(value) if ctx.json else ctx.out(f"{args.key} = {_shown(value)}")
        return 0
    if args.value is not None:
        raise UsageError("invalid_field", field="config get", problem="takes at most one KEY")
    if args.key:
        value = config.get(args.key)
        ctx.emit(value) if ctx.json else ctx.out(_shown(value))
        return 0
    values = config.load()
    if ctx.json:
        ctx.emit(values)
    else:
        for key, value in values.items():
            ctx.out(f"{key} = {_shown(value)}")
    return 0


def _config_keys_help() -> str:
    import json

    lines = ["keys (default in brackets):"]
    for name, key in config.KEYS.items():
        lines.append(f"  {name:<24}{key.help} [{json.dumps(key.default)}]")
    lines += ["", "examples:", "  agentctx config                      show every key",
              "  agentctx config get llm", "  agentctx config set reinforceThreshold 4",
              "  agentctx config --no-llm             deterministic capture only (same as: config set llm false)"]
    return "\n".join(lines)


def _agent_memory_checks(ctx: Context) -> list:
    """Where an agent's own memory and agentctx hold the same facts, and what the user can do (outside.agentmem)."""
    from ..base.errors import AgentctxError
    from ..outside import agentmem

    try:
        rows = agentmem.state(ctx.conn, ctx.project)
    except (AgentctxError, OSError, sqlite3.Error):  # no store yet: the database checks say so
        return []
    return [doctor.Check(f"own memory {label}", "warn", detail, fix) for label, detail, fix in agentmem.overlap(rows)]


def _same_repository_checks(ctx: Context) -> list:
    """This repository's records under another project id (its origin URL changed): a warning with the command."""
    from ..base.errors import AgentctxError
    from ..memory import identity

    try:
        same = identity.observe(ctx.conn, ctx.project)
    except (AgentctxError, OSError, sqlite3.Error):  # no store yet: the database checks say so
        return []
    return [doctor.Check("same repository", "warn", identity.describe(s),
                         f"agentctx project move --from {s.project_id[:12]}") for s in same]


def cmd_doctor(args: argparse.Namespace, ctx: Context) -> int:
    from . import agents

    checks = doctor.run(repair=args.repair, project_root=ctx.project.root)
    for agent in ("codex", "gemini", "copilot"):  # Claude Code's own checks are in doctor.run
        if agents.wired(agent) or agents.DETECT[agent]():
            checks += agents.checks(agent, str(ctx.project.root))
    checks = agents.claude_check_for_others(checks)
    checks += agents.installed_checks()
    checks += _agent_memory_checks(ctx)
    checks += _same_repository_checks(ctx)
    if ctx.json:
        ctx.emit([c.to_dict() for c in checks])
    else:
        for c in checks:
            ctx.out(f"[{c.status:^4}] {c.name}: {c.detail}" + (f"\n       fix: {c.fix}" if c.fix and c.status != "ok" else ""))
    return 1 if any(c.status == "fail" for c in checks) else 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("init", help="create the store and config, wire agentctx into your coding agents (Claude Code, "
                                    "Codex CLI, Gemini CLI, Copilot CLI), detect the profile")
    p.add_argument("--agent", action="append", choices=("claude", "codex", "gemini", "copilot", "all"),
                   help="wire this agent (repeatable; default: every one installed here, else Claude Code)")
    p.add_argument("--yes", action="store_true",
                   help="turn an agent's hooks on if its own settings switched them off (otherwise: asked)")
    p.add_argument("--project", action="store_true",
                   help="Claude Code: register the hooks in this project's .claude/settings.json")
    p.add_argument("--no-mcp", action="store_true", help="do not register the MCP server with the agents")
    p.add_argument("--no-profile", action="store_true", help="skip project profile detection")
    p.add_argument("--force", action="store_true",
                   help="write an agent's settings even when it is not installed here, and Claude Code's even when "
                        "the agentctx plugin is enabled")
    add_json(p)
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser("status", help="what is stored for this project and what it has cost")
    add_json(p)
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("reset", help="delete this project's records (asks first)")
    p.add_argument("--force", action="store_true", help="do not ask")
    add_json(p)
    p.set_defaults(handler=cmd_reset)

    p = sub.add_parser("config", help="read or change settings (config.json)", epilog=_config_keys_help(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", choices=("get", "set"), default="get")
    p.add_argument("key", nargs="?", help="a key listed below")
    p.add_argument("value", nargs="?", help="the new value (set)")
    p.add_argument("--llm", dest="llm_flag", action=argparse.BooleanOptionalAction, default=None,
                   help="turn LLM extraction on, or off (--no-llm: deterministic capture only)")
    add_json(p)
    p.set_defaults(handler=cmd_config)

    p = sub.add_parser("doctor", help="check the store: integrity, search index, WAL, permissions")
    p.add_argument("--repair", action="store_true", help="fix what can be fixed (rebuild index, permissions, checkpoint)")
    add_json(p)
    p.set_defaults(handler=cmd_doctor)
