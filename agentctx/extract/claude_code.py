"""The extraction call through the user's own Claude Code CLI (`claude -p`), shaped like the SDK's messages.create.

Headless, under the user's own login: our system prompt instead of Claude Code's (13,773 input tokens for a 10-word
request with its default one, 833 with ours), no tools, no MCP servers, no hooks, no CLAUDE.md, no session file,
structured output through `--json-schema` (the CLI offers the model a `StructuredOutput` tool and returns the
validated object as `structured_output`). Facts and sources: vendor-notes/claude-code-headless.md.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import Any

from .backend import CHILD_ENV

TIMEOUT_S = 180.0
MIN_TIMEOUT_S = 1.0  # less time than this left in a background run: no call is started
# The child's own retries of a failed request (its default is 10, with backoff: minutes of a background process).
CHILD_RETRIES = "2"
# What an answer's `api_error_status` means for us: back off (quota, login), or a plain failure.
RATE_LIMITED = {429, 529}
AUTH_FAILED = {401, 403}


class CLIError(Exception):
    """A call through the CLI that gave no answer: `kind` says why, `detail` what happened, `status` any HTTP status."""

    def __init__(self, kind: str, detail: str, status: int | None = None) -> None:
        from ..base.redact import scrub_text

        # The detail is the CLI's own words (its stderr, its result): a proxy URL with a password, an API key. It
        # ends up in extraction_calls, the pause file, the log and `status`: scrubbed here, where it is made.
        detail = scrub_text(detail)
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail, self.status = kind, detail, status

    @property
    def backs_off(self) -> bool:
        """A rate limit, a login problem, a CLI that cannot run or answer in time: not the part's fault, so wait
        before the next call instead of counting a failure against it (the part is sent again later)."""
        return self.kind in ("rate_limit", "auth", "offline", "missing", "broken", "timeout")


def argv(claude: str, model: str, system: str, schema: dict[str, Any]) -> list[str]:
    """The command line of one extraction call (the transcript window goes on stdin)."""
    return [claude, "-p", "--output-format", "json", "--model", model, "--system-prompt", system,
            "--json-schema", json.dumps(schema, separators=(",", ":")), "--tools", "", "--strict-mcp-config",
            "--no-session-persistence", "--settings", json.dumps({"disableAllHooks": True})]


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the user's (its login, proxies, base URL), marked as ours, lean and quiet."""
    env = dict(os.environ if base is None else base)
    env[CHILD_ENV] = "1"  # belt and braces: our hooks do nothing in it even if some hook still runs
    env.pop("CLAUDECODE", None)  # the child is its own session, not a nested one
    env.setdefault("CLAUDE_CODE_MAX_RETRIES", CHILD_RETRIES)
    env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"  # the user's CLAUDE.md is not ours to send with every extraction
    env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] = "1"
    env["DISABLE_AUTOUPDATER"] = "1"
    return env


def quiet_dir() -> str:
    """An empty private directory for the CLI child to run in: no project settings or files around it."""
    from ..base import paths

    directory = os.path.join(paths.state_dir_str(), "claude-code")
    paths.ensure_private_dir_str(directory)
    return directory


def _last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _logged_out(said: str) -> bool:
    """The CLI's words for "no login here": "Not logged in · Please run /login" (2.1.197 and 2.1.332, exit 1, with
    `api_error_status` null), or a failed authentication."""
    low = said.lower()
    return "not logged in" in low or "/login" in low or "authenticat" in low


