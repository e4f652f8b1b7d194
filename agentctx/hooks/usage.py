"""`agentctx hook` typed at a terminal: usage instead of silence (Claude Code never gives a hook a terminal)."""

import sys

from . import HANDLERS

USAGE = "usage: agentctx hook EVENT [--agent claude|codex|gemini|copilot] < payload.json"


def text() -> str:
    """The usage of `agentctx hook`, with every event it handles."""
    lines = [USAGE, "", "Claude Code, Codex CLI, Gemini CLI and Copilot CLI run these hooks (registered by `agentctx",
             "init`); each reads one JSON object on stdin (the agent's own shape, named by --agent; Claude Code",
             "without it),",
             "prints at most one JSON object, and always exits 0 when an agent runs it.", "", "events:"]
    lines += [f"  {event}" for event in HANDLERS]
    return "\n".join(lines) + "\n"


def at_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def unknown(event: str) -> int:
    """`--help` prints the usage (0); anything else names the problem on stderr (64), like every usage error."""
    if event in ("-h", "--help", "help"):
        sys.stdout.write(text())
        return 0
    problem = f"unknown hook event {event!r}" if event else "no hook event given"
    sys.stderr.write(f"agentctx hook: error: {problem}; events: {', '.join(HANDLERS)}\n{USAGE}\n")
    return 64


def no_payload(event: str) -> None:
    sys.stderr.write(f"agentctx hook {event}: reads Claude Code's JSON payload on stdin, got a terminal; nothing done "
                     f"(try: echo '{{\"cwd\": \".\"}}' | agentctx hook {event})\n")
