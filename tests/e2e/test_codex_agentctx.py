"""agentctx end to end with the REAL Codex CLI (pinned, from npm) against the local Responses API stand-in: `agentctx
init --agent codex` registers and trusts the hooks (no --dangerously-bypass-hook-trust below), then
  A  asks about the store and has the (scripted) model create a branch with a shell call;
  B  has it run a command that fails.
The tests check what reached the model, what Codex said about the hooks, and the store.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_e2e import DECISION, FAILING, agentctx, hooks_log, prepare, query, remember_decision
from claude_sandbox import wait_for
from codex_sandbox import CodexSandbox, Run, codex_bin
from openai_standin import ResponsesStandIn, last_user_text, messages, offers_tool, scripted_model

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

PROMPT_A = "Why do we use WAL mode for the store? Then please create the branch feature/codex-e2e"
RUN = "run the command: "
PROMPT_B = f"Please {RUN}{FAILING}"


def script(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The stand-in's model, plus "run the command: CMD" (a shell call of CMD)."""
    prompt = last_user_text(body)
    if RUN in prompt and offers_tool(body, "exec_command") and not body["input"][-1].get("type", "").endswith(
            "_call_output"):
        return [{"type": "function_call", "name": "exec_command", "arguments": {"cmd": prompt.split(RUN, 1)[1]}}]
    return scripted_model(body)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-agentctx"), str(CODEX))
    prepare(box, str(CODEX))
    w: dict[str, Any] = {"box": box}
    with ResponsesStandIn(script) as api:
        box.configure(api.base_url, mcp=False)  # the provider only: hooks and MCP server are init's
        w["init"] = agentctx(box, "init", "--agent", "codex")
        remember_decision(box)
        w["A"] = box.run(PROMPT_A, trust_hooks=False)
        w["A_bodies"] = api.response_bodies()
        n = len(w["A_bodies"])
        w["B"] = box.run(PROMPT_B, trust_hooks=False)
        w["B_bodies"] = api.response_bodies()[n:]
    sid = w["A"].thread_id
    w["A_ended"] = wait_for(lambda: query(box, "SELECT ended_at FROM sessions WHERE session_id = ?", sid) not in (
        [], [(None,)]))
    return w


def test_init_registers_and_trusts_the_hooks(world):
    assert "Codex CLI: trusted our 7 Codex hooks" in world["init"]
    assert "Codex CLI: registered MCP server `agentctx`" in world["init"]


def test_every_run_succeeds_and_no_hook_fails(world):
    for name in "AB":
        run: Run = world[name]
        assert run.returncode == 0, run.stderr
        assert "Failed" not in run.stderr and "hook" not in run.stderr.lower(), run.stderr
        # warnings come as `error` items (the stand-in's model name is not in Codex's catalog): none about a hook
        assert not [e for e in run.items("error") if "hook" in e["message"].lower()], run.items("error")
    assert hooks_log(world["box"]) == ""


def test_the_digest_and_the_prompts_records_reach_the_model(world):
    first = world["A_bodies"][0]
    developer = messages(first, "developer")
    (digest,) = [m for m in developer if m.startswith("Active decisions and conventions (agentctx):")]
    # the tools as Codex's model reaches them: the namespace and the bare names, nothing of Claude Code's ToolSearch
    assert f"- {DECISION}:" in digest and "namespace mcp__agentctx" in digest and "ctx_search(query)" in digest
    assert "ToolSearch" not in digest
    (context,) = [m for m in developer if m.startswith("Relevant project context (agentctx project memory;")]
    assert f"[decision] {DECISION}" in context
    # each is exactly the JSON's additionalContext: nothing else was printed (else Codex would pass the raw text on)
    assert not any("hookSpecificOutput" in m or "systemMessage" in m for m in developer)
    texts = [(i.get("role"), (i.get("content") or [{}])[0].get("text")) for i in first["input"]]
    assert texts.index(("developer", digest)) < texts.index(("user", PROMPT_A)) < texts.index(("developer", context))


def test_the_mcp_server_init_registered_is_offered(world):
    tools = world["A_bodies"][0]["tools"]
    (namespace,) = [t for t in tools if t.get("type") == "namespace" and t.get("name") == "mcp__agentctx"]
    assert {"ctx_search", "ctx_get", "ctx_record"} <= {t["name"] for t in namespace["tools"]}


def test_a_shell_commands_outcome_is_captured(world):
    box: CodexSandbox = world["box"]
    assert box.git("branch", "--show-current").strip() == "feature/codex-e2e"
    assert query(box, "SELECT name FROM nodes WHERE kind = 'branch'") == [("feature/codex-e2e",)]
    (stub,) = query(box, "SELECT title, body FROM records WHERE type = 'bugfix' AND superseded_at IS NULL")
    assert stub[0].startswith("Error observed: sh -c") and "error: the build broke" in stub[1]
    assert world["A_ended"], "SessionEnd never closed session A"
