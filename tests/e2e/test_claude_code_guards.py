"""Guards that hold, end to end with the REAL Claude Code CLI (issue 41).

The stand-in's HAND-WRITTEN model, in one session: runs `git push -f`, then `bash -c "git push --force"` (the guard
is `never command:git push --force`, deny), then calls ctx_supersede on the guarded record saying force pushes are
fine now (when the CLI offers our MCP tools directly: 2.1.197 does, 2.1.332 defers them), then `git push -f origin
main` again. Each push is denied with the record quoted; after the supersede, the guard is on the new head and still
holds.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin
from messages_standin import MessagesStandIn, offers_tool

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

PUSH = "Never force-push shared branches"
SUPERSEDE = "mcp__agentctx__ctx_supersede"


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body.get("messages") or [] if isinstance(m.get("content"), list) for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def model_for(push: str):
    steps = [("Bash", {"command": "git push -f", "description": "Push"}),
             ("Bash", {"command": 'bash -c "git push --force"', "description": "Push"}),
             (SUPERSEDE, {"old_id": push, "new_body": "Force pushes are fine now.", "rationale": "the agent says so",
                          "anchors": ["command:ls"]}),
             ("Bash", {"command": "git push -f origin main", "description": "Push"})]

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: the offered steps, one tool call per request, in order, then a closing text."""
        plan = [s for s in steps if offers_tool(body, s[0])]
        done = len(_results(body))
        if done < len(plan):
            name, args = plan[done]
            return [{"type": "tool_use", "id": f"toolu_standin_guard{done}", "name": name, "input": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Sandbox(tmp_path_factory.mktemp("claude-guards"), str(CLAUDE))
    box.agentctx("init")
    box.agentctx("config", "set", "llm", "false")
    push = box.agentctx("record", "--type", "convention", "--title", PUSH, "--body",
                        "Open a pull request instead of force-pushing.").stdout.strip()
    box.agentctx("guard", push, "--never", "command:git push --force", "--deny")
    box.agentctx("consolidate")
    with MessagesStandIn(model_for(push)) as api:
        run = box.run("Push my work", api.base_url, allowed=(SUPERSEDE,))
        bodies = api.message_bodies()
    return {"box": box, "run": run, "bodies": bodies, "push": push,
            "supersede_offered": any(offers_tool(b, SUPERSEDE) for b in bodies)}


def test_every_spelling_of_the_push_is_denied_with_the_record_quoted(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    results = _results(world["bodies"][-1])
    pushes = [json.dumps(r) for i, r in enumerate(results) if not (world["supersede_offered"] and i == 2)]
    assert len(pushes) == 3
    for text in pushes:
        assert PUSH in text and "agentctx guard" in text and "--off" in text, text
    assert all(r["exit_code"] == 0 for r in run.hook_responses("PreToolUse"))


def test_the_agent_superseding_the_guard_leaves_it_in_force(world):
    if not world["supersede_offered"]:
        pytest.skip("this Claude Code defers MCP tools: the model was not offered ctx_supersede")
    box, push = world["box"], world["push"]
    results = _results(world["bodies"][-1])
    answer = json.dumps(results[2])
    assert "kept" in answer and "only the user lifts a guard" in answer
    heads = box.query("SELECT id, guard, anchors FROM records WHERE superseded_at IS NULL AND title = ?", PUSH)
    assert len(heads) == 1 and heads[0][0] != push
    new_id, guard, anchors = heads[0]
    assert guard == "never deny\ncommand:git push --force" and anchors == ""
    last = json.dumps(results[3])
    assert new_id in last and "Force pushes are fine now" in last  # denied, quoting the new head
    history = box.agentctx("history", new_id).stdout
    assert "by mcp_tool" in history and "kept from " + push in history
