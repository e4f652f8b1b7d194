"""Smoke test of the Codex CLI contract agentctx's adapter will rely on (vendor-notes/codex-cli.md), with the REAL
`codex` (pinned, from npm) against a local Responses API stand-in and a trivial log hook (tests/e2e/log_hook.py).

One `codex exec` run (about 1-3 s) asks the scripted model to create a branch, which it does with a shell call; the
tests then read what the hooks were given, what reached the model, the transcript and the repository. A second
pair of runs shows hook trust: a hook nobody trusted is skipped without a word, and runs once its hash is stored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_sandbox import CodexSandbox, Run, codex_bin, hooks_json
from log_hook import marker
from openai_standin import ResponsesStandIn, ends_with_tool_output, messages, offers_tool

CODEX, WHY_NOT = codex_bin()
pytestmark = pytest.mark.skipif(CODEX is None, reason=WHY_NOT)

PROMPT = "Please create the branch feature/codex-smoke"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    box = CodexSandbox(tmp_path_factory.mktemp("codex-smoke"), str(CODEX))
    with ResponsesStandIn() as api:
        box.configure(api.base_url, hooks=hooks_json())
        run = box.run(PROMPT)
        bodies = api.response_bodies()
        requests = list(api.requests)
    return {"box": box, "run": run, "bodies": bodies, "requests": requests}


def test_the_run_succeeds_against_the_stand_in(world):
    run: Run = world["run"]
    assert run.returncode == 0, run.stderr
    assert [m["text"] for m in run.items("agent_message")] == ["Running it.", "Done: the command ran."]
    # one request per model turn, all to POST /v1/responses, carrying the dummy key as a bearer token
    assert [(m, p) for m, p, _, _ in world["requests"]] == [("POST", "/v1/responses")] * 2
    assert all(h["authorization"] == "Bearer sk-standin-not-a-key" for _, _, h, _ in world["requests"])
    assert all(b["stream"] is True and b["model"] == "gpt-standin" for b in world["bodies"])


def test_session_start_and_the_prompt_hook_get_the_documented_fields(world):
    box: CodexSandbox = world["box"]
    (start,) = box.hook_calls("SessionStart")
    (prompt,) = box.hook_calls("UserPromptSubmit")
    session = world["run"].thread_id
    s, p = start["stdin"], prompt["stdin"]
    assert s["hook_event_name"] == "SessionStart" and s["source"] == "startup" and s["session_id"] == session
    assert s["cwd"] == str(box.repo) and start["cwd"] == str(box.repo)
    assert {"model", "permission_mode", "transcript_path"} <= set(s)
    assert p["hook_event_name"] == "UserPromptSubmit" and p["prompt"] == PROMPT and p["session_id"] == session
    assert p["turn_id"] and p["transcript_path"] == s["transcript_path"]
    # the hook inherits Codex's environment (AGENTCTX_HOME included)
    assert "AGENTCTX_HOME" in start["env"]


def test_added_context_reaches_the_model_as_developer_messages(world):
    first = world["bodies"][0]
    developer = messages(first, "developer")
    assert marker("SessionStart") in developer and marker("UserPromptSubmit") in developer
    # in input order: the SessionStart context, then the prompt, then the prompt hook's context
    texts = [(i.get("role"), (i.get("content") or [{}])[0].get("text")) for i in first["input"]]
    order = [texts.index(("developer", marker("SessionStart"))), texts.index(("user", PROMPT)),
             texts.index(("developer", marker("UserPromptSubmit")))]
    assert order == sorted(order)
    # the next request of the turn carries them again (history), and PostToolUse's context before the tool output
    second = world["bodies"][1]
    kinds = [(i.get("type"), i.get("role")) for i in second["input"]]
    post = [n for n, i in enumerate(second["input"]) if i.get("role") == "developer"
            and (i.get("content") or [{}])[0].get("text") == marker("PostToolUse")]
    assert post and kinds[post[0] + 1] == ("function_call_output", None)


def test_the_shell_call_runs_and_post_tool_use_sees_its_output(world):
    box: CodexSandbox = world["box"]
    assert box.git("branch", "--show-current").strip() == "feature/codex-smoke"
    (pre,) = box.hook_calls("PreToolUse")
    (post,) = box.hook_calls("PostToolUse")
    assert pre["stdin"]["tool_name"] == post["stdin"]["tool_name"] == "Bash"  # Codex names its shell tool Bash
    assert post["stdin"]["tool_input"] == {"command": "git checkout -b feature/codex-smoke"}
    assert "Switched to a new branch 'feature/codex-smoke'" in post["stdin"]["tool_response"]  # a plain string
    assert post["stdin"]["tool_use_id"] == pre["stdin"]["tool_use_id"]
    (shell,) = world["run"].items("command_execution")
    assert shell["exit_code"] == 0


def test_stop_and_session_end_run_once(world):
    box: CodexSandbox = world["box"]
    (stop,) = box.hook_calls("Stop")
    (end,) = box.hook_calls("SessionEnd")
    assert stop["stdin"]["last_assistant_message"] == "Done: the command ran."
    assert stop["stdin"]["stop_hook_active"] is False
    assert end["stdin"]["reason"] == "other"  # what `codex exec` reports at its end
    assert [c["event"] for c in box.hook_calls()] == ["SessionStart", "UserPromptSubmit", "PreToolUse",
                                                      "PostToolUse", "Stop", "SessionEnd"]


def test_the_mcp_server_in_config_is_offered_to_the_model(world):
    tools = world["bodies"][0]["tools"]
    (namespace,) = [t for t in tools if t.get("type") == "namespace" and t.get("name") == "mcp__agentctx"]
    names = {t["name"] for t in namespace["tools"]}
    assert {"ctx_search", "ctx_get", "ctx_record", "ctx_project"} <= names
    assert "agentctx" in namespace["description"]  # the server's `instructions`


def test_the_transcript_is_the_rollout_jsonl_the_hooks_name(world):
    box: CodexSandbox = world["box"]
    path = Path(box.hook_calls("SessionStart")[0]["stdin"]["transcript_path"])
    assert path.is_file() and path.is_relative_to(box.home / ".codex" / "sessions")
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert lines[0]["type"] == "session_meta" and lines[0]["payload"]["id"] == world["run"].thread_id
    items = [ln["payload"] for ln in lines if ln["type"] == "response_item"]
    assert any(i.get("role") == "user" and PROMPT in json.dumps(i) for i in items)
    assert any(i.get("type") == "function_call" and "git checkout -b feature/codex-smoke" in i["arguments"]
               for i in items)
    assert any(i.get("type") == "function_call_output" for i in items)


def test_an_untrusted_hook_is_skipped_until_its_hash_is_trusted(tmp_path):
    box = CodexSandbox(tmp_path, str(CODEX))
    with ResponsesStandIn() as api:
        box.configure(api.base_url, hooks=hooks_json(("SessionStart",)), mcp=False)
        untrusted = box.run("hello", trust_hooks=False)
        assert untrusted.returncode == 0 and box.hook_calls() == []  # no hook ran, and nothing said why
        (hook,) = box.trust_hooks()
        assert hook["trustStatus"] == "untrusted" and hook["eventName"] == "sessionStart"
        assert hook["key"] == f"{box.codex_home / 'hooks.json'}:session_start:0:0"
        assert hook["timeoutSec"] == 30 and hook["currentHash"].startswith("sha256:")
        trusted = box.run("hello", trust_hooks=False)
        assert trusted.returncode == 0 and [c["event"] for c in box.hook_calls()] == ["SessionStart"]
        assert marker("SessionStart") in messages(api.response_bodies()[-1], "developer")
    assert f'trusted_hash = "{hook["currentHash"]}"' in (box.codex_home / "config.toml").read_text("utf-8")


PATCH = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello\n*** End Patch\n"


def _patching_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    if ends_with_tool_output(body):
        return [{"type": "text", "text": "Done."}]
    if offers_tool(body, "apply_patch"):
        return [{"type": "custom_tool_call", "name": "apply_patch", "input": PATCH}]
    return [{"type": "text", "text": "no apply_patch offered"}]


def test_an_apply_patch_edit_reaches_post_tool_use_as_patch_text(tmp_path):
    box = CodexSandbox(tmp_path, str(CODEX))
    with ResponsesStandIn(_patching_model) as api:
        box.configure(api.base_url, hooks=hooks_json(("PostToolUse",)), mcp=False, model="gpt-5.5")
        run = box.run("add a note")
        (apply_patch,) = [t for t in api.response_bodies()[0]["tools"] if t.get("name") == "apply_patch"]
    assert run.returncode == 0, run.stderr
    assert apply_patch["type"] == "custom"  # a freeform tool: the call carries raw text, not JSON arguments
    assert (box.repo / "notes" / "hello.txt").read_text("utf-8") == "hello\n"
    (post,) = box.hook_calls("PostToolUse")
    # no file_path: the edited files are only in the patch text ("*** Add File: ...")
    assert post["stdin"]["tool_name"] == "apply_patch" and post["stdin"]["tool_input"] == {"command": PATCH}
    assert "Success. Updated the following files:\nA notes/hello.txt" in post["stdin"]["tool_response"]