def parse(stdout: str, stderr: str, returncode: int) -> dict[str, Any]:
    """The CLI's JSON result as a Messages API message (content, usage, model, total_cost_usd), or CLIError."""
    try:
        result = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        if returncode != 0:
            said = _last_line(stderr) or _last_line(stdout) or "no output"
            if _logged_out(said):  # the plain-text form of the same answer (vendor-notes/claude-code-headless.md)
                raise CLIError("auth", said)
            raise CLIError("broken", f"`claude` exited {returncode}: {said}")
        raise CLIError("not_json", f"the answer was not JSON: {_last_line(stdout) or 'empty'}")
    if result.get("is_error") or returncode != 0:
        status = result.get("api_error_status")
        status = status if isinstance(status, int) else None
        said = str(result.get("result") or result.get("subtype") or "error")[:300]
        if status in RATE_LIMITED:
            raise CLIError("rate_limit", said, status)
        if status in AUTH_FAILED or _logged_out(said):
            raise CLIError("auth", said, status)
        if status is None and "unable to connect" in said.lower():
            raise CLIError("offline", said)
        raise CLIError("cli_error", said, status)
    data = result.get("structured_output")
    text = json.dumps(data) if isinstance(data, dict) else str(result.get("result") or "")
    usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    models = result.get("modelUsage") if isinstance(result.get("modelUsage"), dict) else {}
    cost = result.get("total_cost_usd")
    return {"content": [{"type": "text", "text": text}], "usage": usage,
            "model": next(iter(models), None), "total_cost_usd": cost if isinstance(cost, (int, float)) else None}


def _message_text(messages: Any) -> str:
    parts = []
    for m in messages or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return "\n\n".join(parts)


class _Messages:
    def __init__(self, client: "ClaudeCodeClient") -> None:
        self._client = client

    def create(self, **kwargs: Any) -> dict[str, Any]:
        return self._client.create(**kwargs)


class ClaudeCodeClient:
    """Runs `claude -p` for `messages.create(**kwargs)` (the kwargs `extract.client.request` builds)."""

    def __init__(self, claude: str, *, timeout: float | None = None, cwd: str | None = None) -> None:
        self.claude, self.timeout, self.cwd = claude, TIMEOUT_S if timeout is None else timeout, cwd
        self.messages = _Messages(self)

    def create(self, **kwargs: Any) -> dict[str, Any]:
        system = "\n\n".join(b.get("text", "") for b in kwargs.get("system") or [] if isinstance(b, dict))
        schema = ((kwargs.get("output_config") or {}).get("format") or {}).get("schema")
        if schema is None:  # the forced-tool form of the request carries the same schema
            schema = next((t.get("input_schema") for t in kwargs.get("tools") or []), None)
        command = argv(self.claude, str(kwargs.get("model")), system, schema or {"type": "object"})
        return self.run(command, _message_text(kwargs.get("messages")))

    def run(self, command: list[str], stdin: str) -> dict[str, Any]:
        from ..base import spawn

        # Within a background worker (SessionEnd's consolidation, Stop's extraction) the call must end before the
        # worker's own lifetime does, with time left for the rest of its work: recording the session's end,
        # draining the ledger, the digest (spawn.child_budget).
        timeout = spawn.child_budget(self.timeout)
        if timeout < MIN_TIMEOUT_S:
            raise CLIError("timeout", "no time left in this background run for a call")
        try:
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=child_env(), cwd=self.cwd, text=True, encoding="utf-8", errors="replace",
                                    start_new_session=True)  # its own process group: killed whole, never left
        except OSError as exc:
            raise CLIError("missing", f"cannot run {self.claude}: {exc.strerror or exc}; install Claude Code or "
                                      "set `agentctx config set claudeCodePath /path/to/claude`") from None
        spawn.adopt(proc.pid, _pause_if_ended)  # the worker ended first after all: no CLI process outlives it
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the CLI and anything it started
            except OSError:
                proc.kill()
            proc.communicate()
            raise CLIError("timeout", f"no answer within {timeout:g} s") from None
        finally:
            spawn.release(proc.pid)
        return parse(out, err, proc.returncode)


def _pause_if_ended() -> None:
    """The worker's lifetime ran out during a call: pause as after a timeout (the next session end does not wait
    on a CLI that hangs again)."""
    from . import quota

    quota.pause("timeout", "the background run's lifetime ran out during a call")
