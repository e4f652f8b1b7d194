"""The pre-action hook end to end with the REAL Codex CLI (pinned) against the Responses API stand-in (issue 33).

The stand-in's HAND-WRITTEN model, in one `codex exec`: adds src/payments/charge.py with apply_patch (anchored to a
record), runs `echo ok` (anchored to nothing), then `git push --force origin main` (a guard set to ask: Codex cannot
ask before a tool call, so agentctx denies it, saying so). The tests check the requests after each call and the
ledger.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import ACTION_HEADER as HEADER
from agent_e2e import CENTS, PUSH, action_ledger, agentctx, hooks_log, prepare, seed_action_records
from codex_sandbox import CodexSandbox, codex_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

PATCH = "*** Begin Patch\n*** Add File: src/payments/charge.py\n+AMOUNT = 100\n*** End Patch\n"


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: apply_patch, then two shell calls, one per request, then a closing text."""
    done = len(_outputs(body))
    if done == 0 and offers_tool(body, "apply_patch"):
        return [{"type": "custom_tool_call", "name": "apply_patch", "input": PATCH}]
    commands = {1: "echo ok", 2: "git push --force origin main"}
    if done in commands and offers_tool(body, "exec_command"):
        return [{"type": "function_call", "name": "exec_command", "arguments": {"cmd": commands[done]}}]
    return [{"type": "text", "text": "Done."}]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-action"), str(CODEX))
    prepare(box, str(CODEX))
    with ResponsesStandIn(model) as api:
        box.configure(api.base_url, mcp=False, model="gpt-5.5")
        agentctx(box, "init", "--agent", "codex")
        cents, push = seed_action_records(box)
        run = box.run("Set the charge amount, check, and push", trust_hooks=False)
        bodies = api.response_bodies()
    return {"box": box, "run": run, "bodies": bodies, "cents": cents, "push": push}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return next(b for b in bodies if len(_outputs(b)) == n)


def test_the_run_succeeds_and_no_hook_fails(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert "Failed" not in run.stderr, run.stderr
    assert hooks_log(world["box"]) == ""
    assert (world["box"].repo / "src/payments/charge.py").exists()


def test_the_anchored_patch_gets_the_record_and_the_unanchored_command_nothing(world):
    first = json.dumps(input_items(_after(world["bodies"], 1)))
    assert CENTS in first and world["cents"] in first and "integer cents, never floats" in first
    second = json.dumps(input_items(_after(world["bodies"], 2)))
    assert second.count(HEADER) == first.count(HEADER) and second.count(CENTS) == first.count(CENTS)


def test_the_guard_stops_the_push_with_the_record_quoted(world):
    last = json.dumps(_outputs(_after(world["bodies"], 3))[-1])
    assert PUSH in last and world["push"] in last and "cannot ask" in last


def test_the_ledger_shows_the_delivery_and_what_the_action_did(world):
    stats, why = action_ledger(world["box"], world["cents"], world["push"])
    assert stats[world["cents"]]["actions"] == 1 and stats[world["cents"]]["acted"] == 1
    assert stats[world["push"]]["actions"] == 1 and stats[world["push"]]["followed"] == 1
    assert "before Edit of src/payments/charge.py" in why and "matched path:src/payments/**" in why
