"""The repository's own rule files and the REAL Copilot CLI (pinned, offline): what it does not load reaches it from
the store, what it loads itself does not come twice (issue 46; vendor-notes/copilot-cli.md fact 13).

The repository keeps a Cursor rule (`.cursor/rules/payments.mdc`, a format Copilot never reads) and a Copilot rule
(`.github/instructions/payments.instructions.md`, `applyTo`), both about src/payments. `agentctx consolidate` reads
them as records; the stand-in's HAND-WRITTEN model then creates src/payments/charge.py and reads it back. The tests
check what the model's requests carried after each call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import ACTION_HEADER as HEADER
from agent_e2e import agentctx, hooks_log, prepare
from copilot_sandbox import CopilotSandbox, copilot_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

COPILOT, WHY_NOT = copilot_bin()
pytestmark = pytest.mark.skipif(COPILOT is None, reason=WHY_NOT)

CURSOR_RULE = ("---\ndescription: Payments amounts are integer cents\nglobs: src/payments/**/*.py\n"
               "alwaysApply: false\n---\nStore and compute every amount as integer cents, never floats.\n")
COPILOT_RULE = ('---\napplyTo: "src/payments/**/*.py"\n---\n# Payment logging\nLog every charge with its idempotency '
                'key, never the card number.\n')


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(repo: str) -> Any:
    def answer(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: create the file, read it, then a closing text."""
        path = f"{repo}/src/payments/charge.py"
        calls = [("create", {"path": path, "file_text": "AMOUNT = 100\n"}), ("view", {"path": path})]
        done = len(_outputs(body))
        if done < len(calls) and offers_tool(body, calls[done][0]):
            return [{"type": "function_call", "name": calls[done][0], "arguments": calls[done][1]}]
        return [{"type": "text", "text": "Done."}]
    return answer


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CopilotSandbox(tmp_path_factory.mktemp("copilot-rules"), str(COPILOT))
    prepare(box, str(COPILOT))
    for rel, text in ((".cursor/rules/payments.mdc", CURSOR_RULE),
                      (".github/instructions/payments.instructions.md", COPILOT_RULE)):
        path = box.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (box.repo / "src" / "payments").mkdir(parents=True)
    with ResponsesStandIn(model(str(box.repo))) as api:
        box.configure(api.base_url)
        agentctx(box, "init", "--agent", "copilot")
        agentctx(box, "config", "set", "llm", "false")
        agentctx(box, "consolidate")
        rules = json.loads(agentctx(box, "rules", "--json"))["rules"]
        run = box.run("Set the charge amount")
        bodies = api.response_bodies()
    return {"box": box, "run": run, "bodies": bodies, "rules": {r["path"]: r for r in rules}}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return next(b for b in bodies if len(_outputs(b)) == n)


def test_consolidation_read_both_and_knows_copilot_loads_its_own(world):
    rules = world["rules"]
    assert rules[".cursor/rules/payments.mdc"]["native_agents"] == []
    assert rules[".github/instructions/payments.instructions.md"]["native_agents"] == ["copilot"]


def test_the_run_succeeds_and_no_hook_fails(world):
    assert world["run"].returncode == 0, world["run"].stderr
    assert hooks_log(world["box"]) == ""


def test_the_cursor_rule_comes_from_agentctx_and_the_copilot_rule_only_from_copilot(world):
    created = json.dumps(input_items(_after(world["bodies"], 1)))
    assert HEADER in created and "integer cents, never floats" in created and ".cursor/rules/payments.mdc" in created
    assert "idempotency" not in created  # agentctx skips the rule Copilot loads itself
    read = input_items(_after(world["bodies"], 2))
    ours = [i for i in read if HEADER in json.dumps(i)]
    assert ours and all("idempotency" not in json.dumps(i) for i in ours)
    # Copilot brings its own rule when the file is read (fact 13), once
    assert json.dumps(read).count("Log every charge with its idempotency key") == 1
