"""The pre-action hook end to end with the REAL Gemini CLI (pinned) against the Gemini API stand-in (issue 33).

Gemini CLI's BeforeTool reads no context (vendor-notes/gemini-cli.md fact 24): the record anchored to the file goes
out from AfterTool, with the tool's result, the first thing the model reads after the call; a guard's `deny` still
stops the call before it runs. The stand-in's HAND-WRITTEN model writes src/payments/charge.py (anchored), runs
`echo ok` (anchored to nothing), then `git push --force origin main` (a guard set to deny).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import ACTION_HEADER as HEADER
from agent_e2e import CENTS, PUSH, action_ledger, agentctx, hooks_log, prepare, seed_action_records
from gemini_sandbox import GeminiSandbox, gemini_bin
from gemini_standin import GeminiStandIn, contents, offers_tool, wants_json

GEMINI, WHY_NOT = gemini_bin()
pytestmark = pytest.mark.skipif(GEMINI is None, reason=WHY_NOT)



def _responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p["functionResponse"] for c in contents(body) for p in c.get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p]


def model_for(repo: str):
    steps = [("write_file", {"file_path": f"{repo}/src/payments/charge.py", "content": "AMOUNT = 100\n"}),
             ("run_shell_command", {"command": "echo ok", "description": "check"}),
             ("run_shell_command", {"command": "git push --force origin main", "description": "push"})]

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: one call per request, in order, then a closing text."""
        if wants_json(body) is not None:
            return [{"type": "text", "text": "{}"}]
        done = len(_responses(body))
        if done < len(steps) and offers_tool(body, steps[done][0]):
            name, args = steps[done]
            return [{"type": "function_call", "name": name, "args": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = GeminiSandbox(tmp_path_factory.mktemp("gemini-action"), str(GEMINI))
    prepare(box, str(GEMINI))
    box.configure(mcp=False)
    agentctx(box, "init", "--agent", "gemini")
    cents, push = seed_action_records(box, "--deny")
    with GeminiStandIn(model_for(str(box.repo))) as api:
        run = box.run("Set the charge amount, check, and push", api.base_url)
        bodies = [b for b in api.turn_bodies() if wants_json(b) is None]
    return {"box": box, "run": run, "bodies": bodies, "cents": cents, "push": push}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return next(b for b in bodies if len(_responses(b)) == n)


def test_the_run_succeeds_and_no_hook_fails(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert hooks_log(world["box"]) == ""
    assert (world["box"].repo / "src/payments/charge.py").exists()


def test_the_anchored_write_gets_the_record_and_the_unanchored_command_nothing(world):
    first = json.dumps(contents(_after(world["bodies"], 1)))
    assert CENTS in first and world["cents"] in first and "integer cents, never floats" in first
    second = json.dumps(contents(_after(world["bodies"], 2)))
    assert second.count(HEADER) == first.count(HEADER) and second.count(CENTS) == first.count(CENTS)


def test_the_guard_denies_the_push_with_the_record_quoted(world):
    last = json.dumps(_responses(_after(world["bodies"], 3))[-1])
    assert PUSH in last and world["push"] in last and "agentctx guard" in last


def test_the_ledger_shows_the_delivery_and_what_the_action_did(world):
    stats, why = action_ledger(world["box"], world["cents"], world["push"])
    assert stats[world["cents"]]["actions"] == 1 and stats[world["cents"]]["acted"] == 1
    assert stats[world["push"]]["actions"] == 1 and stats[world["push"]]["followed"] == 1
    assert "before Write of src/payments/charge.py" in why and "matched path:src/payments/**" in why
