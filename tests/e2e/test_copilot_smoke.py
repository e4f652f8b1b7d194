"""The contracts of the REAL GitHub Copilot CLI (pinned) agentctx relies on, observed offline against the Responses
API stand-in with a log hook on every event (vendor-notes/copilot-cli.md says what each test shows):
  A  a shell call that fails, a read, an edit that fails: payloads, tool names, where each event's context lands;
  B  a shell call denied by preToolUse: the reason is what the model gets;
  C  the instruction files Copilot loads itself, at start and when a file is read;
  D  `/compact` in session A (resumed): preCompact.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from copilot_sandbox import CopilotSandbox, copilot_bin, hooks_json
from log_hook import marker
from openai_standin import ResponsesStandIn, input_items, messages, tool_names

COPILOT, WHY_NOT = copilot_bin()
pytestmark = pytest.mark.skipif(COPILOT is None, reason=WHY_NOT)

DENY_HOOK = ('import sys\nsys.stdin.read()\n'
             'print(\'{"permissionDecision": "deny", "permissionDecisionReason": "NO-PUSH"}\')\n')


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(repo: Path) -> Any:
    def answer(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: per prompt, a fixed sequence of tool calls, one per request."""
        prompt = messages(body, "user")[-1] if messages(body, "user") else ""
        done = len(_outputs(body))
        calls: list[tuple[str, dict[str, Any]]] = []
        if "run A" in "\n".join(messages(body, "user")):
            calls = [("bash", {"command": "echo broke >&2; exit 3", "description": "x"}),
                     ("view", {"path": str(repo / "sub" / "x.py")}),
                     ("edit", {"path": str(repo / "sub" / "x.py"), "old_str": "NOPE", "new_str": "y"})]
        elif "run B" in prompt or "run B" in "\n".join(messages(body, "user")):
            calls = [("bash", {"command": "git push --force", "description": "push"})]
        elif "run C" in "\n".join(messages(body, "user")):
            calls = [("view", {"path": str(repo / "src" / "a.py")})]
        if done < len(calls):
            name, args = calls[done]
            return [{"type": "function_call", "name": name, "arguments": args}]
        return [{"type": "text", "text": "Done."}]
    return answer


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CopilotSandbox(tmp_path_factory.mktemp("copilot-smoke"), str(COPILOT))
    r = box.repo
    for path, text in (("AGENTS.md", "ROOT-AGENTS marker"), ("CLAUDE.md", "ROOT-CLAUDE marker"),
                       ("GEMINI.md", "ROOT-GEMINI marker"), ("sub/AGENTS.md", "SUB-AGENTS marker"),
                       ("sub/CLAUDE.md", "SUB-CLAUDE marker"), ("sub/x.py", "y = 1"), ("src/a.py", "z = 1"),
                       (".github/copilot-instructions.md", "GH-COPILOT marker"),
                       (".github/instructions/py.instructions.md", '---\napplyTo: "src/**/*.py"\n---\nPY-APPLYTO marker'),
                       (".claude/rules/always.md", "CLAUDE-RULE marker"),
                       (".claude/rules/paths.md", '---\npaths:\n  - "src/**"\n---\nCLAUDE-PATHS marker')):
        (r / path).parent.mkdir(parents=True, exist_ok=True)
        (r / path).write_text(text + "\n", encoding="utf-8")
    box.git("add", ".")
    box.git("commit", "-qm", "files")
    w: dict[str, Any] = {"box": box}
    with ResponsesStandIn(model(r)) as api:
        box.configure(api.base_url, hooks=hooks_json(), mcp=True)
        for name in "AC":
            n = len(api.response_bodies())
            w[name] = box.run(f"run {name}")
            w[f"{name}_bodies"] = api.response_bodies()[n:]
        w["D"] = box.run("/compact", resume=w["A"].session_id)  # a slash command in -p: compaction, then exit
        w["calls"] = box.hook_calls()
        script = box.base / "deny_hook.py"
        script.write_text(DENY_HOOK, encoding="utf-8")
        deny = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": f"{sys.executable} {script}"}]}}
        (box.copilot_home / "hooks" / "log.json").write_text(json.dumps(deny), encoding="utf-8")
        n = len(api.response_bodies())
        w["B"] = box.run("run B")
        w["B_bodies"] = api.response_bodies()[n:]
    return w


