"""PostToolUseFailure: a failed tool call reaches only this event (vendor-notes/claude-code-hooks.md fact 21), so a
failing test run or an erroring command is captured from its `error` (the payload as Claude Code 2.1.197 sends it)."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.memory import capture
from agentctx.store import records

# The payload of a failing Bash call, as the real CLI sent it (shape recorded on 2026-12-02; paths shortened).
FAILED_PYTEST = {
    "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
    "tool_input": {"command": "python -m pytest -q tests/test_api.py", "description": "run the tests"},
    "tool_use_id": "toolu_f1", "is_interrupt": False, "duration_ms": 176,
    "error": "Exit code 1\nFAILED tests/test_api.py::test_retry - assert 1 == 2\n1 failed in 0.12s",
}


def test_a_failing_test_run_becomes_a_bugfix_stub_and_the_last_error(hook, conn, repo):
    hook("PostToolUseFailure", {"session_id": "s1", "cwd": str(repo), **FAILED_PYTEST})
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.title == "Test failure: tests/test_api.py::test_retry"
    assert stub.body.startswith("Command: python -m pytest -q tests/test_api.py\nObserved: FAILED tests/test_api.py::")
    assert stub.body.endswith("\nFailed tests:\n- tests/test_api.py::test_retry")
    (logged,) = capture.read_log("s1")
    assert logged["kind"] == "test" and logged["outcome"] == "failed"


def test_an_erroring_command_is_captured_too(hook, conn, repo):
    payload = {**FAILED_PYTEST, "tool_input": {"command": "python manage.py migrate"},
               "error": "Exit code 1\nTraceback (most recent call last):\nValueError: bad migration 0042"}
    hook("post-tool-use-failure", {"session_id": "s1", "cwd": str(repo), **payload})
    assert capture.read_log("s1")[0]["kind"] == "error"


def test_a_failure_without_an_error_text_captures_nothing(hook, conn, repo):
    hook("post-tool-use-failure", {"session_id": "s1", "cwd": str(repo), **{**FAILED_PYTEST, "error": ""}})
    assert records.current(conn, detect(repo).id, types=["bugfix"]) == []


def test_init_registers_the_failure_hook_for_bash():
    from agentctx.claude.settings import HOOKS

    assert HOOKS["PostToolUseFailure"][:2] == ("post-tool-use-failure", "Bash")
