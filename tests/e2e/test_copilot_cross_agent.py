"""One memory for Claude Code and Copilot CLI, end to end with both REAL CLIs (pinned, from npm) on ONE repository, each
against its local model-API stand-in: after `agentctx init --agent claude --agent copilot`,
  1. a Claude Code session records a decision (its model calls our MCP tool mcp__agentctx__ctx_record);
  2. a Copilot session asks about it: the prompt hook puts it in front of Copilot's model;
  3. a Copilot session records a decision (the same MCP tool, as Copilot names it: agentctx-ctx_record);
  4. a Claude Code session asks about it: it reaches Claude Code's model;
and each record says which agent's session it came from.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

import messages_standin as ms
import openai_standin as os_
from agent_e2e import agentctx, hooks_log, prepare, query
from claude_sandbox import Run as ClaudeRun
from claude_sandbox import Sandbox as ClaudeSandbox
from claude_sandbox import claude_bin
from copilot_sandbox import CopilotSandbox, copilot_bin

CLAUDE, NO_CLAUDE = claude_bin()
COPILOT, NO_COPILOT = copilot_bin()
pytestmark = pytest.mark.skipif(not (CLAUDE and COPILOT), reason=NO_CLAUDE or NO_COPILOT)

RECORD = "record the decision: "
D_CLAUDE = ("Use Redis streams for the job queue", "The job queue runs on Redis streams with consumer groups.")
D_COPILOT = ("Keep job payloads under 64 KB", "Job payloads stay under 64 KB; larger data goes to object storage.")
DECISIONS = {d[0]: d for d in (D_CLAUDE, D_COPILOT)}
ASK_CLAUDE_DECISION = "How does the job queue use Redis streams?"
ASK_COPILOT_DECISION = "What is our rule for job payloads under 64 KB?"
HEADER = "Relevant project context (agentctx project memory;"


def _wanted(prompt: str) -> dict[str, str] | None:
    if RECORD not in prompt:
        return None
    title, body = DECISIONS[prompt.split(RECORD, 1)[1].split("\n", 1)[0].split("<", 1)[0].strip().rstrip(".")]
    return {"type": "decision", "title": title, "body": body}


def claude_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: records through ctx_record (fetching its schema with ToolSearch first where MCP tools are
    deferred, as in test_cross_agent.py)."""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    args = _wanted(ms.text_of(users[0].get("content")) if users else "")
    done = json.dumps(body.get("messages"))
    if args and "toolu_rec1" not in done:
        if ms.offers_tool(body, "mcp__agentctx__ctx_record") or "toolu_search1" in done:
            return [{"type": "tool_use", "id": "toolu_rec1", "name": "mcp__agentctx__ctx_record", "input": args}]
        if ms.offers_tool(body, "ToolSearch"):
            return [{"type": "tool_use", "id": "toolu_search1", "name": "ToolSearch",
                     "input": {"query": "select:mcp__agentctx__ctx_record"}}]
    if ms.has_tool_result(ms.last_user_content(body)):
        return [{"type": "text", "text": "Done."}]
    return ms.scripted_model(body)


def copilot_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: the prompt (the last user message, without the hooks' <system_reminder>) asks to record."""
    users = os_.messages(body, "user")
    args = _wanted(users[-1].split("<system_reminder>", 1)[0] if users else "")
    called = any(str(i.get("type", "")).endswith("_call_output") for i in os_.input_items(body))
    if args and not called and os_.offers_tool(body, "agentctx-ctx_record"):
        return [{"type": "function_call", "name": "agentctx-ctx_record", "arguments": args}]
    return [{"type": "text", "text": "Done." if called else "OK."}]


class Box(CopilotSandbox):
    """One HOME and repository for both CLIs: Copilot's runs are CopilotSandbox's, Claude Code's borrowed."""

    def __init__(self, base: Any) -> None:
        super().__init__(base, str(COPILOT))
        self.claude = str(CLAUDE)
        for binary in (COPILOT, CLAUDE):
            prepare(self, str(binary))

    claude_env = ClaudeSandbox.claude_env

    def run_claude(self, prompt: str, base_url: str) -> ClaudeRun:
        done = subprocess.run([self.claude, "-p", prompt, "--output-format", "stream-json", "--verbose",
                               "--allowedTools", "Bash,mcp__agentctx__ctx_record"], cwd=self.repo,
                              env=self.claude_env(base_url), capture_output=True, text=True, timeout=90)
        return ClaudeRun(done.stdout, done.returncode, done.stderr)


def _system_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] if isinstance(m["content"], str) else ms.text_of(m["content"])
                     for m in body["messages"] if m.get("role") == "system")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Box(tmp_path_factory.mktemp("copilot-cross-agent"))
    w: dict[str, Any] = {"box": box}
    with ms.MessagesStandIn(claude_model) as claude_api, os_.ResponsesStandIn(copilot_model) as copilot_api:
        box.configure(copilot_api.base_url)
        w["init"] = agentctx(box, "init", "--agent", "claude", "--agent", "copilot")
        agentctx(box, "config", "set", "llm", "false")
        w["claude_rec"] = box.run_claude(f"Please {RECORD}{D_CLAUDE[0]}", claude_api.base_url)
        w["copilot_ask"] = box.run(ASK_CLAUDE_DECISION)
        w["copilot_ask_body"] = copilot_api.response_bodies()[-1]
        w["copilot_rec"] = box.run(f"Please {RECORD}{D_COPILOT[0]}")
        n = len(claude_api.message_bodies())
        w["claude_ask"] = box.run_claude(ASK_COPILOT_DECISION, claude_api.base_url)
        w["claude_ask_bodies"] = claude_api.message_bodies()[n:]
    return w


def test_both_agents_were_wired_and_every_run_succeeded(world):
    assert "Copilot CLI: registered 8 hooks in" in world["init"] and "registered hooks in" in world["init"]
    for name in ("claude_rec", "copilot_ask", "copilot_rec", "claude_ask"):
        assert world[name].returncode == 0, (name, world[name].stderr[-2000:])
    assert hooks_log(world["box"]) == ""


def test_a_decision_recorded_by_claude_code_reaches_copilot(world):
    ((rid, session),) = query(world["box"], "SELECT id, session_id FROM records WHERE title = ?", D_CLAUDE[0])
    assert session == world["claude_rec"].session_id
    prompt = os_.messages(world["copilot_ask_body"], "user")[-1]
    assert ASK_CLAUDE_DECISION in prompt and HEADER in prompt and f"[decision] {D_CLAUDE[0]} (id {rid})" in prompt


def test_a_decision_recorded_by_copilot_reaches_claude_code(world):
    injected = [_system_text(b) for b in world["claude_ask_bodies"]]
    assert injected and all(f"[decision] {D_COPILOT[0]}" in t for t in injected)


def test_each_record_says_which_agents_session_it_came_from(world):
    box = world["box"]
    for (title, _), agent in ((D_CLAUDE, "claude"), (D_COPILOT, "copilot")):
        ((rid,),) = query(box, "SELECT id FROM records WHERE title = ?", title)
        assert json.loads(agentctx(box, "show", rid, "--json"))["agent"] == agent, title
    assert {a for (a,) in query(box, "SELECT DISTINCT agent FROM sessions")} == {"claude", "copilot"}
    assert len({p for (p,) in query(box, "SELECT DISTINCT project_id FROM sessions")}) == 1