def _call(world: dict[str, Any], event: str, n: int = 0) -> dict[str, Any]:
    return [c["stdin"] for c in world["calls"] if c["event"] == event][n]


def test_the_runs_succeed_and_every_event_fires(world):
    for name in "ABCD":
        assert world[name].returncode == 0, world[name].stderr
    fired = {c["event"] for c in world["calls"]}
    assert fired == {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure",
                     "preCompact", "agentStop", "sessionEnd"}


def test_pre_compact_names_the_trigger_and_the_session_log(world):
    (compact,) = [c["stdin"] for c in world["calls"] if c["event"] == "preCompact"]
    assert compact["sessionId"] == world["A"].session_id and compact["trigger"] == "manual"
    assert compact["transcriptPath"] == _call(world, "agentStop")["transcriptPath"]


def test_payloads_are_camel_case_with_the_session_and_the_directory(world):
    box = world["box"]
    start = _call(world, "sessionStart")
    assert set(start) >= {"sessionId", "timestamp", "cwd", "source", "initialPrompt"} and start["source"] == "new"
    assert start["cwd"] == str(box.repo) and isinstance(start["timestamp"], int)
    assert _call(world, "userPromptSubmitted")["prompt"] == "run A"
    stop = _call(world, "agentStop")
    assert stop["stopReason"] == "end_turn" and stop["stop_hook_active"] is False
    sid = start["sessionId"]
    assert stop["transcriptPath"] == str(box.copilot_home / "session-state" / sid / "events.jsonl")
    assert Path(stop["transcriptPath"]).exists() and _call(world, "sessionEnd")["reason"] == "complete"
    assert "transcriptPath" not in _call(world, "sessionEnd")


def test_tool_payloads_and_a_failed_shell_call(world):
    pre = _call(world, "preToolUse")
    assert pre["toolName"] == "bash" and pre["toolArgs"]["command"].startswith("echo broke")
    post = _call(world, "postToolUse")
    # a nonzero exit is still a success, the code in the result's last line
    assert post["toolResult"]["resultType"] == "success"
    assert post["toolResult"]["textResultForLlm"].endswith("<shellId: 0 completed with exit code 3>")
    assert _call(world, "preToolUse", 1)["toolArgs"] == {"path": str(world["box"].repo / "sub" / "x.py")}
    failure = _call(world, "postToolUseFailure")
    assert failure["toolName"] == "edit" and failure["error"] == "No match found" and "toolResult" not in failure


def test_each_events_context_lands_where_the_adapter_says(world):
    first, second = world["A_bodies"][0], world["A_bodies"][1]
    users = messages(first, "user")
    assert users[0] == marker("sessionStart")  # its own message, before the prompt
    assert users[-1].endswith(f"run A\n\n<system_reminder>\n{marker('userPromptSubmitted')}\n</system_reminder>")
    (out,) = _outputs(second)
    assert marker("postToolUse") in out["output"]  # appended to the tool's result
    after = input_items(second)[input_items(second).index(out) + 1:]
    assert marker("preToolUse") in json.dumps(after)  # a message after the result: the tool has run by then


def test_a_denial_reason_is_the_tool_result(world):
    (out,) = _outputs(world["B_bodies"][-1])
    assert out["output"] == "Denied by preToolUse hook: NO-PUSH"


def test_mcp_tools_are_named_server_dash_tool(world):
    names = tool_names(world["A_bodies"][0])
    assert {"agentctx-ctx_search", "agentctx-ctx_get", "agentctx-ctx_record"} <= set(names)
    assert {"bash", "view", "create", "edit"} <= set(names)


def test_the_instruction_files_it_loads_itself(world):
    start = json.dumps(world["A_bodies"][0])
    for loaded in ("ROOT-AGENTS", "ROOT-CLAUDE", "ROOT-GEMINI", "GH-COPILOT", "CLAUDE-RULE marker"):
        assert loaded in start, loaded
    for later in ("SUB-AGENTS", "SUB-CLAUDE", "PY-APPLYTO", "CLAUDE-PATHS"):
        assert later not in start, later
    after_read = json.dumps(input_items(world["A_bodies"][2]))  # after sub/x.py was read
    assert "SUB-AGENTS" in after_read and "SUB-CLAUDE" in after_read and "PY-APPLYTO" not in after_read
    src = json.dumps(input_items(world["C_bodies"][-1]))  # after src/a.py was read
    assert "PY-APPLYTO" in src and "CLAUDE-PATHS" in src
