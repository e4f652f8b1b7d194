"""agentctx end to end with the REAL GitHub Copilot CLI (pinned, from npm), offline against the local Responses API
stand-in: `agentctx init --agent copilot` registers the hooks and the MCP server, then
  A  asks about the store and has the (scripted) model create a branch with a shell call;
  B  asks something unrelated;
  C  has the model search the store through the MCP tool.
The tests check what reached the model, what the CLI logged, and the store.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import DECISION, agentctx, hooks_log, prepare, query, remember_decision
from claude_sandbox import wait_for
from copilot_sandbox import CopilotSandbox, Run, copilot_bin
from openai_standin import ResponsesStandIn, ends_with_tool_output, input_items, messages, offers_tool, scripted_model

COPILOT, WHY_NOT = copilot_bin()
pytestmark = pytest.mark.skipif(COPILOT is None, reason=WHY_NOT)

PROMPT_A = "Why do we use WAL mode for the store? Then please create the branch feature/copilot-e2e"
PROMPT_B = "What is the capital of France?"
PROMPT_C = "Search the project memory for SQLite WAL"
HEADER = "Relevant project context (agentctx project memory;"


def script(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: Copilot's shell tool is `bash` ({"command"}), our MCP tools `agentctx-<tool>`."""
    if any(str(i.get("type", "")).endswith("_call_output") for i in input_items(body)):
        return [{"type": "text", "text": "Done."}]
    users = messages(body, "user")
    prompt = users[-1].split("<system_reminder>", 1)[0] if users else ""  # the prompt, not the hooks' context
    if "create the branch feature/copilot-e2e" in prompt and offers_tool(body, "bash"):
        return [{"type": "function_call", "name": "bash",
                 "arguments": {"command": "git checkout -b feature/copilot-e2e", "description": "branch"}}]
    if PROMPT_C in prompt and offers_tool(body, "agentctx-ctx_search"):
        return [{"type": "function_call", "name": "agentctx-ctx_search", "arguments": {"query": "SQLite WAL"}}]
    return scripted_model(body) if not ends_with_tool_output(body) else [{"type": "text", "text": "OK."}]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CopilotSandbox(tmp_path_factory.mktemp("copilot-agentctx"), str(COPILOT))
    prepare(box, str(COPILOT))
    w: dict[str, Any] = {"box": box}
    with ResponsesStandIn(script) as api:
        box.configure(api.base_url)  # the provider only: hooks and MCP server are init's
        w["init"] = agentctx(box, "init", "--agent", "copilot")
        remember_decision(box)
        for name, prompt in (("A", PROMPT_A), ("B", PROMPT_B), ("C", PROMPT_C)):
            n = len(api.response_bodies())
            w[name] = box.run(prompt)
            w[f"{name}_bodies"] = api.response_bodies()[n:]
    sid = w["A"].session_id
    w["A_ended"] = wait_for(lambda: query(box, "SELECT ended_at FROM sessions WHERE session_id = ?", sid) not in (
        [], [(None,)]))
    return w


def test_init_registers_the_hooks_and_the_mcp_server(world):
    assert "Copilot CLI: registered 8 hooks in" in world["init"]
    assert "Copilot CLI: registered MCP server `agentctx` in" in world["init"]


def test_every_run_succeeds_and_no_hook_fails(world):
    for name in "ABC":
        run: Run = world[name]
        assert run.returncode == 0, run.stderr
        assert not [e for e in run.of("session.error")], run.of("session.error")
    log = world["box"].session_log(world["A"].session_id)
    ends = [e["data"] for e in log if e["type"] == "hook.end"]
    assert ends and all(e.get("success") is True for e in ends), [e for e in ends if not e.get("success")]
    assert hooks_log(world["box"]) == ""


def test_the_digest_reaches_the_first_request_and_the_prompts_record_follows_the_prompt(world):
    first = world["A_bodies"][0]
    users = messages(first, "user")
    # sessionStart's context is a user message of its own before the prompt (fact 7)
    (digest,) = [m for m in users if m.startswith("Active decisions and conventions (agentctx):")]
    assert f"- {DECISION}:" in digest and "agentctx-ctx_search(query)" in digest
    assert "mcp__agentctx__" not in digest and "ToolSearch" not in digest
    assert users.index(digest) < len(users) - 1
    # userPromptSubmitted's context goes into the prompt's own message, as a <system_reminder> after it
    prompt = users[-1]
    assert PROMPT_A in prompt and "<system_reminder>" in prompt
    context = prompt.split("<system_reminder>", 1)[1]
    assert context.lstrip().startswith(HEADER) and f"[decision] {DECISION}" in context
    assert "hookSpecificOutput" not in json.dumps(first["input"])


def test_an_unrelated_prompt_gets_nothing(world):
    prompt = messages(world["B_bodies"][0], "user")[-1]
    assert PROMPT_B in prompt and HEADER not in prompt and "<system_reminder>" not in prompt


def test_the_mcp_tools_are_offered_and_answer(world):
    names = {t.get("name") for t in world["A_bodies"][0]["tools"]}
    assert {"agentctx-ctx_search", "agentctx-ctx_get", "agentctx-ctx_record", "agentctx-ctx_related"} <= names
    (output,) = [i for i in input_items(world["C_bodies"][-1]) if i.get("type") == "function_call_output"]
    assert DECISION in json.dumps(output)


def test_a_shell_commands_outcome_is_captured_and_the_session_ends(world):
    box: CopilotSandbox = world["box"]
    assert box.git("branch", "--show-current").strip() == "feature/copilot-e2e"
    assert query(box, "SELECT name FROM nodes WHERE kind = 'branch'") == [("feature/copilot-e2e",)]
    assert world["A_ended"], "sessionEnd never closed session A"
    assert {a for (a,) in query(box, "SELECT DISTINCT agent FROM sessions")} == {"copilot"}
