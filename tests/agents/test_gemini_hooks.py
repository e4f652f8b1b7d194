"""The Gemini CLI adapter on the neutral hooks, fed the payloads Gemini CLI 0.61.0 sends (vendor-notes/gemini-cli.md,
facts 10-11 and 14: recorded by tests/e2e/test_gemini_smoke.py)."""

from __future__ import annotations

from agentctx.agents import gemini
from agentctx.base.project import detect
from agentctx.memory import capture, consolidate, digest
from agentctx.store import records

SID = "8f0c2a61-3b4d-4e5f-9a0b-1c2d3e4f5a6b"
DECISION = ("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
PROMPT = "sqlite storage decision: WAL and busy timeout"


def _common(repo, event):
    return {"session_id": SID, "transcript_path": f"/home/u/.gemini/tmp/repo/chats/session-{SID[:8]}.jsonl",
            "cwd": str(repo), "hook_event_name": event, "timestamp": "2026-12-02T10:00:00.000Z"}


def test_session_start_gives_the_digest_as_json_context(agent_hook, add, repo):
    add(*DECISION)
    consolidate.run(detect(repo))
    out = agent_hook("gemini", "session-start", {**_common(repo, "SessionStart"), "source": "startup"})
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "Storage decision" in text
    # the digest names the MCP tools as Gemini offers them (mcp_<server>_<tool>, fact 21)
    assert "mcp_agentctx_ctx_search" in text and "mcp__agentctx__" not in text


def test_before_agent_injects_under_its_own_event_name(agent_hook, add, repo):
    add(*DECISION)
    out = agent_hook("gemini", "user-prompt-submit", {**_common(repo, "BeforeAgent"), "prompt": PROMPT})
    assert out["hookSpecificOutput"] == {"hookEventName": "BeforeAgent", "additionalContext": out[
        "hookSpecificOutput"]["additionalContext"]}
    assert "[decision] Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def test_before_agent_searches_the_prompt_not_the_digest_prepended_to_it(agent_hook, add, conn, repo):
    """Headless, SessionStart's context arrives inside BeforeAgent's prompt (fact 14): searched as it is, the digest
    would find its own records again for any prompt."""
    add(*DECISION)
    project = detect(repo)
    digest.refresh(conn, project.id, project=project)
    context = digest.read_carried(project.id)[0]
    assert "Storage decision" in context
    prompt = f"<hook_context>{context}</hook_context>\n\nWhat is the capital of France?"
    assert agent_hook("gemini", "user-prompt-submit", {**_common(repo, "BeforeAgent"), "prompt": prompt}) is None
    # and the developer's own words after it still count
    prompt = f"<hook_context>{context}</hook_context>\n\n{PROMPT}"
    out = agent_hook("gemini", "user-prompt-submit", {**_common(repo, "BeforeAgent"), "prompt": prompt})
    assert "[decision] Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def _shell(repo, command, content, display, exit_code=None):
    llm = f"<untrusted_context>\nOutput: {content}\n" + (f"Exit Code: {exit_code}\n" if exit_code else "") + \
        "Process Group PGID: 4242\n</untrusted_context>"
    return {**_common(repo, "AfterTool"), "tool_name": "run_shell_command",
            "tool_input": {"command": command, "description": "run it"},
            "tool_response": {"llmContent": llm, "returnDisplay": display}}


def test_a_shell_command_is_captured_with_its_outcome(agent_hook, conn, repo):
    ok = _shell(repo, "git checkout -b feature/gemini", "Switched to a new branch 'feature/gemini'",
                "Switched to a new branch 'feature/gemini'")
    assert agent_hook("gemini", "post-tool-use", ok) is None
    assert [tuple(r) for r in conn.execute("SELECT name FROM nodes WHERE kind = 'branch'")] == [("feature/gemini",)]
    failed = _shell(repo, "python -m pytest -q", "FAILED tests/test_api.py::test_retry - assert 1 == 2\n1 failed in 0.1s",
                    "FAILED tests/test_api.py::test_retry - assert 1 == 2\n1 failed in 0.1s", exit_code=1)
    agent_hook("gemini", "post-tool-use", failed)
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.title == "Test failure: tests/test_api.py::test_retry" and "Command: python -m pytest -q" in stub.body
    assert [e["kind"] for e in capture.read_log(SID)] == ["branch", "test"]


def test_write_file_and_replace_are_file_edits(agent_hook, conn, repo):
    for tool, args in (("write_file", {"file_path": str(repo / "a.py"), "content": "x = 1\n"}),
                       ("replace", {"file_path": "b.py", "instruction": "fix", "old_string": "a", "new_string": "b"})):
        post = {**_common(repo, "AfterTool"), "tool_name": tool, "tool_input": args,
                "tool_response": {"llmContent": "Successfully wrote", "returnDisplay": "ok"}}
        assert agent_hook("gemini", "post-tool-use", post) is None
    assert {n for (n,) in conn.execute("SELECT name FROM nodes WHERE kind = 'file'")} == {str(repo / "a.py"),
                                                                                          str(repo / "b.py")}


def test_an_mcp_tool_result_is_not_captured(agent_hook, conn, repo):
    post = {**_common(repo, "AfterTool"), "tool_name": "mcp_agentctx_ctx_project", "tool_input": {},
            "tool_response": {"llmContent": [{"text": "<untrusted_context>\n{\"error\": \"x\"}"}]},
            "mcp_context": {"server_name": "agentctx"}}
    assert agent_hook("gemini", "post-tool-use", post) is None
    assert capture.read_log(SID) == []


def test_after_agent_and_session_end_print_nothing(agent_hook, conn, repo, monkeypatch):
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: 1)
    after = {**_common(repo, "AfterAgent"), "prompt": "hi", "prompt_response": "garbled", "stop_hook_active": False}
    assert agent_hook("gemini", "stop", after) is None
    assert agent_hook("gemini", "session-end", {**_common(repo, "SessionEnd"), "reason": "exit"}) is None


def test_strip_context_removes_only_leading_hook_context():
    assert gemini.strip_context("<hook_context>a</hook_context>\n\n<hook_context>b</hook_context>\n\nhi") == "hi"
    assert gemini.strip_context("hi <hook_context>a</hook_context>") == "hi <hook_context>a</hook_context>"
    assert gemini.strip_context("<hook_context>unclosed") == "<hook_context>unclosed"


def test_chat_lines_give_the_developer_and_the_model():
    user = {"id": "m1", "timestamp": "t", "type": "user",
            "content": [{"text": "<hook_context>digest</hook_context>\n\nUse WAL, not DELETE."},
                        {"text": "<hook_context>Relevant project context (agentctx): ...</hook_context>"}],
            "displayContent": [{"text": "Use WAL, not DELETE."}]}
    assert gemini.is_line(user) and gemini.line_turn(user) == ("developer", "Use WAL, not DELETE.")
    model = {"id": "m2", "type": "gemini", "content": "Done.", "toolCalls": []}
    assert gemini.line_turn(model) == ("assistant", "Done.") and gemini.line_key(model) == "m2"
    tool_result = {"id": "m3", "type": "user", "content": [{"functionResponse": {"name": "run_shell_command"}}]}
    assert gemini.line_turn(tool_result) is None
    assert gemini.line_turn({"id": "m4", "type": "user", "content": [{"text": "<session_context>x</session_context>"}]}) \
        is None
    assert gemini.is_line({"sessionId": SID, "projectHash": "h", "kind": "main"}) and gemini.is_line({"$set": {}})
    assert not gemini.is_line({"type": "user", "message": {"content": "hi"}})  # a Claude Code line
