"""The Copilot CLI adapter on the neutral hooks, fed the payloads Copilot CLI 1.0.102 sends (vendor-notes/copilot-cli.md
facts 5-11 and 14: recorded with the real CLI, tests/e2e/test_copilot_smoke.py checks them again)."""

from __future__ import annotations

import json

from agentctx.agents import copilot, line_adapter
from agentctx.base.project import detect
from agentctx.memory import capture, consolidate
from agentctx.store import records

SID = "0beb3b02-5d6d-4203-85ca-b9f5fb4a3e2b"
DECISION = ("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
PROMPT = "sqlite storage decision: WAL and busy timeout"
GUARDED = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                  "additionalContext": "GUARD [x] T (mcp__agentctx__ctx_get)",
                                  "permissionDecision": "deny", "permissionDecisionReason": "agentctx guard R"}}


def _common(repo):
    return {"sessionId": SID, "timestamp": 1796684110059, "cwd": str(repo)}


def _post(repo, tool, args, text, result="success"):
    return {**_common(repo), "toolName": tool, "toolArgs": args,
            "toolResult": {"resultType": result, "textResultForLlm": text}}


def test_session_start_gives_the_digest_as_top_level_context(agent_hook, add, repo):
    add(*DECISION)
    consolidate.run(detect(repo))
    out = agent_hook("copilot", "session-start", {**_common(repo), "source": "new", "initialPrompt": "hi"})
    assert set(out) == {"additionalContext"}  # what Copilot reads (fact 7); no hookSpecificOutput, no systemMessage
    assert "Storage decision" in out["additionalContext"]
    assert "agentctx-ctx_search" in out["additionalContext"] and "mcp__agentctx__" not in out["additionalContext"]


def test_a_related_prompt_gets_its_record_and_an_unrelated_one_nothing(agent_hook, add, repo):
    add(*DECISION)
    out = agent_hook("copilot", "user-prompt-submit", {**_common(repo), "prompt": PROMPT})
    assert "[decision] Storage decision" in out["additionalContext"]
    assert agent_hook("copilot", "user-prompt-submit", {**_common(repo), "prompt": "What is the capital of France?"}) \
        is None


def test_a_guard_is_a_top_level_decision_with_its_reason():
    out = copilot.output("pre-tool-use", GUARDED)
    assert out == {"permissionDecision": "deny", "permissionDecisionReason": "agentctx guard R",
                   "additionalContext": "GUARD [x] T (agentctx-ctx_get)"}
    ask = {"hookSpecificOutput": {**GUARDED["hookSpecificOutput"], "permissionDecision": "ask"}}
    assert copilot.output("pre-tool-use", ask)["permissionDecision"] == "ask"  # -p denies it with the reason (fact 8)
    assert copilot.output("pre-tool-use", None) is None
    assert copilot.output("session-start", {"systemMessage": "agentctx is off here"}) is None


def test_tools_and_their_arguments_are_the_neutral_ones():
    def pre(tool, args):
        data = copilot.payload("pre-tool-use", {"toolName": tool, "toolArgs": args, "sessionId": SID})
        return data["tool_name"], data["tool_input"]
    assert pre("bash", {"command": "git push --force", "description": "push"}) == (
        "Bash", {"command": "git push --force", "description": "push"})
    assert pre("view", {"path": "/r/a.py"}) == ("Read", {"file_path": "/r/a.py"})
    assert pre("create", {"path": "/r/b.py", "file_text": "x"}) == ("Write", {"file_path": "/r/b.py", "content": "x"})
    assert pre("edit", {"path": "/r/a.py", "old_str": "a", "new_str": "b"}) == (
        "Edit", {"file_path": "/r/a.py", "old_string": "a", "new_string": "b"})
    patch = "*** Begin Patch\n*** Add File: src/payments/a.py\n+x = 1\n*** End Patch\n"
    assert pre("apply_patch", patch) == ("Edit", {"file_paths": ["src/payments/a.py"]})  # its argument is the text
    assert pre("agentctx-ctx_get", {"ids": ["R"]}) == ("mcp__agentctx__ctx_get", {"ids": ["R"]})
    data = copilot.payload("stop", {**_common("/r"), "transcriptPath": "/h/s/events.jsonl", "stopReason": "end_turn",
                                    "stop_hook_active": False})
    assert data["transcript_path"] == "/h/s/events.jsonl" and data["session_id"] == SID


def test_the_transcript_path_is_known_at_every_event(monkeypatch, tmp_path):
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "cp"))
    data = copilot.payload("session-end", {**_common("/r"), "reason": "complete"})
    assert data["transcript_path"] == str(tmp_path / "cp" / "session-state" / SID / "events.jsonl")
    assert data["reason"] == "complete"
    assert copilot.payload("session-start", {**_common("/r"), "source": "new"})["source"] == "startup"
    assert copilot.payload("stop", {"sessionId": "../../etc"})["transcript_path"] == ""  # not a path of its own


def test_a_shell_command_is_captured_with_the_exit_code_of_its_last_line(agent_hook, conn, repo):
    ok = _post(repo, "bash", {"command": "git checkout -b feature/copilot"},
               "Switched to a new branch 'feature/copilot'\n<shellId: 0 completed with exit code 0>")
    assert agent_hook("copilot", "post-tool-use", ok) is None
    assert [tuple(r) for r in conn.execute("SELECT name FROM nodes WHERE kind = 'branch'")] == [("feature/copilot",)]
    failed = _post(repo, "bash", {"command": "python -m pytest -q"},
                   "FAILED tests/test_api.py::test_retry - assert 1 == 2\n1 failed in 0.1s\n"
                   "<shellId: 1 completed with exit code 1>")
    agent_hook("copilot", "post-tool-use", failed)
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.title == "Test failure: tests/test_api.py::test_retry" and "Command: python -m pytest -q" in stub.body
    assert [e["kind"] for e in capture.read_log(SID)] == ["branch", "test"]


