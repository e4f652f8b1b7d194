"""The Codex CLI adapter on the neutral hooks, fed the payloads Codex 0.171.0 sends (vendor-notes/codex-cli.md,
facts 12-13: recorded by tests/e2e/test_codex_smoke.py)."""

from __future__ import annotations

from agentctx.agents import codex
from agentctx.base.project import detect
from agentctx.memory import capture, consolidate
from agentctx.store import records

SID = "01a235dd-2f1e-7c52-9a1b-0c1d2e3f4a5b"
DECISION = ("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
PROMPT = "sqlite storage decision: WAL and busy timeout"


def _common(repo, event):
    return {"session_id": SID, "transcript_path": None, "cwd": str(repo), "hook_event_name": event,
            "model": "gpt-5.5", "permission_mode": "bypassPermissions"}


def test_session_start_gives_the_digest_as_codex_context(agent_hook, add, repo):
    add(*DECISION)
    consolidate.run(detect(repo))
    out = agent_hook("codex", "session-start", {**_common(repo, "SessionStart"), "source": "startup"})
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"  # without it Codex drops the context
    assert "Storage decision" in out["hookSpecificOutput"]["additionalContext"]
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}  # deny_unknown_fields


def test_the_prompt_hook_injects_records(agent_hook, add, repo):
    add(*DECISION)
    out = agent_hook("codex", "user-prompt-submit", {**_common(repo, "UserPromptSubmit"), "turn_id": "t1",
                                                      "prompt": PROMPT})
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "[decision] Storage decision" in out["hookSpecificOutput"]["additionalContext"]


def test_a_shell_call_with_a_string_response_is_captured(agent_hook, conn, repo):
    ok = {**_common(repo, "PostToolUse"), "turn_id": "t1", "tool_name": "Bash", "tool_use_id": "call_1",
          "tool_input": {"command": "git checkout -b feature/codex"},
          "tool_response": "Switched to a new branch 'feature/codex'\n"}
    assert agent_hook("codex", "post-tool-use", ok) is None
    assert [tuple(r) for r in conn.execute("SELECT name FROM nodes WHERE kind = 'branch'")] == [("feature/codex",)]
    # no exit code in Codex's response: the failure is read from the output itself (fact 13)
    failed = {**ok, "tool_input": {"command": "python -m pytest -q"},
              "tool_response": "F.\nFAILED tests/test_api.py::test_retry - assert 1 == 2\n1 failed, 1 passed in 0.1s\n"}
    agent_hook("codex", "post-tool-use", failed)
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.title == "Test failure: tests/test_api.py::test_retry" and "Command: python -m pytest -q" in stub.body


def test_an_apply_patch_edit_records_every_file_of_the_patch(agent_hook, conn, repo):
    patch = ("*** Begin Patch\n*** Add File: notes/hello.txt\n+hello\n*** Update File: src/app.py\n@@\n-a\n+b\n"
             "*** Update File: src/old.py\n*** Move to: src/new.py\n*** End Patch\n")
    post = {**_common(repo, "PostToolUse"), "tool_name": "apply_patch", "tool_use_id": "call_2",
            "tool_input": {"command": patch},
            "tool_response": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n"}
    assert agent_hook("codex", "post-tool-use", post) is None
    names = {n for (n,) in conn.execute("SELECT name FROM nodes WHERE kind = 'file'")}
    assert names == {str(repo / p) for p in ("notes/hello.txt", "src/app.py", "src/old.py", "src/new.py")}
    assert [e["path"] for e in capture.read_log(SID)] == [str(repo / p) for p in ("notes/hello.txt", "src/app.py",
                                                                                   "src/old.py", "src/new.py")]


def test_patch_files_reads_the_patch_grammar():
    assert codex.patch_files("*** Begin Patch\n*** Delete File: a.txt\n*** Add File: b.txt\n+x\n*** Add File: b.txt\n"
                             "*** End Patch") == ["a.txt", "b.txt"]
    assert codex.patch_files("") == []


def test_stop_and_session_end_print_nothing(agent_hook, conn, repo, monkeypatch):
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: 1)
    stop = {**_common(repo, "Stop"), "turn_id": "t1", "stop_hook_active": False, "last_assistant_message": "Done."}
    assert agent_hook("codex", "stop", stop) is None
    end = {"session_id": SID, "transcript_path": None, "cwd": str(repo), "hook_event_name": "SessionEnd",
           "reason": "other"}
    assert agent_hook("codex", "session-end", end) is None


def test_an_unknown_agent_does_nothing_and_prints_nothing(agent_hook, add, repo):
    add(*DECISION)
    assert agent_hook("cursor", "user-prompt-submit", {**_common(repo, "UserPromptSubmit"), "prompt": PROMPT}) is None


def test_rollout_lines_give_the_developer_and_the_assistant():
    def item(role, text, kind="input_text"):
        return {"timestamp": "t", "type": "response_item",
                "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}}

    assert codex.line_turn(item("user", "Use WAL, not DELETE.")) == ("developer", "Use WAL, not DELETE.")
    assert codex.line_turn(item("assistant", "Done.", "output_text")) == ("assistant", "Done.")
    assert codex.line_turn(item("developer", "Relevant project context (agentctx): ...")) is None  # ours, or rules
    assert codex.line_turn(item("user", "<environment_context>\n  <cwd>/r</cwd>")) is None
    call = {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "arguments": "{}"}}
    assert codex.is_line(call) and codex.line_turn(call) is None
    assert codex.line_cwd({"type": "session_meta", "payload": {"id": SID, "cwd": "/r"}}) == "/r"
    assert not codex.is_line({"type": "user", "message": {"content": "hi"}})  # a Claude Code line
