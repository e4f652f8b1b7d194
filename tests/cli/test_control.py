"""agentctx on/off, mode opt-in, excludedPaths and notify: through the CLI, the hooks as Claude Code runs them
(a subprocess with JSON on stdin) and the MCP tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agentctx.base import control, paths
from agentctx.mcp.server import make_context
from agentctx.mcp.tools import call

from .conftest import make_project


def hook(event: str, payload: dict) -> dict | None:
    """One hook exactly as Claude Code runs it: a process, the payload on stdin, exit status 0."""
    done = subprocess.run([sys.executable, "-m", "agentctx", "hook", event], input=json.dumps(payload),
                          capture_output=True, text=True, env=dict(os.environ), timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    return json.loads(done.stdout) if done.stdout.strip() else None


@pytest.fixture
def remembered(in_p, proj_p):
    """Project P with two records and a digest (what consolidation leaves behind)."""
    assert in_p("record", "--type", "decision", "--title", "Storage engine",
                "--body", "We keep records in sqlite with WAL and a busy timeout.").rc == 0
    assert in_p("record", "--type", "convention", "--title", "Test layout",
                "--body", "Tests mirror the package layout under tests/.").rc == 0
    assert in_p("consolidate").rc == 0
    return proj_p


def start(root, source="startup", session="s1"):
    return hook("session-start", {"session_id": session, "cwd": str(root), "source": source,
                                  "hook_event_name": "SessionStart"})


def prompt(root, text="sqlite storage engine with WAL", session="s1"):
    return hook("user-prompt-submit", {"session_id": session, "cwd": str(root), "prompt": text,
                                       "hook_event_name": "UserPromptSubmit"})


FAILING_TEST = {"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "pytest -q"},
                "tool_response": {"stdout": "FAILED tests/test_x.py::test_y - assert 1 == 2\n1 failed in 0.1s",
                                  "stderr": "", "interrupted": False}}


def ledger_lines() -> list[str]:
    try:
        return paths.pending_ledger_file() and open(paths.pending_ledger_file(), encoding="utf-8").read().splitlines()
    except OSError:
        return []


def test_on_by_default_with_a_notice_at_session_start(remembered):
    out = start(remembered)
    assert "Storage engine" in out["hookSpecificOutput"]["additionalContext"]
    # The first notice also says, once, that no extraction backend is there (no key, no Claude Code CLI here).
    assert out["systemMessage"].startswith("agentctx: 2 records for this project · nothing extracted from sessions")
    assert out["systemMessage"].endswith(" · `agentctx why`")
    # The digest listed the decision as one line: a prompt about it brings its body, once (issue 34 keeps only the
    # handover and the profile out of the prompt); another session's prompt gets it too.
    assert prompt(remembered)["hookSpecificOutput"]["additionalContext"].startswith("Relevant project context")
    assert prompt(remembered) is None
    assert prompt(remembered, session="s0")["hookSpecificOutput"]["additionalContext"].startswith("Relevant project context")


def test_new_since_last_session_counts_records_written_after_the_previous_start(remembered, in_p):
    start(remembered)
    assert in_p("record", "--type", "decision", "--title", "Queue choice", "--body", "We use a plain table as queue.").rc == 0
    assert in_p("consolidate").rc == 0
    out = start(remembered, session="s2")
    assert out["systemMessage"] == "agentctx: 3 records for this project · 1 new since your last session · `agentctx why`"
    # Nothing written since: no "0 new" (issue 26, item 8).
    assert start(remembered, session="s3")["systemMessage"] == "agentctx: 3 records for this project · `agentctx why`"
    # A compaction is not a new session for the user: context comes back, no notice.
    again = start(remembered, source="compact", session="s2")
    assert "systemMessage" not in again and again["hookSpecificOutput"]["additionalContext"]


def test_notify_levels(remembered, in_p):
    assert "systemMessage" not in prompt(remembered)  # brief: only the session-start line
    assert in_p("config", "set", "notify", "full").rc == 0
    out = prompt(remembered, session="s9")
    assert out["systemMessage"].startswith("agentctx: 1 record added to context: Storage engine")
    full = start(remembered, session="s9")
    assert "tokens loaded" in full["systemMessage"]
    assert in_p("config", "set", "notify", "off").rc == 0
    quiet = start(remembered, session="s10")
    assert "systemMessage" not in quiet and "Storage engine" in quiet["hookSpecificOutput"]["additionalContext"]
    assert "systemMessage" not in prompt(remembered, "storage engine sqlite WAL again", session="s11")


def test_off_stops_every_hook_and_deletes_nothing(remembered, in_p, run):
    before = ledger_lines()
    r = in_p("off")
    assert r.rc == 0 and "agentctx is off for app-p" in r.out and "records stay" in r.out
    out = start(remembered)
    assert out == {"systemMessage": "agentctx: off for this project (`agentctx on` turns it back on); "
                                    "nothing is loaded or captured"}
    assert prompt(remembered) is None
    # Capture: a failing test command would write a bugfix stub; off, it writes nothing.
    assert hook("post-tool-use", FAILING_TEST | {"cwd": str(remembered)}) is None
    assert hook("pre-compact", {"session_id": "s1", "cwd": str(remembered), "trigger": "auto"}) is None
    assert hook("session-end", {"session_id": "s1", "cwd": str(remembered), "reason": "other"}) is None
    assert ledger_lines() == before  # nothing recorded while off
    status = json.loads(in_p("status", "--json").out)
    assert status["control"]["enabled"] is False and status["control"]["reason"] == "off"
    assert status["records_total"] == 2  # nothing deleted, nothing captured
    assert "off for this project" in in_p("status").out
    assert in_p("on").rc == 0
    assert "Storage engine" in start(remembered)["hookSpecificOutput"]["additionalContext"]
    hook("post-tool-use", FAILING_TEST | {"cwd": str(remembered)})  # on again: the same payload is captured
    import time

    deadline = time.time() + 15  # by the hook's detached child, after its answer (off the agent's path)
    while time.time() < deadline and json.loads(in_p("status", "--json").out)["records"].get("bugfix") != 1:
        time.sleep(0.1)
    assert json.loads(in_p("status", "--json").out)["records"]["bugfix"] == 1


def test_stop_spawns_no_extraction_while_off(remembered, in_p, monkeypatch, tmp_path):
    from agentctx.hooks import Payload, lifecycle

    spawned = []
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setattr(lifecycle, "_llm_on", lambda: True)  # as with [llm] installed (the core run has no extra)
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: spawned.append(argv))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    payload = Payload(session_id="s1", transcript_path=str(transcript), cwd=str(remembered))
    in_p("off")
    lifecycle.stop(payload)
    lifecycle.session_end(payload)
    assert spawned == []
    in_p("on")
    lifecycle.stop(payload)
    lifecycle.session_end(payload)
    assert [a[a.index("agentctx") + 1] for a in spawned] == ["extract", "consolidate"]


def test_off_all_and_on_all(remembered, in_p, run, proj_q):
    assert in_p("off", "--all").rc == 0
    assert start(remembered)["systemMessage"].startswith("agentctx: off for every project")
    q = run("-C", proj_q, "off")
    assert q.rc == 0
    r = in_p("on", "--all", "--json")
    assert json.loads(r.out) == {"all": True, "on": True, "cleared": ["app-q"]}
    assert "Storage engine" in start(remembered)["hookSpecificOutput"]["additionalContext"]
    assert control.off_projects() == []


def test_mcp_tools_answer_off(remembered, in_p):
    ctx = make_context({}, cwd=str(remembered))
    assert call(ctx, "ctx_search", {"query": "sqlite"}).is_error is False
    in_p("off")
    result = call(ctx, "ctx_search", {"query": "sqlite"})  # the same running server: the switch applies at once
    assert result.is_error is True
    assert result.structured["off"] == "off"
    assert result.structured["error"].startswith("agentctx is off for this project")
    assert call(ctx, "ctx_record", {"type": "decision", "title": "t", "body": "b"}).is_error is True
    ctx.close()


def test_opt_in_mode_remembers_only_projects_that_said_on_or_carry_the_marker(remembered, in_p, run, tmp_path):
    assert in_p("config", "set", "mode", "opt-in").rc == 0
    assert start(remembered) is None  # silent: the user never turned this project on
    assert prompt(remembered) is None
    assert json.loads(in_p("status", "--json").out)["control"]["reason"] == "opt-in"
    assert in_p("on").rc == 0
    assert "Storage engine" in start(remembered)["hookSpecificOutput"]["additionalContext"]
    in_p("off")
    # A repository can opt itself in with a committed marker file.
    other = make_project(tmp_path / "marked", "git@github.com:Org/Marked.git")
    (other / ".agentctx").mkdir()
    (other / "sub").mkdir()
    assert control.check("any-id", str(other / "sub"))[0] == "opt-in"
    (other / ".agentctx" / "enabled").write_text("")
    assert control.check("any-id", str(other / "sub"))[0] is None
    assert json.loads(run("-C", other, "status", "--json").out)["control"]["enabled"] is True


def test_excluded_paths(remembered, in_p, tmp_path):
    assert in_p("config", "set", "excludedPaths", f"{tmp_path}/app-*, ~/clients/**").rc == 0
    assert json.loads(in_p("config", "get", "excludedPaths", "--json").out) == [f"{tmp_path}/app-*", "~/clients/**"]
    assert start(remembered) is None and prompt(remembered) is None
    assert json.loads(in_p("status", "--json").out)["control"]["reason"] == "excluded"
    r = in_p("on")
    assert r.rc == 64 and "matches excludedPaths" in r.err
    assert in_p("config", "set", "excludedPaths", "").rc == 0
    assert "Storage engine" in start(remembered)["hookSpecificOutput"]["additionalContext"]


def test_config_rejects_bad_control_values(in_p):
    assert in_p("config", "set", "mode", "sometimes").rc == 65
    assert in_p("config", "set", "notify", "loud").rc == 65
    assert in_p("config", "set", "excludedPaths", "[1, 2]").rc == 65
    assert in_p("config", "set", "excludedPaths", '["/a/*", "b"]').rc == 0


def test_a_hand_edited_config_is_read_leniently(remembered, in_p):
    cfg = paths.config_path()
    data = json.loads(cfg.read_text())
    data.update(mode="bogus", notify=7, excludedPaths="not a list")
    cfg.write_text(json.dumps(data))
    assert control.settings() == ("all", (), "brief")
    cfg.write_text("{broken")
    assert control.settings() == ("all", (), "brief")
    assert start(remembered)["systemMessage"].startswith("agentctx: 2 records")


@pytest.mark.parametrize("pattern,path,hit", [
    ("/w/clients/*", "/w/clients/acme/src", True),
    ("/w/clients/*", "/w/clientsX/acme", False),
    ("/w/**/secret", "/w/a/b/secret/x", True),
    ("/w/**/secret", "/w/secret", True),
    ("client-?", "/home/u/client-7/repo", True),
    ("client-?", "/home/u/client-77/repo", False),
    ("/w/a", "/w/ab", False),
    ("/w/*-data", "/w/acme-data", True),
])
def test_glob(pattern, path, hit, monkeypatch):
    monkeypatch.setattr(os.path, "realpath", lambda p: p)
    assert (control.excluded_by([pattern], path) is not None) is hit
