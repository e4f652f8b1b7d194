"""The repository's own rule files reach the REAL Codex CLI (pinned) before the edit they govern (issue 36).

The repository keeps a Cursor rule (`.cursor/rules/payments.mdc`, globs with braces) and a Claude Code rule
(`.claude/rules/migrations.md`, `paths`): formats Codex never reads. `agentctx consolidate` reads them as records;
the stand-in's HAND-WRITTEN model then adds src/payments/charge.py with apply_patch, and edits README.md (governed
by neither). The tests check what the model's next request carried after each call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import agentctx, hooks_log, prepare
from codex_sandbox import CodexSandbox, codex_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

CURSOR_RULE = ("---\ndescription: Payments amounts are integer cents\nglobs: src/payments/**/*.{py,pyi}\n"
               "alwaysApply: false\n---\nStore and compute every amount as integer cents, never floats.\n")
CLAUDE_RULE = '---\npaths:\n  - "migrations/**"\n---\n# Migrations\nNever edit a migration that was applied.\n'
PATCHES = ["*** Begin Patch\n*** Add File: src/payments/charge.py\n+AMOUNT = 100\n*** End Patch\n",
           "*** Begin Patch\n*** Add File: README.md\n+# Shop\n*** End Patch\n"]
HEADER = "agentctx: project memory about what this tool call touches"


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """HAND-WRITTEN: two apply_patch calls, one per request, then a closing text."""
    done = len(_outputs(body))
    if done < len(PATCHES) and offers_tool(body, "apply_patch"):
        return [{"type": "custom_tool_call", "name": "apply_patch", "input": PATCHES[done]}]
    return [{"type": "text", "text": "Done."}]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-rules"), str(CODEX))
    prepare(box, str(CODEX))
    for rel, text in ((".cursor/rules/payments.mdc", CURSOR_RULE), (".claude/rules/migrations.md", CLAUDE_RULE)):
        path = box.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    with ResponsesStandIn(model) as api:
        box.configure(api.base_url, mcp=False, model="gpt-5.5")
        agentctx(box, "init", "--agent", "codex")
        agentctx(box, "config", "set", "llm", "false")
        agentctx(box, "consolidate")
        rules = json.loads(agentctx(box, "rules", "--json"))["rules"]
        run = box.run("Set the charge amount and add a readme", trust_hooks=False)
        bodies = api.response_bodies()
    return {"box": box, "run": run, "bodies": bodies, "rules": {r["path"]: r for r in rules}}


def _after(bodies: list[dict[str, Any]], n: int) -> dict[str, Any]:
    return next(b for b in bodies if len(_outputs(b)) == n)


def test_consolidation_read_both_formats(world):
    rules = world["rules"]
    assert rules[".cursor/rules/payments.mdc"]["anchors"] == ["path:src/payments/**/*.py", "path:src/payments/**/*.pyi"]
    assert rules[".claude/rules/migrations.md"]["native_agents"] == ["claude", "copilot"]


def test_the_run_succeeds_and_no_hook_fails(world):
    assert world["run"].returncode == 0, world["run"].stderr
    assert hooks_log(world["box"]) == ""
    assert (world["box"].repo / "src/payments/charge.py").exists()


def test_the_cursor_rule_reaches_codex_before_the_edit_it_governs(world):
    first = json.dumps(input_items(_after(world["bodies"], 1)))
    assert HEADER in first and "integer cents, never floats" in first and ".cursor/rules/payments.mdc" in first
    assert "Never edit a migration" not in first  # governs migrations/, not this file
    second = json.dumps(input_items(_after(world["bodies"], 2)))
    assert second.count(HEADER) == first.count(HEADER)  # README.md: governed by no rule, nothing delivered
