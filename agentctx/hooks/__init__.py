"""`agentctx hook <event> [--agent NAME]`: read the agent's hook JSON as a Payload (through its adapter), dispatch by
table, print at most one JSON object, exit 0.

May import: every layer below the surfaces (lazily: each handler loads only what its event needs).
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

from ..base import jsonfast
from ..base.models import record_type

# Only os/sys, jsonfast (JSON without the json package) and the tuple factory here: a hook process pays for every
# import on every prompt. Handler modules load lazily.
# kebab-case event -> (module under agentctx.hooks, function taking a Payload and returning the output or None).
HANDLERS: dict[str, tuple[str, str]] = {
    "session-start": ("session", "session_start"),
    "user-prompt-submit": ("prompt", "user_prompt_submit"),
    "stop": ("lifecycle", "stop"),
    "pre-compact": ("lifecycle", "pre_compact"),
    "pre-tool-use": ("action", "pre_tool_use"),
    # What an action did after records were delivered before it (followup), then capture (tool).
    "post-tool-use": ("followup", "post_tool_use"),
    "post-tool-use-failure": ("followup", "post_tool_use_failure"),
    "session-end": ("lifecycle", "session_end"),
}

STDIN_LIMIT = 16 * 1024 * 1024  # a PostToolUse payload carries tool output; anything larger is not a hook payload
STDIN_WAIT_S = 5.0


# An immutable tuple with named fields (models.record_type) rather than a frozen dataclass: `dataclasses` pulls in
# `inspect`, about 8 ms of imports on every hook process (measured: bench/hooks.py).
_FIELDS = ("session_id", "transcript_path", "cwd", "event_name", "source", "prompt", "tool_name", "tool_input",
           "tool_response", "trigger", "reason", "stop_hook_active", "error", "agent", "exit_unknown", "tool_use_id")
_DEFAULTS = ("", "", "", "", "", "", "", None, None, "", "", False, "", "claude", False, "")


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _obj(value: object) -> object:
    return value if isinstance(value, (dict, list, str)) else None


class Payload(record_type("Payload", _FIELDS, defaults=_DEFAULTS)):
    """What Claude Code sends on stdin (vendor-notes/claude-code-hooks.md facts 5-6), the neutral shape every agent's
    adapter (`agentctx.agents`) maps its own payload to; unknown keys are ignored.

    `source` is SessionStart's startup|resume|clear|compact|fork, `prompt` UserPromptSubmit's text, `tool_*`
    PostToolUse's, `error` PostToolUseFailure's (the failed call's output: "Exit code N", then stderr and stdout),
    `trigger` PreCompact's manual|auto, `reason` SessionEnd's, `agent` whose session it is (`agents.NAMES`: data for
    the ledger rows, never a branch in a handler). `exit_unknown`: the agent does not say whether the tool call
    succeeded (an adapter sets it; a failure it can read is `error`). `tool_use_id`: the id that ties a PreToolUse to
    its PostToolUse (absent for Gemini CLI). A wrong type reads as empty.
    """

    __slots__ = ()

    @classmethod
    def from_json(cls, data: dict, agent: str = "claude") -> "Payload":  # type: ignore[type-arg]
        return cls(
            session_id=_text(data.get("session_id")),
            transcript_path=_text(data.get("transcript_path")),
            cwd=_text(data.get("cwd")) or os.getcwd(),
            event_name=_text(data.get("hook_event_name")),
            source=_text(data.get("source")),
            prompt=_text(data.get("prompt")),
            tool_name=_text(data.get("tool_name")),
            tool_input=_obj(data.get("tool_input")),
            tool_response=_obj(data.get("tool_response")),
            trigger=_text(data.get("trigger")),
            reason=_text(data.get("reason")),
            stop_hook_active=data.get("stop_hook_active") is True,
            error=_text(data.get("error")),
            agent=agent,
            exit_unknown=data.get("exit_unknown") is True,
            tool_use_id=_text(data.get("tool_use_id")),
        )


def record_pending(entry: dict[str, object]) -> bool:
    """Append one ledger row to the pending file (the hooks write no row to the store; `agentctx why`, `status` and
    consolidation drain it). One short O_APPEND write: rows from parallel hooks do not interleave. False if the
    row could not be written."""
    from ..base import paths
    from ..base.ids import now_iso

    entry.setdefault("at", now_iso())
    path = paths.pending_ledger_file()
    line = (jsonfast.dumps(entry) + "\n").encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    try:
        try:
            fd = os.open(path, flags, 0o600)
        except FileNotFoundError:  # the first row: create the state directory
            paths.ensure_private_dir_str(os.path.dirname(path))
            fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def log(event: str, message: str) -> None:
    """Append one line to ~/.agentctx/logs/hooks.log (`base.hooklog`); logging itself must never fail the hook."""
    try:
        from ..base.hooklog import log as write  # only on the (rare) logging path
    except Exception:
        return
    write(event, message)


def read_stdin() -> bytes:
    """The hook payload; a terminal or a writer that never closes gives up after STDIN_WAIT_S."""
    stream = sys.stdin
    if stream is None or stream.closed:
        return b""
    try:
        if stream.isatty():
            return b""
        fd = stream.fileno()
    except (OSError, ValueError):  # replaced stdin (tests): read it directly
        data = stream.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data or b"")
    chunks: list[bytes] = []
    size = 0
    # Non-blocking reads first: the payload is usually complete before the hook starts, and then `select`
    # (an extension module, ~0.2 ms to load) is never needed. It waits only when the writer is still writing.
    try:
        os.set_blocking(fd, False)
    except OSError:
        pass
    try:
        while size <= STDIN_LIMIT:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                import select

                ready, _, _ = select.select([fd], [], [], STDIN_WAIT_S)
                if not ready:
                    break
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        try:
            os.set_blocking(fd, True)
        except OSError:
            pass
    return b"".join(chunks)


def canonical(event: str) -> str:
    """The kebab-case name of an event also written as Claude Code names it ("UserPromptSubmit") or snake_case."""
    if event in HANDLERS:
        return event
    kebab = "".join(("-" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(event))
    kebab = kebab.replace("_", "-")
    return kebab if kebab in HANDLERS else event


def agent_of(args: list[str]) -> str:
    """The agent named by `--agent NAME` (or `--agent=NAME`) among the arguments after the event; Claude Code
    without one (its registered commands predate the option)."""
    for i, arg in enumerate(args):
        if arg == "--agent":
            return args[i + 1] if i + 1 < len(args) else ""
        if arg.startswith("--agent="):
            return arg[8:]
    return "claude"


def run(argv: list[str]) -> int:
    """Run one hook event. Always 0: a hook must never block or break the agent's session."""
    if os.environ.get("AGENTCTX_EXTRACTION_CHILD"):  # the `claude` an extraction runs (extract.backend.CHILD_ENV)
        return 0  # its hooks must not write into the store they are extracting for
    event = canonical(argv[0]) if argv else ""
    target = HANDLERS.get(event)
    agent = agent_of(argv[1:])
    if target is None:
        from . import usage

        # Asked for help, or a person typed it (Claude Code always pipes the payload).
        if event in ("-h", "--help", "help") or usage.at_terminal():
            return usage.unknown(event)
        log(event, f"unknown hook event {event!r}")
        return 0
    from ..agents import NAMES, adapter as adapter_of

    if agent not in NAMES:  # a newer registration than this agentctx: nothing is done, nothing is printed
        log(event, f"unknown agent {agent!r}; nothing done")
        return 0
    adapter = adapter_of(agent)
    from . import budget

    watchdog = budget.arm(event)  # the hook's own wall-clock budget (budget.TOTAL_S)
    try:
        raw = read_stdin()
        if not raw and sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
            from . import usage

            usage.no_payload(event)
        try:
            data = jsonfast.loads(raw) if raw.strip() else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            log(event, "stdin is not a JSON object; nothing done")
            return 0
        if agent == "claude" and os.environ.get("COPILOT_CLI"):
            from ..agents import copilot

            if copilot.echoes_claude(data):  # Copilot running a project's Claude Code hooks: its own run serves it
                return 0
        if adapter is not None:  # the agent's payload in the neutral shape; None: nothing for us in it
            data = adapter.payload(event, data)
            if data is None:
                return 0
        payload = Payload.from_json(data, agent)
        if os.environ.get("CLAUDE_PLUGIN_ROOT") and os.environ.get("AGENTCTX_PLUGIN_ROOT"):
            # Run as the plugin's hook (Claude Code sets the first for plugin hooks only, our launcher the second):
            # it stands aside while `agentctx init` registered hooks of its own, which run too (claude/aside.py).
            from ..claude import aside

            where = aside.hooks_registered(payload.cwd)
            if where is not None:
                if event == "session-start":
                    sys.stdout.write(jsonfast.dumps({"systemMessage": aside.message(where)}, ensure_ascii=False) + "\n")
                return 0
        module = __import__(f"{__name__}.{target[0]}", fromlist=[target[1]])
        output = getattr(module, target[1])(payload)
        if adapter is not None:
            output = adapter.output(event, output)
        if output:
            sys.stdout.write(jsonfast.dumps(output, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # fail open: SystemExit, KeyboardInterrupt and BudgetExceeded included
        log(event, f"{type(exc).__name__}: {exc}")
    finally:
        budget.disarm(watchdog)
    return 0


def console(argv: list[str]) -> "NoReturn":
    """`agentctx hook <event>` as a whole process: run it, flush, and leave through os._exit.

    Interpreter teardown (module cleanup, garbage collection) costs a hook ~3 ms on every prompt and there is
    nothing left to clean up: the store is closed and every file written by then.
    """
    import gc

    gc.disable()  # a short-lived process that leaves through os._exit: collection cycles would only cost time
    try:
        code = run(argv)
    except BaseException:  # the watchdog firing in the instant run() disarms it: still exit 0
        code = 0
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
