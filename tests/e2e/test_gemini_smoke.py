"""Smoke test of the Gemini CLI contract agentctx's adapter will rely on (vendor-notes/gemini-cli.md), with the REAL
`gemini` (pinned, from npm) against a local Gemini API stand-in and a trivial log hook (tests/e2e/log_hook.py).

One headless run (about 3-5 s) asks the scripted model to create a branch, which it does with run_shell_command;
the tests then read what the hooks were given, what reached the model, the transcript and the repository. One more
run pins the sharpest edge of the contract: a BeforeAgent hook that exits with a code other than 0 or 1 after printing
anything (stdout or stderr) blocks the prompt, so a missing command (the shell's 127 and "not found") blocks every
prompt, and `gemini -p` still exits 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemini_sandbox import GeminiSandbox, Run, gemini_bin, hooks_settings
from gemini_standin import GeminiStandIn, tool_names, wants_json
from log_hook import marker

GEMINI, WHY_NOT = gemini_bin()
pytestmark = pytest.mark.skipif(GEMINI is None, reason=WHY_NOT)

PROMPT = "Please create the branch feature/gemini-smoke"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = GeminiSandbox(tmp_path_factory.mktemp("gemini-smoke"), str(GEMINI))
    box.configure(hooks=hooks_settings())
    with GeminiStandIn() as api:
        run = box.run(PROMPT, api.base_url)
        requests = list(api.requests)
        turns = api.turn_bodies()
    return {"box": box, "run": run, "requests": requests, "turns": turns}


def _texts(content: dict[str, Any]) -> list[str]:
    return [p["text"] for p in content.get("parts") or [] if "text" in p]


def test_the_run_succeeds_against_the_stand_in(world):
    run: Run = world["run"]
    assert run.returncode == 0, run.stderr
    assert run.answer == "Running it.Done: the command ran."
    assert run.result["status"] == "success"
    paths = [p.split("?")[0] for m, p, _, _ in world["requests"]]
    assert all(p.startswith("/v1beta/models/") for p in paths)
    # the main loop streams (two turns: the tool call, the answer); the model router asks for JSON first
    assert sum(p.endswith(":streamGenerateContent") for p in paths) == 2 == len(world["turns"])
    assert all(h["x-goog-api-key"] == "standin-not-a-key" for _, _, h, _ in world["requests"])


def test_session_start_and_before_agent_get_the_documented_fields(world):
    box: GeminiSandbox = world["box"]
    (start,) = box.hook_calls("SessionStart")
    (before,) = box.hook_calls("BeforeAgent")
    session = world["run"].session_id
    s, b = start["stdin"], before["stdin"]
    assert s["hook_event_name"] == "SessionStart" and s["source"] == "startup" and s["session_id"] == session
    assert s["cwd"] == str(box.repo) and start["cwd"] == str(box.repo) and s["timestamp"]
    assert b["hook_event_name"] == "BeforeAgent" and b["session_id"] == session
    # headless, SessionStart's context is prepended to the prompt BEFORE BeforeAgent sees it
    assert b["prompt"] == f"<hook_context>{marker('SessionStart')}</hook_context>\n\n{PROMPT}"
    assert b["transcript_path"] == s["transcript_path"]
    # the CLI adds its own variables to the environment it passes on
    assert {"GEMINI_SESSION_ID", "GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "AGENTCTX_HOME"} <= set(start["env"])


def test_added_context_reaches_the_model_in_the_user_turn(world):
    first = world["turns"][0]
    last_user = [c for c in first["contents"] if c.get("role") == "user"][-1]
    texts = _texts(last_user)
    assert f"<hook_context>{marker('SessionStart')}</hook_context>\n\n{PROMPT}" in texts
    assert f"<hook_context>{marker('BeforeAgent')}</hook_context>" in texts
    assert marker("SessionStart") not in json.dumps(first.get("systemInstruction"))  # not a system instruction


def test_the_shell_call_runs_and_after_tool_sees_its_output(world):
    box: GeminiSandbox = world["box"]
    assert box.git("branch", "--show-current").strip() == "feature/gemini-smoke"
    (before,) = box.hook_calls("BeforeTool")
    (after,) = box.hook_calls("AfterTool")
    assert before["stdin"]["tool_name"] == after["stdin"]["tool_name"] == "run_shell_command"
    assert after["stdin"]["tool_input"]["command"] == "git checkout -b feature/gemini-smoke"
    response = after["stdin"]["tool_response"]
    assert "Switched to a new branch 'feature/gemini-smoke'" in response["llmContent"]
    assert response["returnDisplay"].startswith("Switched to a new branch")
    # AfterTool's context is appended to the function response the model gets
    second = world["turns"][1]
    (reply,) = [p["functionResponse"] for c in second["contents"] for p in c.get("parts") or []
                if "functionResponse" in p]
    assert reply["name"] == "run_shell_command"
    assert reply["response"]["output"].endswith(f"<hook_context>{marker('AfterTool')}</hook_context>")


def test_after_agent_and_session_end_run(world):
    box: GeminiSandbox = world["box"]
    (after,) = box.hook_calls("AfterAgent")
    (end,) = box.hook_calls("SessionEnd")
    assert after["stdin"]["stop_hook_active"] is False and after["stdin"]["prompt"].endswith(PROMPT)
    assert "Done: the command ran." in after["stdin"]["prompt_response"]
    assert end["stdin"]["reason"] == "exit"
    events = [c["event"] for c in box.hook_calls() if c["event"] != "PreCompress"]
    assert events == ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"]
    # PreCompress fires with trigger "auto" before each main-loop request even when nothing is compressed
    assert {c["stdin"]["trigger"] for c in box.hook_calls("PreCompress")} == {"auto"}


def test_the_mcp_server_in_settings_is_offered_to_the_model(world):
    names = set(tool_names(world["turns"][0]))
    assert {"mcp_agentctx_ctx_search", "mcp_agentctx_ctx_get", "mcp_agentctx_ctx_record"} <= names
    assert "run_shell_command" in names


def test_the_transcript_is_the_jsonl_the_hooks_name(world):
    box: GeminiSandbox = world["box"]
    path = Path(box.hook_calls("SessionStart")[0]["stdin"]["transcript_path"])
    assert path.is_file() and path.is_relative_to(box.home / ".gemini" / "tmp")
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert lines[0]["sessionId"] == world["run"].session_id and lines[0]["kind"] == "main"
    records = [ln for ln in lines if "type" in ln]
    users = [r for r in records if r["type"] == "user" and any(PROMPT in t for t in _texts({"parts": r["content"]}))]
    assert users and users[0]["displayContent"][0]["text"].endswith(PROMPT)
    calls = [c for r in records if r["type"] == "gemini" for c in r.get("toolCalls") or []]
    assert calls and calls[-1]["name"] == "run_shell_command"
    assert "git checkout -b feature/gemini-smoke" in calls[-1]["args"]["command"]


def test_a_missing_before_agent_command_blocks_the_prompt(tmp_path):
    box = GeminiSandbox(tmp_path, str(GEMINI))
    missing = str(tmp_path / "not-installed" / "agentctx") + " hook gemini-before-agent"
    box.configure(hooks=hooks_settings(("BeforeAgent",), command=lambda event: missing), mcp=False)
    with GeminiStandIn() as api:
        run = box.run("hello", api.base_url)
        turns = [b for b in api.bodies() if wants_json(b) is None]
    assert run.returncode == 0 and run.answer == ""  # blocked, and the exit code does not say so
    assert turns == []
