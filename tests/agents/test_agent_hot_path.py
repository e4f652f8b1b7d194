"""The adapters keep the hooks' lean import path: Codex's and Gemini's prompt and session-start hooks load no module
Claude Code's do not (tests/hooks/test_hot_path.py), only the adapter package and its one module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.base.project import detect
from agentctx.memory import consolidate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "hooks"))
from test_hot_path import HEAVY  # noqa: E402  (one list of what a hook must not pay for)

CODE = """
import io, sys
sys.path.insert(0, {root!r})
sys.stdin = io.StringIO({payload!r})
from agentctx import hooks
out, real = io.StringIO(), sys.stdout
sys.stdout = out
hooks.run({argv!r})
sys.stdout = real
modules = sorted(sys.modules)
import json
print(json.dumps({{"output": out.getvalue(), "modules": modules}}))
"""


def _run(argv: list[str], payload: dict) -> dict:
    code = CODE.format(root=str(ROOT), payload=json.dumps(payload), argv=argv)
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=dict(os.environ),
                          timeout=60, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("agent,event", [("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent")])
def test_an_injecting_prompt_loads_no_heavy_module(agent, event, add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    got = _run(["user-prompt-submit", "--agent", agent], {"session_id": "s1", "cwd": str(repo), "hook_event_name": event,
                                                         "prompt": "sqlite storage decision: WAL and busy timeout"})
    assert f'"hookEventName":"{event}"' in got["output"] and "[decision] Storage decision" in got["output"]
    assert [m for m in HEAVY if m in got["modules"]] == []
    other = "gemini" if agent == "codex" else "codex"
    assert f"agentctx.agents.{agent}" in got["modules"] and f"agentctx.agents.{other}" not in got["modules"]


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_session_start_loads_no_heavy_module_and_no_sqlite(agent, add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    got = _run(["session-start", "--agent", agent], {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Storage decision" in got["output"]
    assert [m for m in HEAVY if m in got["modules"] and m != "agentctx.memory.digest"] == []
    assert "sqlite3" not in got["modules"]


def test_copilot_hooks_load_no_heavy_module_and_only_its_adapter_and_the_patch_reader(add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    got = _run(["user-prompt-submit", "--agent", "copilot"], {"sessionId": "s1", "cwd": str(repo), "timestamp": 1,
                                                              "prompt": "sqlite storage decision: WAL and busy timeout"})
    assert "[decision] Storage decision" in json.loads(got["output"])["additionalContext"]
    assert [m for m in HEAVY if m in got["modules"]] == []
    assert "agentctx.agents.copilot" in got["modules"] and "agentctx.agents.gemini" not in got["modules"]
    assert "agentctx.agents.copilot_setup" not in got["modules"]
    got = _run(["session-start", "--agent", "copilot"], {"sessionId": "s1", "cwd": str(repo), "source": "new"})
    assert "Storage decision" in got["output"] and "sqlite3" not in got["modules"]
    assert [m for m in HEAVY if m in got["modules"] and m != "agentctx.memory.digest"] == []
