"""End to end with the REAL Claude Code CLI (pinned): a failing Bash command in a session lands in the store.

Claude Code sends a failed tool call to PostToolUseFailure, never to PostToolUse (vendor-notes/claude-code-hooks.md
fact 24). The stand-in's HAND-WRITTEN model runs a failing pytest through Bash; `agentctx init` registered the
failure hook, and the test run becomes a bugfix stub of that session.
"""

from __future__ import annotations

from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin, wait_for
from messages_standin import MessagesStandIn, has_tool_result, last_user_content, offers_tool

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

COMMAND = "python -m pytest -q -p no:cacheprovider test_retry.py"


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: run the tests once through Bash, then say they failed."""
    if has_tool_result(last_user_content(body)):
        return [{"type": "text", "text": "The test fails."}]
    if offers_tool(body, "Bash"):
        return [{"type": "tool_use", "id": "toolu_standin_pytest", "name": "Bash",
                 "input": {"command": COMMAND, "description": "Run the tests"}}]
    return [{"type": "text", "text": "OK."}]


def test_a_failing_test_run_in_a_session_lands_in_the_store(tmp_path):
    box = Sandbox(tmp_path, str(CLAUDE))
    (box.repo / "test_retry.py").write_text("def test_retry():\n    assert 1 == 2, 'retries exhausted'\n")
    box.agentctx("init")
    box.agentctx("config", "set", "llm", "false")
    with MessagesStandIn(model) as api:
        run = box.run("run the tests please", api.base_url)
    assert run.returncode == 0, run.stderr
    failure = run.hook_responses("PostToolUseFailure")
    assert failure and failure[0]["exit_code"] == 0 and failure[0]["outcome"] == "success"
    assert not run.hook_responses("PostToolUse")  # a failed call never reaches PostToolUse

    def stub() -> list[Any]:
        return box.query("SELECT title, body, session_id FROM records WHERE type = 'bugfix'")

    assert wait_for(stub)
    (title, body, session_id), = stub()
    assert title.startswith("Test failure: ") and "test_retry" in title and "test_retry" in body  # named by its id
    assert session_id == run.session_id