def test_shell_exit_reads_only_the_closing_line():
    assert copilot.shell_exit("out\n<shellId: 3 completed with exit code 2>\n") == ("out", 2)
    assert copilot.shell_exit("<shellId: 0 completed with exit code 0>") == ("", 0)
    assert copilot.shell_exit("still running") == ("still running", None)
    data = copilot.payload("post-tool-use", {"toolName": "bash", "toolArgs": {"command": "sleep 9 &"},
                                             "toolResult": {"resultType": "success", "textResultForLlm": "started"}})
    assert data["exit_unknown"] is True and "error" not in data


def test_edits_and_patches_are_file_edits_and_a_failed_edit_is_not(agent_hook, conn, repo):
    agent_hook("copilot", "post-tool-use", _post(repo, "create", {"path": str(repo / "a.py"), "file_text": "x = 1\n"},
                                                 f"Created file {repo / 'a.py'} with 6 characters"))
    agent_hook("copilot", "post-tool-use", _post(repo, "apply_patch", "*** Begin Patch\n*** Update File: b.py\n@@\n-a\n"
                                                 "+b\n*** End Patch\n", "Modified 1 file(s)"))
    failure = {**_common(repo), "toolName": "edit", "toolArgs": {"path": str(repo / "c.py"), "old_str": "NOPE",
                                                                  "new_str": "x"}, "error": "No match found"}
    assert agent_hook("copilot", "post-tool-use-failure", failure) is None
    assert {n for (n,) in conn.execute("SELECT name FROM nodes WHERE kind = 'file'")} == {str(repo / "a.py"),
                                                                                          str(repo / "b.py")}


def test_session_log_lines_give_the_developer_and_the_model():
    start = {"type": "session.start", "data": {"sessionId": SID, "context": {"cwd": "/r", "gitRoot": "/r"}},
             "id": "e1", "timestamp": "t", "parentId": None}
    user = {"type": "user.message", "data": {"content": "Use WAL, not DELETE.", "transformedContent":
            "<current_datetime>x</current_datetime>\n\nUse WAL, not DELETE.\n\n<system_reminder>\nctx\n</system_reminder>"},
            "id": "e2", "timestamp": "t", "parentId": "e1"}
    model = {"type": "assistant.message", "data": {"content": "Done.", "toolRequests": []}, "id": "e3", "timestamp": "t"}
    hook = {"type": "hook.end", "data": {"hookType": "sessionStart", "output": {"additionalContext": "digest"}}, "id": "e4"}
    assert all(line_adapter(line) is copilot for line in (start, user, model, hook))
    assert copilot.line_cwd(start) == "/r" and copilot.line_turn(start) is None
    assert copilot.line_turn(user) == ("developer", "Use WAL, not DELETE.")
    assert copilot.line_turn(model) == ("assistant", "Done.") and copilot.line_turn(hook) is None
    assert line_adapter({"type": "user", "message": {"content": "hi"}}) is None  # a Claude Code line


def test_copilot_running_a_projects_claude_code_hooks_stands_aside_when_its_own_are_registered(
        agent_hook, hook, add, repo, monkeypatch, isolated_home):
    """In a trusted folder Copilot also runs .claude/settings.json hooks, in Claude Code's shape, without
    `transcript_path` and with COPILOT_CLI=1 (fact 4): ours would run twice."""
    add(*DECISION)
    claude_shaped = {"hook_event_name": "UserPromptSubmit", "session_id": SID, "timestamp": "2026-12-07T23:08:02.513Z",
                     "cwd": str(repo), "prompt": PROMPT}
    monkeypatch.setenv("COPILOT_CLI", "1")
    assert "Storage decision" in json.dumps(hook("user-prompt-submit", claude_shaped))  # Copilot not wired: served
    (isolated_home / ".copilot" / "hooks").mkdir(parents=True)
    (isolated_home / ".copilot" / "hooks" / "agentctx.json").write_text("{}")
    assert hook("user-prompt-submit", {**claude_shaped, "session_id": SID + "x"}) is None
    # Claude Code's own payload (it always has transcript_path) is served, COPILOT_CLI inherited or not
    assert hook("user-prompt-submit", {**claude_shaped, "session_id": SID + "y", "transcript_path": "/t.jsonl"})


def test_payloads_of_the_wrong_shape_read_as_empty_never_raise():
    odd: list[object] = [None, 1, [], {}, "x", ["a"], {"k": [1]}]
    for event in ("session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "post-tool-use-failure",
                  "stop", "session-end", "pre-compact"):
        for value in odd:
            data = {k: value for k in ("sessionId", "cwd", "source", "prompt", "toolName", "toolArgs", "toolResult",
                                       "error", "transcriptPath", "reason", "trigger")}
            out = copilot.payload(event, data)
            assert isinstance(out, dict) and isinstance(out["tool_name"] if "tool_name" in out else "", str)
    for out in ({"hookSpecificOutput": None}, {"hookSpecificOutput": {"additionalContext": 3}}, {}):
        assert copilot.output("pre-tool-use", out) is None
