"""A throwaway HOME and git repository with agentctx initialised, and the real Claude Code CLI run in it headless.

Claude Code comes from `AGENTCTX_CLAUDE_BIN` (`.ci/run` installs a pinned `@anthropic-ai/claude-code` from npm and
sets it). It talks only to a `MessagesStandIn` on 127.0.0.1 (ANTHROPIC_BASE_URL, a dummy key, nonessential
traffic off), so a run needs no network and no account.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PINNED = "2.1.197"  # the newest @anthropic-ai/claude-code that runs on Node 20 (2.1.198 requires Node >= 22)
PROMPT_FLAGS = ("--output-format", "stream-json", "--verbose", "--include-hook-events", "--allowedTools", "Bash")


def claude_bin() -> tuple[str | None, str]:
    """The Claude Code executable to test against, or None and why not."""
    path = os.environ.get("AGENTCTX_CLAUDE_BIN", "")
    if not path:
        return None, (f"AGENTCTX_CLAUDE_BIN is not set (.ci/run installs @anthropic-ai/claude-code@{PINNED} "
                      "with npm and sets it; without node/npm this end-to-end test cannot run)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, f"AGENTCTX_CLAUDE_BIN={path} is not an executable file"
    if shutil.which("git") is None:
        return None, "git is not on PATH"
    return path, ""


class Run:
    """One `claude -p` run: its stream-json events (hook events included), exit code and stderr."""

    def __init__(self, stdout: str, returncode: int | None, stderr: str) -> None:
        self.events = [json.loads(line) for line in stdout.splitlines() if line.strip().startswith("{")]
        self.returncode, self.stderr = returncode, stderr

    @property
    def session_id(self) -> str:
        return next(e["session_id"] for e in self.events if e.get("session_id"))

    def hook_responses(self, event: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "system" and e.get("subtype") == "hook_response"
                and (event is None or e.get("hook_event") == event)]

    def hook_started(self, event: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "system" and e.get("subtype") == "hook_started"
                and e.get("hook_event") == event]

    def additional_context(self, event: str) -> str:
        """What the hook printed as additionalContext ("" when it printed nothing)."""
        for e in self.hook_responses(event):
            out = (e.get("output") or "").strip()
            if out:
                return json.loads(out)["hookSpecificOutput"]["additionalContext"]
        return ""

    @property
    def result(self) -> dict[str, Any]:
        return next(e for e in self.events if e.get("type") == "result")


class Sandbox:
    """HOME, AGENTCTX_HOME, TMPDIR and a git repository under `base`; agentctx initialised with the hooks."""

    def __init__(self, base: Path, claude: str) -> None:
        self.base, self.claude = base, claude
        self.home, self.repo, self.tmp = base / "home", base / "repo", base / "tmp"
        for d in (self.home, self.repo, self.tmp):
            d.mkdir(parents=True, exist_ok=True)
        # Claude Code is installed here: its user directory exists (as after its first run), so `agentctx init`
        # wires it (it wires no agent it cannot find; `claude` itself is not put on PATH, which would also switch
        # extraction to the CLI backend).
        (self.home / ".claude").mkdir(exist_ok=True)
        # This interpreter's scripts first, so `agentctx init` registers this installation's `agentctx hook`.
        path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "/usr/bin:/bin")])
        self.env = {"PATH": path, "HOME": str(self.home), "AGENTCTX_HOME": str(self.home / ".agentctx"),
                    "TMPDIR": str(self.tmp), "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1"}
        (self.home / ".gitconfig").write_text("[user]\n\tname = e2e\n\temail = e2e@example.invalid\n"
                                              "[init]\n\tdefaultBranch = main\n", encoding="utf-8")
        self.git("init", "-q")
        (self.repo / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n', encoding="utf-8")
        self.git("add", ".")
        self.git("commit", "-qm", "initial")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, env=self.env, check=True, capture_output=True,
                              text=True, timeout=30).stdout

    def agentctx(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "agentctx", *args], cwd=self.repo, env=self.env,
                              capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            raise AssertionError(f"agentctx {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done

    def agentctx_json(self, *args: str) -> Any:
        return json.loads(self.agentctx(*args, "--json").stdout)

    def claude_env(self, base_url: str) -> dict[str, str]:
        return {**self.env, "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-ant-standin-not-a-key",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_BUG_COMMAND": "1",
                "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1"}

    def run(self, prompt: str, base_url: str, *, timeout: float = 60, allowed: tuple[str, ...] = ()) -> Run:
        """`allowed`: tools allowed beyond Bash (headless runs deny any tool not allowed)."""
        done = subprocess.run([self.claude, "-p", prompt, *PROMPT_FLAGS, *allowed], cwd=self.repo,
                              env=self.claude_env(base_url), capture_output=True, text=True, timeout=timeout)
        return Run(done.stdout, done.returncode, done.stderr)

    def start(self, prompt: str, base_url: str) -> subprocess.Popen[str]:
        """The same run, left running (to be killed: a session that never gets its SessionEnd)."""
        return subprocess.Popen([self.claude, "-p", prompt, *PROMPT_FLAGS], cwd=self.repo,
                                env=self.claude_env(base_url), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)

    @property
    def state(self) -> Path:
        return self.home / ".agentctx" / "state"

    def marker(self, session_id: str) -> Path:
        return self.state / "open" / f"{session_id}.json"

    def capture_log(self, session_id: str) -> Path:
        return self.state / f"session-{session_id}.jsonl"

    def query(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        """Read the store directly (a test's view; agentctx's own SQL lives in agentctx/store/)."""
        import sqlite3

        conn = sqlite3.connect(self.home / ".agentctx" / "agentctx.db", timeout=10)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def ended_at(self, session_id: str) -> str | None:
        rows = self.query("SELECT ended_at FROM sessions WHERE session_id = ?", session_id)
        return rows[0][0] if rows else None

    def current_handovers(self) -> list[tuple[str, str, str | None]]:
        """(id, body, session_id) of the current handovers."""
        return self.query("SELECT id, body, session_id FROM records WHERE type = 'handover' AND superseded_by IS NULL")


def wait_for(predicate: Any, timeout: float = 20.0, interval: float = 0.1) -> bool:
    """Poll until `predicate()` is truthy (background work: consolidation runs detached)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


