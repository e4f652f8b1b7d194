"""End to end: extraction through the user's own Claude Code CLI, with the REAL CLI (pinned, from npm), no API key in
agentctx's config and (in the core suites) no `anthropic` package, against a local Messages API stand-in whose
model is HAND-WRITTEN: it answers the extraction request through Claude Code's `StructuredOutput` tool.

A session in which the developer states a decision in their own words (and pastes a secret) → Stop → agentctx
spawns `agentctx extract`, which runs `claude -p` → the stand-in sees our redacted window → a grounded record lands
in the store → the next session's SessionStart shows it. The child ran none of our hooks and left no session file.
"""

from __future__ import annotations

import json
import os
from importlib.util import find_spec
from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin, wait_for
from messages_standin import MessagesStandIn, offers_tool, text_of

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

SECRET = "sk-ant-api03-" + "Z" * 40
SAID = (f"remember: retries go in a transport wrapper, not in the client. The staging key is {SECRET} "
        "but never commit it.")
TITLE = "Retries go in a transport wrapper"


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN model: the extraction request (it offers StructuredOutput) gets one grounded decision; any other
    request a short text."""
    if offers_tool(body, "StructuredOutput"):
        answer = {"decisions": [{"what": TITLE, "rationale": "keeps the client small", "supersedes": None,
                                 "confidence": "explicit", "evidence": "retries go in a transport wrapper",
                                 # The schema requires them (the CLI validates StructuredOutput against it).
                                 "questions": ["where do we retry failed requests?", "does the client retry?"],
                                 "aliases": ["backoff", "retry policy"], "anchors": []}],
                  "preferences": [], "conventions": [], "gotchas": [],
                  "active_work": {"current_task": "Move retries into a transport wrapper", "blockers": [],
                                  "next_steps": ["write the wrapper"], "open_questions": []},
                  "flush_ok": False}
        return [{"type": "tool_use", "id": "toolu_standin_extract", "name": "StructuredOutput", "input": answer}]
    return [{"type": "text", "text": "Noted."}]


def _extraction_requests(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for b in bodies if offers_tool(b, "StructuredOutput")]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Sandbox(tmp_path_factory.mktemp("claude-extract"), str(CLAUDE))
    # `claude` on the PATH `init` runs with: init records where it is (claudeCodePath).
    box.env["PATH"] = os.pathsep.join([os.path.dirname(str(CLAUDE)), box.env["PATH"]])
    w: dict[str, Any] = {"box": box, "init": box.agentctx("init").stdout}
    if find_spec("anthropic") is not None:  # the all-extras suite: the key the stand-in needs would pick the API
        box.agentctx("config", "set", "extraction", "claude-code")
    w["status"] = box.agentctx_json("status")
    with MessagesStandIn(model) as api:
        first = box.run(SAID, api.base_url)
        w["first"] = first
        def landed() -> list[Any]:
            return box.query("SELECT id, source, session_id FROM records WHERE title = ? AND superseded_by IS NULL",
                             TITLE)

        wait_for(landed, timeout=90)
        w["record"] = landed()
        # SessionEnd's consolidation runs the final pass too; let it finish before the next session.
        wait_for(lambda: box.ended_at(first.session_id) is not None and not box.marker(first.session_id).exists(),
                 timeout=60)
        w["bodies"] = api.message_bodies()
        second = box.run("What is the capital of France?", api.base_url)
        w["second"] = second
        wait_for(lambda: box.ended_at(second.session_id) is not None, timeout=60)  # its consolidation drained it
    w["sessions"] = [r[0] for r in box.query("SELECT session_id FROM sessions")]
    w["transcripts"] = sorted(p.stem for p in (box.home / ".claude" / "projects").rglob("*.jsonl"))
    return w


def test_init_records_the_cli_and_status_says_which_backend_runs(world):
    assert "extraction can run through your Claude Code CLI" in world["init"]
    extraction = world["status"]["extraction"]
    assert extraction["backend"] == "claude-code" and extraction["claude"]


def test_the_session_runs_and_the_cli_extraction_reaches_the_stand_in(world):
    assert world["first"].returncode == 0, world["first"].stderr
    (request,) = _extraction_requests(world["bodies"])[:1] or [None]
    assert request is not None, "no extraction request reached the stand-in"
    sent = text_of(request["messages"][-1]["content"])
    assert "retries go in a transport wrapper" in sent
    assert SECRET not in json.dumps(request)  # redacted before it left agentctx
    system = json.dumps(request["system"])
    assert "You extract durable project memory" in system
    assert [t["name"] for t in request["tools"]] == ["StructuredOutput"]  # no tools of Claude Code's, no MCP


def test_the_cli_adds_little_beyond_our_payload(world):
    from agentctx.extract import prompt

    (request,) = _extraction_requests(world["bodies"])[:1]
    ours = prompt.SYSTEM + json.dumps(prompt.SCHEMA) + text_of(request["messages"][-1]["content"])
    whole = json.dumps(request["system"]) + json.dumps(request["tools"]) + json.dumps(request["messages"])
    overhead_tokens = (len(whole) - len(ours)) / 4
    assert overhead_tokens <= 1500, overhead_tokens


def test_a_grounded_record_lands_and_the_next_session_start_shows_it(world):
    assert world["record"], "no record was extracted"
    (rid, source, session_id), = world["record"]
    assert source == "llm_extraction" and session_id == world["first"].session_id
    assert TITLE in world["second"].additional_context("SessionStart")
    # How it will be asked came in the same call, through the CLI's structured output (issue 25).
    assert world["box"].query("SELECT questions, aliases FROM records WHERE id = ?", rid) == [
        ("where do we retry failed requests?\ndoes the client retry?", "backoff\nretry policy")]


def test_the_child_ran_none_of_our_hooks_and_left_no_session(world):
    # Only the two real sessions: the extraction child started no session, no ledger row, no transcript.
    assert sorted(world["sessions"]) == sorted([world["first"].session_id, world["second"].session_id])
    assert world["transcripts"] == sorted([world["first"].session_id, world["second"].session_id])
    requests = _extraction_requests(world["bodies"])
    assert 1 <= len(requests) <= 2  # Stop's pass, and at most SessionEnd's final one (nothing new by then)
