"""The real GitHub Copilot CLI, run non-interactively (`copilot -p`) in a throwaway HOME against a `ResponsesStandIn`.

Copilot comes from `AGENTCTX_COPILOT_BIN` (`.ci/run` installs a pinned `@github/copilot` from npm and sets it). It
talks only to the stand-in on 127.0.0.1: offline mode (`COPILOT_OFFLINE=true`: no GitHub sign-in, telemetry,
web tools or update check) with the stand-in as its own model provider (BYOK: `COPILOT_PROVIDER_BASE_URL`, type
openai, the Responses wire API), so a run needs no network and no account. Facts: vendor-notes/copilot-cli.md.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from cli_common import Workspace, agentctx_command, cli_binary, log_hook_command

PINNED = "1.0.102"  # @github/copilot: the newest release on 2026-12-07; its npm package is a native binary
HOOK_EVENTS = ("sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure",
               "preCompact", "agentStop", "sessionEnd")
# The binary unpacks ~235 MB into $XDG_CACHE_HOME/copilot/pkg on its first run (fact 1): one cache for every test.
CACHE = Path(os.environ.get("AGENTCTX_COPILOT_CACHE") or Path(tempfile.gettempdir()) / "agentctx-e2e-copilot-cache")
# The model family decides the file tools (fact 9): claude-* get view/create/edit, gpt-5* apply_patch.
MODEL = "claude-sonnet-4.6"


def copilot_bin() -> tuple[str | None, str]:
    return cli_binary("AGENTCTX_COPILOT_BIN", "@github/copilot", PINNED)


def hooks_json(events: tuple[str, ...] = HOOK_EVENTS) -> dict[str, Any]:
    """A ~/.copilot/hooks/*.json registering the log hook for `events` (version 1, fact 3)."""
    return {"version": 1, "hooks": {e: [{"type": "command", "bash": log_hook_command(e), "timeoutSec": 30}]
                                    for e in events}}


def mcp_config() -> dict[str, Any]:
    command, *args = agentctx_command("mcp")
    return {"mcpServers": {"agentctx": {"type": "local", "command": command, "args": args, "tools": ["*"]}}}


class Run:
    """One `copilot -p --output-format json` run: its JSONL events, exit code and stderr."""

    def __init__(self, stdout: str, returncode: int | None, stderr: str) -> None:
        self.events = [json.loads(line) for line in stdout.splitlines() if line.strip().startswith("{")]
        self.returncode, self.stderr = returncode, stderr

    @property
    def session_id(self) -> str:
        return next(str(e["sessionId"]) for e in self.events if e.get("type") == "result")

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e.get("data") or {} for e in self.events if e.get("type") == kind]


class CopilotSandbox(Workspace):
    """A Workspace with ~/.copilot; `run` is one `copilot -p` against the stand-in at `base_url`."""

    def __init__(self, base: Path, copilot: str) -> None:
        super().__init__(base)
        self.copilot = copilot
        self.copilot_home = self.home / ".copilot"
        (self.copilot_home / "hooks").mkdir(parents=True, exist_ok=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        self.env["XDG_CACHE_HOME"] = str(CACHE)
        self.base_url = ""

    def configure(self, base_url: str, *, hooks: dict[str, Any] | None = None, mcp: bool = False) -> None:
        self.base_url = base_url
        if hooks is not None:
            (self.copilot_home / "hooks" / "log.json").write_text(json.dumps(hooks, indent=1), encoding="utf-8")
        if mcp:
            (self.copilot_home / "mcp-config.json").write_text(json.dumps(mcp_config(), indent=1), encoding="utf-8")

    def provider_env(self, model: str = MODEL) -> dict[str, str]:
        return {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": self.base_url, "COPILOT_PROVIDER_TYPE": "openai",
                "COPILOT_PROVIDER_WIRE_API": "responses", "COPILOT_PROVIDER_API_KEY": "sk-standin-not-a-key",
                "COPILOT_MODEL": model, "COPILOT_AUTO_UPDATE": "false", "NO_COLOR": "1"}

    def run(self, prompt: str, *, model: str = MODEL, timeout: float = 120, resume: str = "") -> Run:
        """`copilot -p` in the repository, every tool allowed (there is nobody to ask); `resume`: in that session.
        Its own process group: the npm launcher starts the native binary as a child, which a timeout must not leave
        running."""
        args = [self.copilot, "-p", prompt, "--allow-all-tools", "--output-format", "json", "--log-level", "none",
                *(["--resume", resume] if resume else [])]
        proc = subprocess.Popen(args, cwd=self.repo, env={**self.env, **self.provider_env(model)},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            err += f"\n(killed after {timeout} s)"
        return Run(out, proc.returncode, err)

    def session_log(self, session_id: str) -> list[dict[str, Any]]:
        """The CLI's own event log of a session (~/.copilot/session-state/<id>/events.jsonl, fact 14)."""
        path = self.copilot_home / "session-state" / session_id / "events.jsonl"
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
