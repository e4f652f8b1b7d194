"""agentctx end to end with the REAL Gemini CLI (pinned, from npm) against the local Gemini API stand-in: `agentctx
init --agent gemini` registers the hooks and the MCP server in ~/.gemini/settings.json, then, headless,
  A  asks about the store and has the (scripted) model create a branch with run_shell_command;
  B  has it run a command that fails.
The tests check what reached the model, what Gemini CLI said, and the store.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_e2e import DECISION, FAILING, agentctx, hooks_log, prepare, query, remember_decision
from claude_sandbox import wait_for
from gemini_sandbox import GeminiSandbox, Run, gemini_bin
from gemini_standin import (GeminiStandIn, ends_with_function_response, last_user_text, offers_tool, scripted_model,
                            tool_names, wants_json)

GEMINI, WHY_NOT = gemini_bin()
pytestmark = pytest.mark.skipif(GEMINI is None, reason=WHY_NOT)

PROMPT_A = "Why do we use WAL mode for the store? Then please create the branch feature/gemini-e2e"
RUN = "run the command: "
PROMPT_B = f"Please {RUN}{FAILING}"


def script(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The stand-in's model, plus "run the command: CMD" (a run_shell_command call of CMD)."""
    prompt = last_user_text(body)
    if (RUN in prompt and wants_json(body) is None and not ends_with_function_response(body)
            and offers_tool(body, "run_shell_command")):
        command = prompt.split(RUN, 1)[1].split("\n", 1)[0]
        return [{"type": "function_call", "name": "run_shell_command",
                 "args": {"command": command, "description": "Run it"}}]
    return scripted_model(body)


def _user_parts(body: dict[str, Any]) -> list[str]:
    last = [c for c in body["contents"] if c.get("role") == "user"][-1]
    return [p["text"] for p in last.get("parts") or [] if "text" in p]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = GeminiSandbox(tmp_path_factory.mktemp("gemini-agentctx"), str(GEMINI))
    prepare(box, str(GEMINI))
    box.configure(mcp=False)  # auth and quiet settings only: hooks and MCP server are init's
    w: dict[str, Any] = {"box": box, "init": agentctx(box, "init", "--agent", "gemini")}
    remember_decision(box)
    with GeminiStandIn(script) as api:
        w["A"] = box.run(PROMPT_A, api.base_url)
        w["A_turns"] = api.turn_bodies()
        n = len(w["A_turns"])
        w["B"] = box.run(PROMPT_B, api.base_url)
        w["B_turns"] = api.turn_bodies()[n:]
    sid = w["A"].session_id
    w["A_ended"] = wait_for(lambda: query(box, "SELECT ended_at FROM sessions WHERE session_id = ?", sid) not in (
        [], [(None,)]))
    return w


def test_init_registers_hooks_and_the_mcp_server(world):
    assert "Gemini CLI: registered hooks and MCP server `agentctx`" in world["init"]


def test_every_run_succeeds_and_no_hook_complains(world):
    for name in "AB":
        run: Run = world[name]
        assert run.returncode == 0, run.stderr
        assert run.result["status"] == "success"
        # a hook's stray output would be shown as a warning or a system message, a loud failure would block: the
        # only thing of ours on stderr is SessionStart's notice, which Gemini shows the user (headless: here)
        lines = [ln for ln in run.stderr.splitlines() if "hook" in ln.lower() or "agentctx" in ln.lower()]
        assert all(ln.startswith(("Hook system message: agentctx: ", "agentctx: ")) for ln in lines), run.stderr
        assert not any(w in run.stderr.lower() for w in ("fail", "denied", "blocked", "traceback")), run.stderr
    assert world["A"].answer == "Running it.Done: the command ran."
    assert hooks_log(world["box"]) == ""


def test_the_digest_and_the_prompts_records_reach_the_model(world):
    parts = _user_parts(world["A_turns"][0])
    (first,) = [p for p in parts if p.endswith(PROMPT_A)]
    assert first.startswith("<hook_context>Active decisions and conventions (agentctx):")
    assert f"- {DECISION}:" in first and "mcp_agentctx_ctx_search" in first  # the tool as Gemini names it
    (context,) = [p for p in parts if p.startswith("<hook_context>Relevant project context (agentctx project memory)")]
    assert f"[decision] {DECISION}" in context and context.endswith("</hook_context>")
    assert "hookSpecificOutput" not in "".join(parts)  # our JSON was read, not passed on as text


def test_the_mcp_server_init_registered_is_offered(world):
    assert {"mcp_agentctx_ctx_search", "mcp_agentctx_ctx_get", "mcp_agentctx_ctx_record"} <= set(
        tool_names(world["A_turns"][0]))


def test_a_shell_commands_outcome_is_captured(world):
    box: GeminiSandbox = world["box"]
    assert box.git("branch", "--show-current").strip() == "feature/gemini-e2e"
    assert query(box, "SELECT name FROM nodes WHERE kind = 'branch'") == [("feature/gemini-e2e",)]
    (stub,) = query(box, "SELECT title, body FROM records WHERE type = 'bugfix' AND superseded_at IS NULL")
    assert stub[0].startswith("Error observed: sh -c") and "error: the build broke" in stub[1]
    assert world["A_ended"], "SessionEnd never closed session A"
