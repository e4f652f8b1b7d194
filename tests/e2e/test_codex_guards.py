"""Guards that hold, end to end with the REAL Codex CLI (pinned) against the Responses API stand-in (issue 41).

The stand-in's HAND-WRITTEN model, in one `codex exec`: `git push -f`, then `bash -c "git push --force"`, then
`git -C . push --force-with-lease` (the guard: `never command:git push --force`, ask; Codex cannot ask before a tool
call, so agentctx denies, saying so). Each is denied with the record quoted, and none ran.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import PUSH, agentctx, hooks_log, prepare, seed_action_records
from codex_sandbox import CodexSandbox, codex_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

COMMANDS = ("git push -f", 'bash -c "git push --force"', "git -C . push --force-with-lease")


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: the three pushes, one shell call per request, then a closing text."""
    done = len(_outputs(body))
    if done < len(COMMANDS) and offers_tool(body, "exec_command"):
        return [{"type": "function_call", "name": "exec_command", "arguments": {"cmd": COMMANDS[done]}}]
    return [{"type": "text", "text": "Done."}]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-guards"), str(CODEX))
    prepare(box, str(CODEX))
    with ResponsesStandIn(model) as api:
        box.configure(api.base_url, mcp=False, model="gpt-5.5")
        agentctx(box, "init", "--agent", "codex")
        _cents, push = seed_action_records(box)
        run = box.run("Push my work", trust_hooks=False)
        bodies = api.response_bodies()
    return {"box": box, "run": run, "bodies": bodies, "push": push}


def test_the_run_succeeds_and_no_hook_fails(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert hooks_log(world["box"]) == ""


def test_every_spelling_is_denied_with_the_record_quoted(world):
    outputs = _outputs(world["bodies"][-1])
    assert len(outputs) == len(COMMANDS)
    for command, output in zip(COMMANDS, outputs):
        text = json.dumps(output)
        assert PUSH in text and world["push"] in text and "cannot ask" in text, (command, text)
