"""One memory for every agent, end to end with the three REAL CLIs (pinned, from npm) on ONE repository, each against
its local model-API stand-in: after `agentctx init --agent all`,
  1. a Claude Code session records a decision (its model calls our MCP tool ctx_record);
  2. a Codex session and a Gemini session ask about it: the prompt hook puts it in front of their models;
  3. a Codex session and a Gemini session record a decision each (the same MCP tool, as each names it);
  4. a Claude Code session asks about both: both reach its model;
and each record says which agent's session it came from.
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

import gemini_standin as gs
import messages_standin as ms
import openai_standin as os_
from agent_e2e import agentctx, hooks_log, prepare, query
from claude_sandbox import Run as ClaudeRun
from claude_sandbox import Sandbox as ClaudeSandbox
from claude_sandbox import claude_bin
from codex_sandbox import CodexSandbox, codex_bin
from gemini_sandbox import GeminiSandbox, gemini_bin

CLAUDE, NO_CLAUDE = claude_bin()
CODEX, NO_CODEX = codex_bin()
GEMINI, NO_GEMINI = gemini_bin()
pytestmark = pytest.mark.skipif(not (CLAUDE and CODEX and GEMINI), reason=NO_CLAUDE or NO_CODEX or NO_GEMINI)

RECORD = "record the decision: "
D_CLAUDE = ("Use Redis streams for the job queue", "The job queue runs on Redis streams with consumer groups.")
D_CODEX = ("Keep job payloads under 64 KB", "Job payloads stay under 64 KB; larger data goes to object storage.")
D_GEMINI = ("Retry failed jobs three times with backoff", "A failed job is retried three times, backoff doubling.")
DECISIONS = {d[0]: d for d in (D_CLAUDE, D_CODEX, D_GEMINI)}
ASK_CLAUDE_DECISION = "How does the job queue use Redis streams?"
ASK_BOTH = "What are our rules for job payloads under 64 KB, and how many times do we retry failed jobs with backoff?"


def _wanted(prompt: str) -> dict[str, str] | None:
    """The decision a prompt asks the model to record ("record the decision: TITLE")."""
    if RECORD not in prompt:
        return None
    title, body = DECISIONS[prompt.split(RECORD, 1)[1].split("\n", 1)[0].rstrip(".")]
    return {"type": "decision", "title": title, "body": body}


def _first_prompt(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return ms.text_of(users[0].get("content")) if users else ""


def claude_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Records through ctx_record. A client that defers MCP tools (Claude Code 2.1.332, vendor-notes fact 25) offers
    only ToolSearch: the tool's schema is fetched first, then it is called."""
    content = ms.last_user_content(body)
    args = _wanted(_first_prompt(body))
    done = json.dumps(body.get("messages"))
    if args and "toolu_rec1" not in done:
        if ms.offers_tool(body, "mcp__agentctx__ctx_record") or "toolu_search1" in done:
            return [{"type": "tool_use", "id": "toolu_rec1", "name": "mcp__agentctx__ctx_record", "input": args}]
        if ms.offers_tool(body, "ToolSearch"):
            return [{"type": "tool_use", "id": "toolu_search1", "name": "ToolSearch",
                     "input": {"query": "select:mcp__agentctx__ctx_record"}}]
    if ms.has_tool_result(content):
        return [{"type": "text", "text": "Done."}]
    return ms.scripted_model(body)


def codex_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    args = _wanted(os_.last_user_text(body))
    if args and not os_.ends_with_tool_output(body) and os_.offers_tool(body, "ctx_record"):
        return [{"type": "function_call", "name": "ctx_record", "namespace": os_.tool_namespace(body, "ctx_record"),
                 "arguments": args}]
    return os_.scripted_model(body)


def gemini_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    # the prompt without the hooks' context (the digest, prepended to it, holds the last session's requests)
    args = _wanted(re.sub(r"<hook_context>.*?</hook_context>", "", gs.last_user_text(body), flags=re.S))
    if (args and gs.wants_json(body) is None and not gs.ends_with_function_response(body)
            and gs.offers_tool(body, "mcp_agentctx_ctx_record")):
        return [{"type": "function_call", "name": "mcp_agentctx_ctx_record", "args": args}]
    return gs.scripted_model(body)


