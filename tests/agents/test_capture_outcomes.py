"""How a shell call ended, as each agent tells it (issue 34, items 1 and 3): Claude Code sends a failure to
PostToolUseFailure; Gemini CLI says `Exit Code: N` inside AfterTool's llmContent (vendor-notes/gemini-cli.md fact 11);
Codex CLI's PostToolUse says nothing of it (vendor-notes/codex-cli.md fact 13). A failed `git switch -c` is never the
branch, and a successful `sed` of source text is never an error, through every adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentctx.agents import codex, gemini
from agentctx.base.project import detect
from agentctx.memory import capture, consolidate
from agentctx.store import records

SID = "01a235dd-2f1e-7c52-9a1b-0c1d2e3f4a5b"
DATA = Path(__file__).resolve().parents[1] / "data" / "capture"  # written by hand (its README.md)
SED = "sed -n '/def _make_cached_property_getattr/,/^def /p' src/attr/_make.py"
SWITCHED = "Switched to a new branch 'fix-filters-exclude'\n"
EXISTS = "fatal: a branch named 'fix-filters-exclude' already exists\n"  # git's own message


def _codex(repo, command, output):
    return {"session_id": SID, "transcript_path": None, "cwd": str(repo), "hook_event_name": "PostToolUse",
            "model": "gpt-5.5", "permission_mode": "bypassPermissions", "turn_id": "t1", "tool_name": "Bash",
            "tool_use_id": "call_1", "tool_input": {"command": command}, "tool_response": output}


def _gemini(repo, command, output, exit_code=0):
    llm = f"<untrusted_context>\nOutput: {output}\n" + (f"Exit Code: {exit_code}\n" if exit_code else "") + \
        "Process Group PGID: 4242\n</untrusted_context>"
    return {"session_id": SID, "transcript_path": "", "cwd": str(repo), "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command", "tool_input": {"command": command, "description": "run it"},
            "tool_response": {"llmContent": llm, "returnDisplay": output}}


def _call(agent, repo, command, output, exit_code):
    if agent == "codex":
        return _codex(repo, command, output)
    return _gemini(repo, command, output.rstrip("\n"), exit_code)


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_a_failed_switch_is_not_the_branch(agent, agent_hook, conn, repo):
    project = detect(repo)
    agent_hook(agent, "post-tool-use", _call(agent, repo, "git switch -c fix-filters-exclude", SWITCHED, 0))
    agent_hook(agent, "post-tool-use", _call(agent, repo, "git checkout -q main", "", 0))
    agent_hook(agent, "post-tool-use", _call(agent, repo, "git switch -c fix-filters-exclude", EXISTS, 128))
    log = capture.read_log(SID)
    assert [e["detail"] for e in log if e["kind"] == "branch"] == ["fix-filters-exclude", "main"]
    assert [e["detail"] for e in log if e["kind"] == "error"] == [EXISTS.strip()]
    consolidate.run(project, session_id=SID)
    (handover,) = records.current(conn, project.id, types=["handover"])
    assert "Branch: main" in handover.body


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_printing_source_text_is_not_an_error(agent, agent_hook, conn, repo):
    text = (DATA / "sed_make_cached_property_getattr.txt").read_text(encoding="utf-8")
    agent_hook(agent, "post-tool-use", _call(agent, repo, SED, text, 0))
    assert capture.read_log(SID) == []
    assert records.current(conn, detect(repo).id, types=["bugfix"]) == []


def test_gemini_maps_a_nonzero_exit_to_a_failed_call():
    data = gemini.payload("post-tool-use", _gemini("/r", "false", "", 1))
    assert data["error"] == "Exit code 1"
    data = gemini.payload("post-tool-use", _gemini("/r", "git switch -c x", EXISTS.strip(), 128))
    assert data["error"] == f"Exit code 128\n{EXISTS.strip()}" and data["tool_response"]["output"] == EXISTS.strip()
    ok = gemini.payload("post-tool-use", _gemini("/r", SED, "x = 1", 0))
    assert "error" not in ok and ok["tool_response"]["output"] == "x = 1"
    assert gemini.exit_code("Output: boom\nExit Code: 2") == 2 and gemini.exit_code("Exit Code: 3\nmore") == 3
    assert gemini.exit_code("Output: ok") == 0


def test_codex_says_a_shell_calls_outcome_is_unknown():
    assert codex.payload("post-tool-use", _codex("/r", "ls", "a\n"))["exit_unknown"] is True
    patch = codex.payload("post-tool-use", {**_codex("/r", "", ""), "tool_name": "apply_patch",
                                            "tool_input": {"command": "*** Begin Patch\n*** Add File: a\n"}})
    assert "exit_unknown" not in patch


def test_codex_still_reads_an_error_a_tool_printed_at_the_start_of_a_line(agent_hook, conn, repo):
    agent_hook("codex", "post-tool-use", _codex(repo, "cargo build", "error[E0425]: cannot find value `x`\n"))
    assert [e["detail"] for e in capture.read_log(SID)] == ["error[E0425]: cannot find value `x`"]
