"""The agents `init` wires (Claude Code, Codex CLI, Gemini CLI, Copilot CLI): which are installed, wiring and
unwiring each, and the doctor checks of the others. One table, agent -> what each step calls; no command of its own."""

from __future__ import annotations

import argparse
import shlex
import shutil
from typing import Callable

from ..agents import LABELS, NAMES
from ..agents import codex_setup, copilot_setup, gemini_setup
from ..base import paths
from ..claude import setup, wiring
from ..claude.doctor import Check
from .context import Context

CHOICES = (*NAMES, "all")


def _claude_detected() -> bool:
    from ..base import userfiles
    from ..claude import plugin

    if plugin.running_from_plugin() is not None:
        return True  # started by the Claude Code plugin: Claude Code runs it
    home = paths.claude_home()
    return shutil.which("claude") is not None or (home.is_dir() and not userfiles.created_by_us(home))


DETECT: dict[str, Callable[[], bool]] = {"claude": _claude_detected, "codex": codex_setup.detected,
                                         "gemini": gemini_setup.detected, "copilot": copilot_setup.detected}


def chosen(requested: list[str] | None) -> list[str]:
    """`--agent` as given (`all`: every one), else every agent installed here."""
    if requested:
        return list(NAMES) if "all" in requested else [a for a in NAMES if a in requested]
    return [a for a in NAMES if DETECT[a]()]


def _user_dir(agent: str) -> str:
    return str({"claude": paths.claude_home, "codex": paths.codex_home, "gemini": paths.gemini_home,
                "copilot": copilot_setup.home}[agent]())


def not_installed(agent: str) -> str:
    """Why we say the agent is not installed here, in words."""
    return f"no `{agent}` on PATH, no {_user_dir(agent)}"  # each agent's command is its name


def to_wire(requested: list[str] | None, force: bool) -> tuple[list[str], list[str]]:
    """The agents `init` wires, and lines about those it leaves out because they are not installed here. An agent
    named by `--agent` that is not installed is refused (nothing is written for any agent) unless `force`; `all`
    and the default skip it, saying so."""
    from ..base.errors import UsageError

    agents = chosen(requested)
    named = bool(requested) and "all" not in requested
    missing = [a for a in (agents if requested else NAMES) if not DETECT[a]()]
    if force and requested:
        return agents, [f"{LABELS[a]}: not installed here ({not_installed(a)}); wired anyway (--force)"
                        for a in missing]
    if named and missing:
        a = missing[0]
        raise UsageError("agent_not_installed", label=LABELS[a], detail=not_installed(a), agent=a)
    lines = [f"{LABELS[a]}: not installed here ({not_installed(a)}): nothing written for it "
             f"(`agentctx init --agent {a} --force` writes it anyway)" for a in missing if requested]
    if not agents:
        lines.append("no coding agent found here (Claude Code, Codex CLI, Gemini CLI, Copilot CLI: "
                     + "; ".join(not_installed(a) for a in NAMES) + "): nothing wired; install one and run "
                     "`agentctx init` again, or `agentctx init --agent NAME --force`")
    return [a for a in agents if force or DETECT[a]()], lines


def _off(agent: str, flag: str) -> str:
    """How the switch reads when it is off: Copilot's says so by being true (`disableAllHooks`)."""
    return f"{flag} is {'true' if agent == 'copilot' else 'false'}"


def _flag(agent: str, module: object, ctx: Context, args: argparse.Namespace) -> list[str]:
    """A switch that turns every hook of the agent off is the user's: changed only when they say so."""
    flag = module.disabled_flag()  # type: ignore[attr-defined]
    if flag is None:
        return []
    label = LABELS[agent]
    if getattr(args, "yes", False) or ctx.confirm(f"{label}'s hooks are switched off ({_off(agent, flag)}), so "
                                                  f"agentctx would do nothing there. Turn them on?"):
        return [f"{label}: " + module.enable_hooks_flag()]  # type: ignore[attr-defined]
    return [f"{label}: {_off(agent, flag)}: no hook runs, agentctx's included; left as it is "
            f"(`agentctx init --agent {agent} --yes` turns it on)"]


