"""`agentctx hook <event>`: read Claude Code's hook JSON, dispatch by table, print at most one JSON object, exit 0."""

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

# Only json/os/sys here: a hook process pays for every import on every prompt. Handler modules load lazily.
# kebab-case event -> (module under agentctx.hooks, function taking a Payload and returning the output or None).
HANDLERS: dict[str, tuple[str, str]] = {
    "session-start": ("session", "session_start"),
    "user-prompt-submit": ("prompt", "user_prompt_submit"),
    "stop": ("lifecycle", "stop"),
    "pre-compact": ("lifecycle", "pre_compact"),
    "post-tool-use": ("tool", "post_tool_use"),
    "session-end": ("lifecycle", "session_end"),
}

STDIN_LIMIT = 16 * 1024 * 1024  # a PostToolUse payload carries tool output; anything larger is not a hook payload
STDIN_WAIT_S = 5.0


def log(event: str, message: str) -> None:
    """Append one line to ~/.agentctx/logs/hooks.log; logging itself must never fail the hook."""
    try:
        from .. import paths
        from ..ids import now_iso

        directory = paths.ensure_private_dir_str(paths.logs_dir_str())
        line = f"{now_iso()} {event or '-'} {message}".replace("\n", " | ")[:2000]
        fd = os.open(os.path.join(directory, "hooks.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except Exception:
        pass


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


def run(argv: list[str]) -> int:
    """Run one hook event. Always 0: a hook must never block or break the agent's session."""
    event = argv[0] if argv else ""
    target = HANDLERS.get(event)
    if target is None:
        log(event, f"unknown hook event {event!r}")
        return 0
    try:
        raw = read_stdin()
        try:
            data = json.loads(raw) if raw.strip() else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            log(event, "stdin is not a JSON object; nothing done")
            return 0
        from .payload import Payload

        payload = Payload.from_json(data)
        module = __import__(f"{__name__}.{target[0]}", fromlist=[target[1]])
        output = getattr(module, target[1])(payload)
        if output:
            sys.stdout.write(json.dumps(output, ensure_ascii=False, separators=(",", ":")) + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # fail open: SystemExit and KeyboardInterrupt included
        log(event, f"{type(exc).__name__}: {exc}")
    return 0


def console(argv: list[str]) -> "NoReturn":
    """`agentctx hook <event>` as a whole process: run it, flush, and leave through os._exit.

    Interpreter teardown (module cleanup, garbage collection) costs a hook ~3 ms on every prompt and there is
    nothing left to clean up: the store is closed and every file written by then.
    """
    code = run(argv)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
