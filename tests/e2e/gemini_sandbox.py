"""The real Gemini CLI, run headless (`gemini -p`) in a throwaway HOME against a `GeminiStandIn`.

Gemini CLI comes from `AGENTCTX_GEMINI_BIN` (`.ci/run` installs a pinned `@google/gemini-cli` from npm and sets
it). It talks only to the stand-in on 127.0.0.1: API-key auth chosen in ~/.gemini/settings.json, a dummy
GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL; usage statistics, telemetry and update checks off. Facts:
vendor-notes/gemini-cli.md.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from cli_common import Workspace, agentctx_command, cli_binary, log_hook_command

PINNED = "0.61.0"  # @google/gemini-cli: the newest release on 2026-12-02; engines node >= 20
HOOK_EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "PreCompress", "SessionEnd")


def gemini_bin() -> tuple[str | None, str]:
    return cli_binary("AGENTCTX_GEMINI_BIN", "@google/gemini-cli", PINNED)


def hooks_settings(events: tuple[str, ...] = HOOK_EVENTS, command: Any = log_hook_command) -> dict[str, Any]:
    """The `hooks` object of settings.json: the log hook (or `command(event)`) for `events`, matching everything;
    timeouts are in MILLISECONDS here."""
    return {e: [{"matcher": "*", "hooks": [{"type": "command", "name": f"e2e-{e}", "command": command(e),
                                            "timeout": 30000}]}] for e in events}


def settings_json(*, hooks: dict[str, Any] | None = None, mcp: bool = True) -> dict[str, Any]:
    """~/.gemini/settings.json: API-key auth (the stand-in), nothing that phones home, the hooks, and agentctx's MCP
    server (this checkout's; AGENTCTX_HOME comes from the environment the CLI passes on)."""
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    if hooks is not None:
        settings["hooks"] = hooks
    if mcp:
        command, *args = agentctx_command("mcp")
        settings["mcpServers"] = {"agentctx": {"command": command, "args": args}}
    return settings


class Run:
    """One `gemini -p ... -o stream-json` run: its JSONL events, exit code and stderr."""

    def __init__(self, stdout: str, returncode: int | None, stderr: str) -> None:
        self.events = [json.loads(line) for line in stdout.splitlines() if line.strip().startswith("{")]
        self.returncode, self.stderr = returncode, stderr

    @property
    def session_id(self) -> str:
        return next(e["session_id"] for e in self.events if e.get("type") == "init")

    @property
    def answer(self) -> str:
        """The assistant's text, deltas joined."""
        return "".join(e["content"] for e in self.events if e.get("type") == "message" and e.get("role") == "assistant")

    @property
    def result(self) -> dict[str, Any]:
        return next(e for e in self.events if e.get("type") == "result")


class GeminiSandbox(Workspace):
    """A Workspace with ~/.gemini set up; `run` is one headless `gemini -p`."""

    def __init__(self, base: Path, gemini: str) -> None:
        super().__init__(base)
        self.gemini = gemini
        self.gemini_home = self.home / ".gemini"
        self.gemini_home.mkdir(exist_ok=True)

    def configure(self, *, hooks: dict[str, Any] | None = None, mcp: bool = True) -> None:
        (self.gemini_home / "settings.json").write_text(json.dumps(settings_json(hooks=hooks, mcp=mcp), indent=1),
                                                        encoding="utf-8")

    def run(self, prompt: str, base_url: str, *, timeout: float = 120) -> Run:
        """`gemini -p` in the repository: --skip-trust (folder trust is on: an untrusted folder is fatal headless),
        --approval-mode yolo (headless, the default mode offers no shell tool at all)."""
        env = {**self.env, "GEMINI_API_KEY": "standin-not-a-key", "GOOGLE_GEMINI_BASE_URL": base_url}
        done = subprocess.run([self.gemini, "--skip-trust", "--approval-mode", "yolo", "-o", "stream-json",
                               "-p", prompt], cwd=self.repo, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)
        return Run(done.stdout, done.returncode, done.stderr)