class PluginSandbox(Sandbox):
    """The same, without agentctx installed anywhere: Claude Code's PATH holds a fresh virtualenv with no packages (its
    interpreter under every name the plugin's launcher looks for) and the system directories. agentctx comes only from
    the plugin (`claude plugin marketplace add` / `install`)."""

    def __init__(self, base: Path, claude: str) -> None:
        super().__init__(base, claude)
        self.python_dir = base / "python"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.python_dir)], check=True, timeout=120)
        bin_dir = self.python_dir / "bin"
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        for name in ("python3.14", "python3.13", "python3.12", "python3.11", "python3.10"):
            if not (bin_dir / name).exists():  # the launcher tries these before python3: all are this virtualenv
                (bin_dir / name).symlink_to(version)
        self.env["PATH"] = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])

    def claude_cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """`claude <args>` (plugin management: no API call)."""
        done = subprocess.run([self.claude, *args], cwd=self.repo, env=self.claude_env("http://127.0.0.1:9"),
                              capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"claude {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
        return done

    def installed(self) -> dict[str, Any]:
        """Claude Code's record of the plugin's (user-scope) install."""
        data = json.loads((self.home / ".claude" / "plugins" / "installed_plugins.json").read_text(encoding="utf-8"))
        (entry,) = data["plugins"]["agentctx@agentctx"]
        return entry

    def plugin_cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """The plugin's own `agentctx` (the copy in Claude Code's plugin cache), as a person would run it."""
        launcher = Path(self.installed()["installPath"]) / "bin" / "agentctx"
        done = subprocess.run(["sh", str(launcher), *args], cwd=self.repo, env=self.env, capture_output=True,
                              text=True, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"agentctx {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return done

    def settings(self) -> dict[str, Any]:
        path = self.home / ".claude" / "settings.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def claude_state(self) -> dict[str, Any]:
        path = self.home / ".claude.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
