"""The rule before the action end to end with the REAL Codex CLI (pinned) against the Responses stand-in (issue 43).

The stand-in's HAND-WRITTEN model, in one `codex exec`: reads src/payments/charge.py through the shell (`sed -n`,
anchored), updates it with apply_patch, edits config/app.ini with `sed -i` (anchored), adds src/api/users.py with
apply_patch (a record marked "before"), the identical patch again, then `cat vendor/lib.py` (a guard denies every edit
there). The tests check the requests after each call, and the ledger: every delivery found in the rollout file.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import ACTION_HEADER as HEADER
from agent_e2e import agentctx, hooks_log, prepare, seed_read_records
from codex_sandbox import CodexSandbox, codex_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

UPDATE = "*** Begin Patch\n*** Update File: src/payments/charge.py\n@@\n-AMOUNT = 1.0\n+AMOUNT = 100\n*** End Patch\n"
ADD = "*** Begin Patch\n*** Add File: src/api/users.py\n+SCHEMA = {}\n*** End Patch\n"


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


STEPS: list[tuple[str, Any]] = [("exec_command", "sed -n 1,200p src/payments/charge.py"), ("apply_patch", UPDATE),
                                ("exec_command", "sed -i 's/debug = true/debug = false/' config/app.ini"),
                                ("apply_patch", ADD), ("apply_patch", ADD), ("exec_command", "cat vendor/lib.py")]


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: the steps above, one per request, then a closing text."""
    done = len(_outputs(body))
    if done < len(STEPS) and offers_tool(body, STEPS[done][0]):
        name, arg = STEPS[done]
        if name == "apply_patch":
            return [{"type": "custom_tool_call", "name": "apply_patch", "input": arg}]
        return [{"type": "function_call", "name": name, "arguments": {"cmd": arg}}]
    return [{"type": "text", "text": "Done."}]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-read"), str(CODEX))
    prepare(box, str(CODEX))
    with ResponsesStandIn(model) as api:
        box.configure(api.base_url, mcp=False, model="gpt-5.5")
        agentctx(box, "init", "--agent", "codex")
        ids = seed_read_records(box)
        run = box.run("Fix the amount, the config and add the users API", trust_hooks=False)
        bodies = api.response_bodies()
    return {"box": box, "run": run, "bodies": bodies, "ids": ids}


def _after(bodies: list[dict[str, Any]], n: int) -> str:
    return json.dumps(input_items(next(b for b in bodies if len(_outputs(b)) == n)))


def _output(bodies: list[dict[str, Any]], n: int) -> str:
    return json.dumps(_outputs(next(b for b in bodies if len(_outputs(b)) == n))[-1])


def test_the_run_succeeds_and_no_hook_fails(world):
    assert world["run"].returncode == 0, world["run"].stderr
    assert hooks_log(world["box"]) == ""


def test_the_record_is_in_the_request_answered_with_the_edit_and_not_again(world):
    ids = world["ids"]
    after_read = _after(world["bodies"], 1)
    assert "integer cents, never floats" in after_read and ids["cents"] in after_read
    after_edit = _after(world["bodies"], 2)
    assert after_edit.count(f"(id {ids['cents']})") == after_read.count(f"(id {ids['cents']})")
    assert (world["box"].repo / "src/payments/charge.py").read_text() == "AMOUNT = 100\n"


def test_a_sed_i_of_an_anchored_file_gets_its_record(world):
    assert world["ids"]["config"] in _after(world["bodies"], 3)
    assert (world["box"].repo / "config/app.ini").read_text() == "debug = false\n"


def test_the_new_file_under_a_before_record_is_denied_once_and_the_retry_goes_through(world):
    first = _output(world["bodies"], 4)
    assert world["ids"]["schema"] in first and "stopped this call once" in first
    assert (world["box"].repo / "src/api/users.py").read_text() == "SCHEMA = {}\n"
    assert "stopped this call once" not in _output(world["bodies"], 5)


def test_a_guard_never_stops_a_read(world):
    assert "VERSION = 1" in _output(world["bodies"], 6)
    assert world["ids"]["vendor"] in _after(world["bodies"], 6)


def test_the_ledger_says_each_delivery_arrived(world):
    from agent_e2e import read_ledger

    stats = read_ledger(world["box"], world["ids"])
    rows = {r["id"]: r for r in stats["records"]}
    assert rows[world["ids"]["schema"]]["stops"] == 1 and rows[world["ids"]["schema"]]["retries"] == 1
    assert all(rows[i]["not_found"] == 0 for i in world["ids"].values())
    assert stats["arrival"]["codex"]["arrived"] >= 4
