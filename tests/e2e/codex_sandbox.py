"""The real Codex CLI, run non-interactively (`codex exec`) in a throwaway HOME against a `ResponsesStandIn`.

Codex comes from `AGENTCTX_CODEX_BIN` (`.ci/run` installs a pinned `@openai/codex` from npm and sets it). It talks
only to the stand-in on 127.0.0.1: a custom model provider in ~/.codex/config.toml (base_url, an env_key holding a
dummy key, wire_api "responses", no websockets, no retries), so a run needs no network and no account.
Facts: vendor-notes/codex-cli.md.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from cli_common import Workspace, agentctx_command, cli_binary, log_hook_command

PINNED = "0.171.0"  # @openai/codex: the newest release on 2026-12-02; runs on Node 20 (its package is a native binary)
KEY_VAR = "AGENTCTX_E2E_STANDIN_KEY"
HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")


def codex_bin() -> tuple[str | None, str]:
    return cli_binary("AGENTCTX_CODEX_BIN", "@openai/codex", PINNED)


def _toml(value: object) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a valid TOML basic string / array


def config_toml(base_url: str, *, mcp: bool = True, model: str = "gpt-standin") -> str:
    """~/.codex/config.toml: the stand-in as the model provider, nothing that phones home, and agentctx's MCP
    server (this checkout's). Codex starts an MCP server with HOME, LANG and PATH only: AGENTCTX_HOME is passed on
    by name (`env_vars`). `model`: a name missing from Codex's catalog gets fallback metadata (a warning, and no
    apply_patch tool); a catalog model such as "gpt-5.5" is offered apply_patch as a freeform tool."""
    lines = [
        f"model = {_toml(model)}",
        'model_provider = "standin"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.standin]",
        'name = "stand-in"',
        f"base_url = {_toml(base_url)}",
        f"env_key = {_toml(KEY_VAR)}",
        'wire_api = "responses"',
        "supports_websockets = false",
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
    ]
    if mcp:
        command, *args = agentctx_command("mcp")
        lines += ["", "[mcp_servers.agentctx]", f"command = {_toml(command)}", f"args = {_toml(args)}",
                  'env_vars = ["AGENTCTX_HOME"]']
    return "\n".join(lines) + "\n"


def hooks_json(events: tuple[str, ...] = HOOK_EVENTS) -> dict[str, Any]:
    """~/.codex/hooks.json registering the log hook for `events` (no matchers: every tool, every source)."""
    return {"hooks": {e: [{"hooks": [{"type": "command", "command": log_hook_command(e), "timeout": 30}]}]
                      for e in events}}


class Run:
    """One `codex exec --json` run: its JSONL events, exit code and stderr."""

    def __init__(self, stdout: str, returncode: int | None, stderr: str) -> None:
        self.events = [json.loads(line) for line in stdout.splitlines() if line.strip().startswith("{")]
        self.returncode, self.stderr = returncode, stderr

    @property
    def thread_id(self) -> str:
        return next(e["thread_id"] for e in self.events if e.get("type") == "thread.started")

    def items(self, kind: str) -> list[dict[str, Any]]:
        """The completed items of one type (agent_message, command_execution, mcp_tool_call, error, ...)."""
        return [e["item"] for e in self.events if e.get("type") == "item.completed" and e["item"].get("type") == kind]


class CodexSandbox(Workspace):
    """A Workspace with ~/.codex set up for the stand-in; `run` is one `codex exec`."""

    def __init__(self, base: Path, codex: str) -> None:
        super().__init__(base)
        self.codex = codex
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir(exist_ok=True)

    def configure(self, base_url: str, *, hooks: dict[str, Any] | None = None, mcp: bool = True,
                  model: str = "gpt-standin") -> None:
        (self.codex_home / "config.toml").write_text(config_toml(base_url, mcp=mcp, model=model), encoding="utf-8")
        if hooks is not None:
            (self.codex_home / "hooks.json").write_text(json.dumps(hooks, indent=1), encoding="utf-8")

    def run(self, prompt: str, *, trust_hooks: bool = True, timeout: float = 90) -> Run:
        """`codex exec` in the repository. `trust_hooks`: pass --dangerously-bypass-hook-trust (otherwise a hook
        runs only once its hash is trusted in config.toml). The sandbox is off (the run is in a throwaway HOME):
        Codex's own sandbox keeps .git read-only, so `git checkout -b` would fail in it."""
        args = [self.codex, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox"]
        if trust_hooks:
            args.append("--dangerously-bypass-hook-trust")
        done = subprocess.run([*args, prompt], cwd=self.repo, env={**self.env, KEY_VAR: "sk-standin-not-a-key"},
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        return Run(done.stdout, done.returncode, done.stderr)

    def app_server(self, *requests: tuple[str, dict[str, Any]], timeout: float = 60) -> list[dict[str, Any]]:
        """Send JSON-RPC requests to `codex app-server` (stdio), after initialize; their responses, in order."""
        proc = subprocess.Popen([self.codex, "app-server"], cwd=self.repo, env=self.env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None

        def call(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise AssertionError(f"codex app-server closed its output: {proc.stderr.read()[-2000:]}")
                message = json.loads(line)
                if message.get("id") == number:
                    return message

        try:
            call(0, "initialize", {"clientInfo": {"name": "agentctx-e2e", "version": "0"}})
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
            return [call(n, method, params) for n, (method, params) in enumerate(requests, 1)]
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def trust_hooks(self) -> list[dict[str, Any]]:
        """Trust every untrusted or modified hook the way Codex's own /hooks review does: hooks/list gives each
        hook's key and currentHash, config/batchWrite stores them under [hooks.state."<key>"] trusted_hash. Returns
        the hooks/list entries before the write."""
        (listed,) = self.app_server(("hooks/list", {"cwds": [str(self.repo)]}))
        hooks = [h for entry in listed["result"]["data"] for h in entry["hooks"]]
        state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks
                 if h["trustStatus"] in ("untrusted", "modified")}
        if state:
            (written,) = self.app_server(("config/batchWrite", {
                "edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}]}))
            assert written.get("result", {}).get("status") == "ok", written
        return hooks
