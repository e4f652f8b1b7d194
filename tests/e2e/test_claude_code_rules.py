"""The repository's own rule files and the REAL Claude Code CLI (pinned): a Cursor rule is delivered before the edit
it governs; a `.claude/rules` rule, which Claude Code loads itself, is not delivered again (issue 36).

The stand-in's HAND-WRITTEN model writes src/payments/charge.py (governed by `.cursor/rules/payments.mdc`), then
migrations/0001_init.sql (governed by `.claude/rules/migrations.md`). The tests read what agentctx's pre-action
hook printed for each Write, and what the model's requests carried.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from claude_sandbox import Sandbox, claude_bin
from messages_standin import MessagesStandIn, offers_tool

CLAUDE, WHY_NOT = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY_NOT)

CURSOR_RULE = ("---\ndescription: Payments amounts are integer cents\nglobs: src/payments/**\nalwaysApply: false\n"
               "---\nStore and compute every amount as integer cents, never floats.\n")
CLAUDE_RULE = '---\npaths:\n  - "migrations/**"\n---\n# Migrations\nNever edit a migration that was applied.\n'


def _tool_results(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages") or [] if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


def model_for(repo: str):
    steps = [("Write", {"file_path": f"{repo}/src/payments/charge.py", "content": "AMOUNT = 100\n"}),
             ("Write", {"file_path": f"{repo}/migrations/0001_init.sql", "content": "CREATE TABLE t (id int);\n"})]

    def model(body: dict[str, Any]) -> list[dict[str, Any]]:
        """HAND-WRITTEN: one Write per request, in order, then a closing text."""
        done = _tool_results(body)
        if done < len(steps) and offers_tool(body, steps[done][0]):
            name, args = steps[done]
            return [{"type": "tool_use", "id": f"toolu_standin_rules{done}", "name": name, "input": args}]
        return [{"type": "text", "text": "Done."}]
    return model


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = Sandbox(tmp_path_factory.mktemp("claude-rules"), str(CLAUDE))
    for rel, text in ((".cursor/rules/payments.mdc", CURSOR_RULE), (".claude/rules/migrations.md", CLAUDE_RULE)):
        path = box.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    box.agentctx("init")
    box.agentctx("config", "set", "llm", "false")
    box.agentctx("rules", "sync")
    with MessagesStandIn(model_for(str(box.repo))) as api:
        run = box.run("Set the charge amount and add the first migration", api.base_url, allowed=("Write",))
        bodies = api.message_bodies()
    return {"box": box, "run": run, "bodies": bodies}


def test_the_run_succeeds_and_both_files_are_written(world):
    run = world["run"]
    assert run.returncode == 0, run.stderr
    assert all(r["exit_code"] == 0 for r in run.hook_responses("PreToolUse"))
    assert (world["box"].repo / "src/payments/charge.py").exists()
    assert (world["box"].repo / "migrations/0001_init.sql").exists()


def test_agentctx_delivers_the_cursor_rule_and_not_the_claude_rule(world):
    printed = json.dumps([r.get("output") for r in world["run"].hook_responses("PreToolUse")])
    assert "integer cents, never floats" in printed and ".cursor/rules/payments.mdc" in printed
    assert "Never edit a migration" not in printed  # Claude Code loads .claude/rules itself
    after_first = json.dumps(next(b for b in world["bodies"] if _tool_results(b) == 1)["messages"])
    assert "integer cents, never floats" in after_first
