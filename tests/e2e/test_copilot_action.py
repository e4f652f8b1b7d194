"""The pre-action hook end to end with the REAL Copilot CLI (pinned) offline against the Responses API stand-in.

The stand-in's HAND-WRITTEN model, in one `copilot -p`: creates src/payments/charge.py with `create` (anchored to a
record), runs `echo ok` (anchored to nothing), then `git push --force origin main` (a guard). preToolUse's context
reaches the model right after the tool's result (fact 7: the CLI runs the tool, then adds the context), and a denial's
reason is the tool's result (fact 8: a guard that asks is denied in `-p`, nobody being there to ask). The tests check
the requests after each call and the ledger. A second run, on gpt-5.5, adds src/payments/refund.py with apply_patch.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import ACTION_HEADER as HEADER
from agent_e2e import CENTS, PUSH, action_ledger, agentctx, hooks_log, prepare, seed_action_records
from copilot_sandbox import CopilotSandbox, copilot_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

COPILOT, WHY_NOT = copilot_bin()
pytestmark = pytest.mark.skipif(COPILOT is None, reason=WHY_NOT)


PATCH = "*** Begin Patch\n*** Add File: src/payments/refund.py\n+REFUND = 50\n*** End Patch\n"


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(repo: str) -> Any:
    def answer(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: create (an absolute path, as the tool wants), then two shell calls, then a closing text."""
        done = len(_outputs(body))
        if done == 0 and offers_tool(body, "apply_patch"):  # the gpt-5 family's file tool (fact 9): one patch only
            return [{"type": "custom_tool_call", "name": "apply_patch", "input": PATCH}]
        if offers_tool(body, "apply_patch"):
            return [{"type": "text", "text": "Done."}]
        if done == 0 and offers_tool(body, "create"):
            return [{"type": "function_call", "name": "create",
                     "arguments": {"path": f"{repo}/src/payments/charge.py", "file_text": "AMOUNT = 100\n"}}]
        commands = {1: "echo ok", 2: "git push --force origin main"}
        if done in commands and offers_tool(body, "bash"):
            return [{"type": "function_call", "name": "bash",
                     "arguments": {"command": commands[done], "description": "run"}}]
        return [{"type": "text", "text": "Done."}]
    return answer


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CopilotSandbox(tmp_path_factory.mktemp("copilot-action"), str(COPILOT))
    prepare(box, str(COPILOT))
    (box.repo / "src" / "payments").mkdir(parents=True)  # `create` wants the folder to exist
    with ResponsesStandIn(model(str(box.repo))) as api:
        box.configure(api.base_url)
        agentctx(box, "init", "--agent", "copilot")
        cents, push = seed_action_records(box)
        run = box.run("Set the charge amount, check, and push")
        bodies = api.response_bodies()
        patched = box.run("Add the refund amount", model="gpt-5.5")
        patch_bodies = api.response_bodies()[len(bodies):]
    return {"box": box, "run": run, "bodies": bodies, "cents": cents, "push": push, "patched": patched,
            "patch_bodies": patch_bodies}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return next(b for b in bodies if len(_outputs(b)) == n)


def test_the_run_succeeds_and_no_hook_fails(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert hooks_log(world["box"]) == ""
    assert (world["box"].repo / "src/payments/charge.py").exists()


def test_the_anchored_edit_gets_the_record_and_the_unanchored_command_nothing(world):
    first = json.dumps(input_items(_after(world["bodies"], 1)))
    assert CENTS in first and world["cents"] in first and "integer cents, never floats" in first
    assert "Additional context from preToolUse hook" in first  # how the CLI labels it (fact 7)
    second = json.dumps(input_items(_after(world["bodies"], 2)))
    assert second.count(HEADER) == first.count(HEADER) and second.count(CENTS) == first.count(CENTS)


def test_the_guard_stops_the_push_with_the_record_quoted(world):
    last = _outputs(_after(world["bodies"], 3))[-1]["output"]
    assert last.startswith("Denied by preToolUse hook") and PUSH in last and world["push"] in last
    assert world["box"].git("status", "--short")  # nothing was pushed: there is no remote, and the call never ran


def test_the_ledger_shows_the_delivery_and_what_the_action_did(world):
    stats, why = action_ledger(world["box"], world["cents"], world["push"])
    assert stats[world["cents"]]["actions"] == 2 and stats[world["cents"]]["acted"] == 2  # create, then the patch
    assert stats[world["push"]]["actions"] == 1 and stats[world["push"]]["followed"] == 1
    assert "before Edit of src/payments/refund.py" in why
    assert "before Write of src/payments/charge.py" in why and "matched path:src/payments/**" in why


def test_a_patch_of_an_anchored_file_gets_the_record_too(world):
    """gpt-5.5 edits with apply_patch, whose argument is the patch text: the adapter reads its files (fact 9)."""
    assert world["patched"].returncode == 0, world["patched"].stderr
    assert (world["box"].repo / "src/payments/refund.py").exists()
    after = json.dumps(input_items(_after(world["patch_bodies"], 1)))
    assert CENTS in after and world["cents"] in after and HEADER in after
