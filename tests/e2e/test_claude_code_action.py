"""End to end with the REAL Claude Code CLI: records reach the model before the action they govern (issue 33).

The stand-in's HAND-WRITTEN model, in one session: writes src/payments/charge.py (anchored to a record), writes
notes/todo.txt (anchored to nothing), then runs `git push --force` (a guard the user set to deny). The tests check
the model requests after each tool call: the record delivered before the first write, nothing for the second, the
push denied with the record quoted; and the ledger: the delivery, what the action did, the guard that held.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin, wait_for
from messages_standin import MessagesStandIn, offers_tool

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

CENTS = "Payments amounts are integer cents"
PUSH = "Never force-push shared branches"


def _tool_results(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages") or [] if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


GET = "mcp__agentctx__ctx_get"


def model_for(repo: str, cents: str = ""):
    steps = [("Write", {"file_path": f"{repo}/src/payments/charge.py", "content": "AMOUNT = 100  # cents\n"}),
             ("Write", {"file_path": f"{repo}/notes/todo.txt", "content": "nothing\n"}),
             ("Bash", {"command": "git push --force origin main", "description": "Push"}),
             (GET, {"ids": [cents]})]  # the whole record, read after it was shown (2.1.332 defers MCP tools: skipped)

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: one tool call per request, in order, then a closing text."""
        done = _tool_results(body)
        if done < len(steps) and offers_tool(body, steps[done][0]):
            name, args = steps[done]
            return [{"type": "tool_use", "id": f"toolu_standin_action{done}", "name": name, "input": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Sandbox(tmp_path_factory.mktemp("claude-action"), str(CLAUDE))
    box.agentctx("init")
    box.agentctx("config", "set", "llm", "false")
    cents = box.agentctx("record", "--type", "convention", "--title", CENTS, "--body",
                         "Store and compute every amount in src/payments as integer cents, never floats.",
                         "--anchor", "src/payments/**").stdout.strip()
    push = box.agentctx("record", "--type", "convention", "--title", PUSH, "--body",
                        "Open a pull request instead of force-pushing.").stdout.strip()
    box.agentctx("guard", push, "--never", "command:git push --force", "--deny")
    box.agentctx("consolidate")
    with MessagesStandIn(model_for(str(box.repo), cents)) as api:
        run = box.run("Set the charge amount, note it, and push", api.base_url, allowed=("Write", GET))
        bodies = api.message_bodies()
    offered = any(offers_tool(b, GET) for b in bodies)
    return {"box": box, "run": run, "bodies": bodies, "cents": cents, "push": push, "get_offered": offered}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """The first model request that carries the result of the n-th tool call (1-based)."""
    return next(b for b in bodies if _tool_results(b) == n)


def test_the_anchored_edit_gets_the_record_before_it_runs(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    pre = run.hook_responses("PreToolUse")
    assert pre and all(r["exit_code"] == 0 for r in pre)
    first = json.dumps(_after(world["bodies"], 1)["messages"])
    assert CENTS in first and world["cents"] in first and "integer cents, never floats" in first
    assert (world["box"].repo / "src/payments/charge.py").exists()  # delivered, not blocked


def test_the_unanchored_edit_gets_nothing(world):
    first = json.dumps(_after(world["bodies"], 1)["messages"])
    second = json.dumps(_after(world["bodies"], 2)["messages"])
    assert second.count(CENTS) == first.count(CENTS)  # once per session, and nothing new for notes/todo.txt
    assert second.count("agentctx: project memory about what this tool call touches") == first.count(
        "agentctx: project memory about what this tool call touches")


def test_the_guard_denies_the_forbidden_command_with_the_record_quoted(world):
    third = _after(world["bodies"], 3)
    results = [b for m in third["messages"] if isinstance(m.get("content"), list) for b in m["content"]
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    last = json.dumps(results[-1])
    assert PUSH in last and world["push"] in last and "agentctx guard" in last
    assert not world["run"].hook_responses("PostToolUse") or all(
        "git push" not in json.dumps(r) for r in world["run"].hook_responses("PostToolUse"))


def test_the_ledger_shows_the_delivery_and_what_the_action_did(world):
    box = world["box"]
    assert wait_for(lambda: box.agentctx_json("stats")["records"])
    stats = {r["id"]: r for r in box.agentctx_json("stats")["records"]}
    assert stats[world["cents"]]["actions"] == 1 and stats[world["cents"]]["acted"] == 1
    assert stats[world["push"]]["actions"] == 1 and stats[world["push"]]["followed"] == 1
    assert stats[world["push"]]["ignored"] == 0
    why = box.agentctx("why").stdout
    assert "before Write of src/payments/charge.py" in why and "matched path:src/payments/**" in why
    assert "guard: deny" in why and "PostToolUse/acted" in why
    if world["get_offered"]:  # 2.1.197 offers our MCP tools directly: the ctx_get after the delivery is noted
        assert stats[world["cents"]]["fetched"] == 1 and not stats[world["cents"]]["never_used"]