class Box(CodexSandbox):
    """One HOME and repository for the three CLIs: Codex's runs are CodexSandbox's, the others borrowed."""

    def __init__(self, base: Any) -> None:
        super().__init__(base, str(CODEX))
        self.gemini, self.claude = str(GEMINI), str(CLAUDE)
        for binary in (CODEX, GEMINI, CLAUDE):
            prepare(self, str(binary))
        (self.home / ".gemini").mkdir(exist_ok=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(
            {k: v for k, v in __import__("gemini_sandbox").settings_json(mcp=False).items()}), encoding="utf-8")

    claude_env = ClaudeSandbox.claude_env

    def run_gemini(self, prompt: str, base_url: str) -> Any:
        return GeminiSandbox.run(self, prompt, base_url)  # type: ignore[arg-type]

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
    box = Box(tmp_path_factory.mktemp("cross-agent"))
    w: dict[str, Any] = {"box": box}
    with ms.MessagesStandIn(claude_model) as claude_api, os_.ResponsesStandIn(codex_model) as codex_api, \
            gs.GeminiStandIn(gemini_model) as gemini_api:
        box.configure(codex_api.base_url, mcp=False)
        w["init"] = agentctx(box, "init", "--agent", "all")
        # Codex starts an MCP server with HOME, LANG, PATH and what env_vars names: PYTHONPATH too, so the server
        # imports this checkout as the hooks do (an installed agentctx elsewhere would answer otherwise)
        config = box.codex_home / "config.toml"
        config.write_text(config.read_text().replace('env_vars = ["AGENTCTX_HOME"]',
                                                     'env_vars = ["AGENTCTX_HOME", "PYTHONPATH"]'))
        agentctx(box, "config", "set", "llm", "false")
        w["claude_rec"] = box.run_claude(f"Please {RECORD}{D_CLAUDE[0]}", claude_api.base_url)
        w["codex_ask"] = box.run(ASK_CLAUDE_DECISION, trust_hooks=False)
        w["codex_ask_body"] = codex_api.response_bodies()[-1]
        w["gemini_ask"] = box.run_gemini(ASK_CLAUDE_DECISION, gemini_api.base_url)
        w["gemini_ask_body"] = gemini_api.turn_bodies()[-1]
        w["codex_rec"] = box.run(f"Please {RECORD}{D_CODEX[0]}", trust_hooks=False)
        w["gemini_rec"] = box.run_gemini(f"Please {RECORD}{D_GEMINI[0]}", gemini_api.base_url)
        n = len(claude_api.message_bodies())
        w["claude_ask"] = box.run_claude(ASK_BOTH, claude_api.base_url)
        w["claude_ask_bodies"] = claude_api.message_bodies()[n:]
    return w


def test_every_agent_was_wired_and_every_run_succeeded(world):
    init = world["init"]
    assert "registered hooks in" in init and "Codex CLI: trusted our 7 Codex hooks" in init
    assert "Gemini CLI: registered hooks and MCP server" in init
    for name in ("claude_rec", "codex_ask", "gemini_ask", "codex_rec", "gemini_rec", "claude_ask"):
        assert world[name].returncode == 0, (name, world[name].stderr[-2000:])
    assert hooks_log(world["box"]) == ""


def test_a_decision_recorded_by_claude_code_reaches_codex_and_gemini(world):
    box = world["box"]
    ((rid, session),) = query(box, "SELECT id, session_id FROM records WHERE title = ?", D_CLAUDE[0])
    assert session == world["claude_rec"].session_id
    codex_context = [m for m in os_.messages(world["codex_ask_body"], "developer")
                     if m.startswith("Relevant project context (agentctx project memory;")]
    assert codex_context and f"[decision] {D_CLAUDE[0]} (id {rid})" in codex_context[0]
    parts = [p["text"] for c in world["gemini_ask_body"]["contents"] if c.get("role") == "user"
             for p in c.get("parts") or [] if "text" in p]
    assert any(p.startswith("<hook_context>Relevant project context (agentctx project memory") and D_CLAUDE[0] in p
               for p in parts), parts


def test_decisions_recorded_by_codex_and_gemini_reach_claude_code(world):
    injected = [_system_text(b) for b in world["claude_ask_bodies"]]
    assert injected and all(f"[decision] {D_CODEX[0]}" in t and f"[decision] {D_GEMINI[0]}" in t for t in injected)


def test_each_record_says_which_agents_session_it_came_from(world):
    box = world["box"]
    for (title, _), agent in ((D_CLAUDE, "claude"), (D_CODEX, "codex"), (D_GEMINI, "gemini")):
        ((rid,),) = query(box, "SELECT id FROM records WHERE title = ?", title)
        shown = json.loads(agentctx(box, "show", rid, "--json"))
        assert shown["agent"] == agent, (title, shown["session_id"])
    assert {a for (a,) in query(box, "SELECT DISTINCT agent FROM sessions")} == {"claude", "codex", "gemini"}
    # one project: the same repository whichever agent worked in it
    assert len({p for (p,) in query(box, "SELECT DISTINCT project_id FROM sessions")}) == 1