def wire(agent: str, ctx: Context, args: argparse.Namespace) -> list[str]:
    """Register agentctx with one agent; what was done, in words, each line naming the agent."""
    mcp = not getattr(args, "no_mcp", False)
    if agent == "claude":
        return setup.wire_claude(project_root=ctx.project.root if getattr(args, "project", False) else None, mcp=mcp,
                                 here=ctx.project.root, force=getattr(args, "force", False))
    label = LABELS[agent]
    choice = wiring.choose(agent=label)  # the user's own settings: the command this installation runs from any PATH
    done = [f"{label}: hooks{' and MCP server' if mcp else ''} {choice.reason}"]
    module = {"codex": codex_setup, "gemini": gemini_setup, "copilot": copilot_setup}[agent]
    done += _flag(agent, module, ctx, args)
    root = str(ctx.project.root)
    if agent == "copilot":
        done += [f"{label}: {line}" for line in copilot_setup.wire(choice.argv, mcp=mcp)]
    elif agent == "codex":
        done += [f"{label}: {line}" for line in codex_setup.wire(choice.argv, root, mcp=mcp)]
    else:
        done += [f"{label}: {line}" for line in gemini_setup.wire(choice.argv, mcp=mcp)]
        if gemini_setup.folder_trusted(root) is False:
            done.append(f"{label}: it does not trust {root} yet: it starts no MCP server there (and `gemini -p` "
                        "refuses to run) until you trust the folder when it asks")
    return done


def precheck(agent: str, args: argparse.Namespace) -> None:
    """Refuse (ConfigError) before anything is written for any agent what wiring `agent` would refuse: its files
    unreadable as what they should be."""
    if agent == "codex":
        codex_setup.check_config(None if getattr(args, "no_mcp", False) else wiring.choose(agent=LABELS[agent]).argv)
        codex_setup.check_hooks_file()
    elif agent == "gemini":
        gemini_setup.check_settings()
    elif agent == "copilot":
        copilot_setup.check_files()


def unwire(agent: str, ctx: Context, args: argparse.Namespace) -> list[str]:
    if agent == "claude":
        return setup.unwire_claude(project_root=ctx.project.root if getattr(args, "project", False) else None,
                                   here=ctx.project.root)
    lines = {"codex": codex_setup.unwire, "gemini": gemini_setup.unwire, "copilot": copilot_setup.unwire}[agent]()
    return [f"{LABELS[agent]}: {line}" for line in lines]


def claude_check_for_others(checks: list[Check]) -> list[Check]:
    """Someone who uses only Codex or Gemini is not told to register with a Claude Code they do not have: the
    "not registered with Claude Code" warning becomes a note when Claude Code is not installed here and another agent
    is wired (when it is installed, the warning stays, with the command that wires it)."""
    others = [LABELS[a] for a in NAMES if a != "claude" and wired(a)]
    out = []
    for c in checks:
        if c.name == "claude-code" and c.status == "warn" and "not registered with Claude Code" in c.detail and others:
            if not DETECT["claude"]():
                c = Check("claude-code", "ok", f"Claude Code is not installed here; agentctx runs with {', '.join(others)}")
            else:
                c = Check(c.name, c.status, c.detail, "agentctx init --agent claude")
        out.append(c)
    return out


def wired(agent: str) -> bool:
    """Any of our hooks registered with this agent (user scope)."""
    if agent == "codex":
        return bool(codex_setup.registered())
    if agent == "gemini":
        return bool(gemini_setup.registered())
    if agent == "copilot":
        return bool(copilot_setup.registered())
    files = [paths.claude_home() / "settings.json"]
    return any(wiring.registered(files, paths.claude_json()))


def installed_checks() -> list[Check]:
    """An agent our entries are registered with that is not installed here: said, not reported as working."""
    return [Check(f"{a}-installed", "warn", f"{LABELS[a]} is not installed here ({not_installed(a)}): agentctx's "
                  "entries for it wait unused", f"install {LABELS[a]}, or `agentctx uninstall --agent {a}`")
            for a in NAMES if wired(a) and not DETECT[a]()]


# --- doctor ----------------------------------------------------------------------------------------------------

