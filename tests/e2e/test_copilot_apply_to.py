"""Which files a slash-free `applyTo` glob covers in the REAL Copilot CLI (pinned, offline, against the Responses
API stand-in; the model's answers are HAND-WRITTEN): issue 42, item 16 (vendor-notes/rule-files.md, 12). The model
reads a Markdown file below the root, then one at the root; the requests show after which read Copilot brought the
`*.md` instructions, which is what agentctx's stored anchor (`rulefmt.anchor_glob`) must match too."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_e2e import prepare
from copilot_sandbox import CopilotSandbox, copilot_bin
from openai_standin import ResponsesStandIn, input_items, offers_tool

COPILOT, WHY_NOT = copilot_bin()
pytestmark = pytest.mark.skipif(COPILOT is None, reason=WHY_NOT)
RULE = '---\napplyTo: "*.md"\n---\nWrap Markdown at one sentence per line (docs-wrap-rule).\n'


def _outputs(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in input_items(body) if str(i.get("type", "")).endswith("_call_output")]


def test_a_slash_free_apply_to_covers_what_the_stored_anchor_covers(tmp_path):
    from agentctx.base.anchors import path_matches
    from agentctx.outside import rulefmt

    box = CopilotSandbox(tmp_path / "box", str(COPILOT))
    prepare(box, str(COPILOT))
    (box.repo / ".github" / "instructions").mkdir(parents=True)
    (box.repo / ".github" / "instructions" / "docs.instructions.md").write_text(RULE, encoding="utf-8")
    (box.repo / "docs").mkdir()
    (box.repo / "docs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (box.repo / "NOTES.md").write_text("# Notes\n", encoding="utf-8")
    reads = [str(box.repo / "docs" / "guide.md"), str(box.repo / "NOTES.md")]

    def answer(body: dict[str, Any]) -> list[dict[str, Any]]:
        done = len(_outputs(body))
        if done < len(reads) and offers_tool(body, "view"):
            return [{"type": "function_call", "name": "view", "arguments": {"path": reads[done]}}]
        return [{"type": "text", "text": "Done."}]

    with ResponsesStandIn(answer) as api:
        box.configure(api.base_url)
        run = box.run("Read the two notes")
        bodies = api.response_bodies()
    assert run.returncode == 0, run.stderr
    after = {n: json.dumps(input_items(next(b for b in bodies if len(_outputs(b)) == n))) for n in (1, 2)}
    # Observed with 1.0.102: reading docs/guide.md brings the `*.md` instructions (a slash-free glob is any depth,
    # as VS Code's `**/` prefix has it), once; reading NOTES.md does not bring them again.
    assert "docs-wrap-rule" in after[1] and after[2].count("docs-wrap-rule") == after[1].count("docs-wrap-rule")
    (anchor,) = rulefmt.parse(".github/instructions/docs.instructions.md", RULE).anchors
    glob = anchor.split(":", 1)[1]
    assert path_matches(glob, "docs/guide.md") and path_matches(glob, "NOTES.md")
