"""The pre-action hook's output as each agent reads it (SPEC §4.11; vendor-notes codex-cli.md fact 23, gemini-cli.md
fact 22): Codex cannot ask, so a guard that asks denies, saying so; Gemini's BeforeTool reads only a decision."""

from agentctx.agents import codex, gemini

ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "GUARD (asks the user) [x] T",
                              "permissionDecision": "ask", "permissionDecisionReason": "agentctx guard R"}}
CONTEXT = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "[x] T (id R)"}}


def test_codex_turns_ask_into_deny_and_keeps_context_only_output():
    out = codex.output("pre-tool-use", ASK)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "cannot ask" in out["permissionDecisionReason"]
    assert out["additionalContext"].startswith("GUARD (denied)")
    assert codex.output("pre-tool-use", CONTEXT) == CONTEXT


def test_codex_maps_apply_patch_before_the_call_too():
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch\n"
    data = codex.payload("pre-tool-use", {"tool_name": "apply_patch", "tool_input": {"command": patch}})
    assert data["tool_name"] == "Edit" and data["tool_input"] == {"file_paths": ["src/a.py"]}


def test_gemini_before_tool_prints_a_decision_only():
    assert gemini.output("pre-tool-use", CONTEXT) is None  # BeforeTool context is never read: AfterTool carries it
    out = gemini.output("pre-tool-use", ASK)
    assert out == {"decision": "ask", "reason": "agentctx guard R", "systemMessage": "agentctx guard R"}
    deny = {"hookSpecificOutput": {**ASK["hookSpecificOutput"], "permissionDecision": "deny"}}
    assert gemini.output("pre-tool-use", deny) == {"decision": "deny", "reason": "agentctx guard R"}
    data = gemini.payload("pre-tool-use", {"tool_name": "replace", "tool_input": {"file_path": "/r/a.py"}})
    assert data["tool_name"] == "Edit"