def _prefix(command: str) -> str | None:
    """`<launcher> hook <event> --agent NAME [guard]` -> the launcher."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if "hook" not in argv:
        return None
    return " ".join(shlex.quote(a) for a in argv[:len(argv) - 1 - argv[::-1].index("hook")])


def _runs(agent: str, commands: list[str]) -> list[Check]:
    """Each registered launcher runs from a minimal login environment, as the agent would start it."""
    from ..base import __version__

    out = []
    for prefix in sorted({p for p in map(_prefix, commands) if p}):
        ok, detail = wiring.probe(prefix)
        if not ok:
            out.append(Check(f"{agent}-command", "fail", f"`{prefix}` does not run from a login environment: {detail}",
                             f"run `agentctx init --agent {agent}` again from the installation {LABELS[agent]} "
                             "should use"))
        elif detail != f"agentctx {__version__}":
            out.append(Check(f"{agent}-command", "warn", f"`{prefix}` runs {detail}, not this agentctx {__version__}",
                             f"run `agentctx init --agent {agent}` again"))
        else:
            out.append(Check(f"{agent}-command", "ok", f"`{prefix}` runs ({detail})"))
    return out


def _common(agent: str, registered: dict[str, str], expected: int, where: str, flag: str | None) -> list[Check]:
    again = f"agentctx init --agent {agent}"
    out = [Check(f"{agent}-hooks", "ok" if len(registered) == expected else "warn",
                 f"{len(registered)} of our {expected} hooks in {where}", None if len(registered) == expected else again)]
    if flag:
        out.append(Check(f"{agent}-switch", "fail", f"{_off(agent, flag)}: {LABELS[agent]} runs no hook at all",
                         f"{again} --yes (or switch it yourself)"))
    return out


def checks(agent: str, root: str) -> list[Check]:
    """What `doctor` says about one agent other than Claude Code (that one is claude.doctor's)."""
    if agent == "codex":
        registered = codex_setup.registered()
        out = _common(agent, registered, len(codex_setup.codex.EVENTS), str(codex_setup.hooks_file()),
                      codex_setup.disabled_flag())
        out += _codex_trust(root) if registered else []
        mcp = codex_setup.mcp_registered()
        out.append(Check("codex-mcp", "ok" if mcp else "warn", f"MCP server `agentctx` {'in' if mcp else 'not in'} "
                         f"{codex_setup.config_file()}", None if mcp else "agentctx init --agent codex"))
    elif agent == "copilot":
        registered = copilot_setup.registered()
        out = _common(agent, registered, len(copilot_setup.copilot.EVENTS), str(copilot_setup.hooks_file()),
                      copilot_setup.disabled_flag())
        mcp = copilot_setup.mcp_entry() is not None
        out.append(Check("copilot-mcp", "ok" if mcp else "warn", f"MCP server `agentctx` {'in' if mcp else 'not in'} "
                         f"{copilot_setup.mcp_file()}", None if mcp else "agentctx init --agent copilot"))
    else:
        registered = gemini_setup.registered()
        out = _common(agent, registered, len(gemini_setup.gemini.EVENTS), str(gemini_setup.settings_file()),
                      gemini_setup.disabled_flag())
        mcp = gemini_setup.mcp_entry() is not None
        out.append(Check("gemini-mcp", "ok" if mcp else "warn", f"MCP server `agentctx` {'in' if mcp else 'not in'} "
                         f"{gemini_setup.settings_file()}", None if mcp else "agentctx init --agent gemini"))
        trusted = gemini_setup.folder_trusted(root)
        if trusted is False:
            out.append(Check("gemini-folder", "warn", f"Gemini CLI does not trust {root}: no MCP server starts there",
                             f"trust the folder when Gemini CLI asks (or add it to {gemini_setup.trusted_folders_file()})"))
    return out + _runs(agent, list(registered.values()))


def _codex_trust(root: str) -> list[Check]:
    """Codex skips an untrusted hook without a word (fact 10): doctor asks Codex itself."""
    try:
        status = codex_setup.trust_status(root)
    except (OSError, RuntimeError) as exc:
        return [Check("codex-trust", "warn", f"could not ask `codex app-server` ({exc})", "run `agentctx doctor` again")]
    if status is None:
        return [Check("codex-trust", "warn", "`codex` is not on PATH: cannot ask Codex whether it trusts our hooks",
                      "in `codex`, review the hooks with /hooks")]
    bad = {c: s for c, s in status.items() if s not in ("trusted", "managed")}
    if not status or bad:
        states = ", ".join(sorted(set(bad.values()))) or "not listed"
        return [Check("codex-trust", "fail", f"Codex will not run {len(bad) or 'any'} of our hooks ({states})",
                      "agentctx init --agent codex (trusts them), or /hooks in `codex`")]
    return [Check("codex-trust", "ok", f"Codex trusts our {len(status)} hooks")]
