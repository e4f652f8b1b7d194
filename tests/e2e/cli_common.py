"""What the Codex and Gemini CLI sandboxes share: finding the pinned binary (or the reason to skip), a throwaway HOME
with a git repository, the log hook's command line, and the command that starts this checkout's MCP server."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent
LOG_HOOK = HERE / "log_hook.py"


def cli_binary(env_var: str, package: str, pinned: str) -> tuple[str | None, str]:
    """The executable named by `env_var`, or None and why not (the reason a test skips with)."""
    path = os.environ.get(env_var, "")
    if not path:
        return None, (f"{env_var} is not set (.ci/run installs {package}@{pinned} with npm and sets it; without "
                      "node/npm this end-to-end test cannot run)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, f"{env_var}={path} is not an executable file"
    if shutil.which("git") is None:
        return None, "git is not on PATH"
    return path, ""


def agentctx_command(*args: str) -> list[str]:
    """argv that runs THIS checkout's `agentctx ARGS` with this interpreter, whatever the working directory (an MCP
    server is started in the project; Gemini CLI refuses a PYTHONPATH in a server's env)."""
    boot = (f"import sys; sys.path.insert(0, {str(CHECKOUT)!r}); sys.argv[1:] = {list(args)!r}; "
            "from agentctx import console; console()")
    return [sys.executable, "-c", boot]


def log_hook_command(event: str) -> str:
    """The shell command line of the log hook for one event."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(LOG_HOOK))} {event}"


class Workspace:
    """HOME, TMPDIR and a git repository (one commit) under `base`; `env` is a minimal environment for the CLI."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.home, self.repo, self.tmp = base / "home", base / "repo", base / "tmp"
        for d in (self.home, self.repo, self.tmp):
            d.mkdir(parents=True, exist_ok=True)
        self.hook_log = base / "hooks.jsonl"
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "TMPDIR": str(self.tmp),
                    "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1", "AGENTCTX_HOME": str(self.home / ".agentctx"),
                    "AGENTCTX_E2E_HOOK_LOG": str(self.hook_log)}
        (self.home / ".gitconfig").write_text("[user]\n\tname = e2e\n\temail = e2e@example.invalid\n"
                                              "[init]\n\tdefaultBranch = main\n", encoding="utf-8")
        self.git("init", "-q")
        (self.repo / "README.md").write_text("demo\n", encoding="utf-8")
        self.git("add", ".")
        self.git("commit", "-qm", "initial")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, env=self.env, check=True, capture_output=True,
                              text=True, timeout=30).stdout

    def hook_calls(self, event: str | None = None) -> list[dict[str, Any]]:
        """The log hook's records (event, stdin, cwd, env names), in order."""
        if not self.hook_log.exists():
            return []
        calls = [json.loads(line) for line in self.hook_log.read_text("utf-8").splitlines() if line.strip()]
        return [c for c in calls if event is None or c["event"] == event]
