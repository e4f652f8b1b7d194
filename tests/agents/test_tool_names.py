"""Each agent's context names agentctx's MCP tools as that agent's model can reach them, and says nothing of tools
it cannot (issue 34, item 27; vendor-notes/codex-cli.md fact 22, gemini-cli.md fact 6, observed with the real
CLIs against the stand-ins)."""

from __future__ import annotations

import pytest

from agentctx.agents import codex, gemini
from agentctx.base.project import detect
from agentctx.hooks import prompt
from agentctx.memory import consolidate, digest

DECISION = ("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
PROMPT = "sqlite storage decision: WAL and busy timeout"
EVENTS = {"codex": ("SessionStart", "UserPromptSubmit"), "gemini": ("SessionStart", "BeforeAgent")}


@pytest.mark.parametrize("module", [codex, gemini])
def test_the_adapters_know_the_sentences_the_context_is_written_with(module):
    assert module.CLAUDE_TOOLS == digest.MCP_TOOLS and module.CLAUDE_HEADER == prompt.HEADER
    assert digest._left_out_line(2).endswith(gemini.CLAUDE_MORE)  # what a cut section says


def _contexts(agent_hook, add, repo, agent):
    add(*DECISION)
    consolidate.run(detect(repo))
    start, ask = EVENTS[agent]
    common = {"session_id": "s-1", "transcript_path": "", "cwd": str(repo)}
    first = agent_hook(agent, "session-start", {**common, "hook_event_name": start, "source": "startup"})
    # Another session's prompt: the record reaches a session once, and this one's digest carried it already.
    second = agent_hook(agent, "user-prompt-submit", {**common, "session_id": "s-2", "hook_event_name": ask,
                                                      "prompt": PROMPT})
    return first["hookSpecificOutput"]["additionalContext"], second["hookSpecificOutput"]["additionalContext"]


def test_codex_is_told_the_namespace_and_the_bare_names_and_no_claude_code_tool(agent_hook, add, repo):
    for text in _contexts(agent_hook, add, repo, "codex"):
        assert "ToolSearch" not in text and "mcp__agentctx__ctx_" not in text
        assert "mcp__agentctx" in text and "ctx_search" in text


def test_gemini_is_told_of_the_tools_only_as_a_possibility(agent_hook, add, repo):
    start, ask = _contexts(agent_hook, add, repo, "gemini")
    assert "ToolSearch" not in start + ask and "mcp__agentctx" not in start + ask
    assert "when agentctx's tools are among yours, mcp_agentctx_ctx_search(query)" in start
    assert "ctx_search" not in ask and "Storage decision" in ask  # a plain `gemini -p` has no such tool


def test_claude_code_keeps_its_names(hook, add, repo):
    add(*DECISION)
    consolidate.run(detect(repo))
    text = hook("session-start", {"session_id": "s-1", "cwd": str(repo), "source": "startup"})[
        "hookSpecificOutput"]["additionalContext"]
    assert digest.MCP_TOOLS in text
