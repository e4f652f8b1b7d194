"""`agentctx guard` and `agentctx stats`, `why` for an action-time delivery, and bad anchors through the CLI."""

from __future__ import annotations

import io
import json
import os
import sys

from agentctx.hooks import run as run_hook


def record(in_p, *extra, title="No force pushes", body="Never force-push shared branches.", type_="convention"):
    result = in_p("record", "--type", type_, "--title", title, "--body", body, *extra)
    assert result.rc == 0, result.err
    return result.out.strip()


def hook(monkeypatch, capsys, event, payload):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    capsys.readouterr()
    assert run_hook([event]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if out.strip() else None


def test_guard_never_then_off_and_show_says_so(in_p):
    rid = record(in_p)
    out = in_p("guard", rid, "--never", "command:git push --force")
    assert out.rc == 0 and "never (ask): command:git push --force" in out.out
    assert "Guard (enforced before an agent's action): never (ask)" in in_p("show", rid).out
    assert json.loads(in_p("guard", rid, "--never", "command:git push -f", "--deny", "--json").out)["guard"] == {
        "mode": "never", "decision": "deny", "patterns": ["command:git push -f"]}
    assert in_p("guard", rid, "--off").out.strip() == f"no guard on {rid}"
    assert "Guard" not in in_p("show", rid).out


def test_guard_refusals_are_one_line(in_p):
    rid = record(in_p)
    for argv in (["--never", "command:/(a+)+$/"], ["--never", "**"], ["--always", "command:make test"],
                 [], ["--off", "--never", "x"], ["--never", "../x"], ["--never", "symbol:A.b"]):
        result = in_p("guard", rid, *argv)
        assert result.rc != 0 and len(result.err.strip().splitlines()) == 1, (argv, result.err)
        assert "Traceback" not in result.err


def test_bad_anchors_through_the_cli_are_refused_in_one_line(in_p, proj_p):
    many = [a for i in range(10_000) for a in ("--anchor", f"src/m{i}/**")]
    cases = [["--anchor", "/etc/passwd"], ["--anchor", "src/../../x"], many, ["--anchor", "**"],
             ["--anchor", "command:/(a|aa)+$/"], ["--anchor", os.fsdecode(b"src/\xff\xfe.py")],
             ["--anchor", "*/*/*/*/*/*/*/*/*/*.py"]]
    for extra in cases:
        result = in_p("record", "--type", "convention", "--title", "T", "--body", "B", *extra)
        assert result.rc != 0 and len(result.err.strip().splitlines()) == 1, (extra[:2], result.err)
    ok = record(in_p, "--anchor", f"{proj_p}/src/payments/**")  # absolute but inside the repository
    assert "path:src/payments/**" in in_p("show", ok).out


def test_stats_and_why_after_an_action_time_delivery(in_p, proj_p, monkeypatch, capsys):
    rid = record(in_p, "--anchor", "src/payments/**", title="Cents", body="Amounts are integer cents.")
    gid = record(in_p)
    assert in_p("guard", gid, "--never", "command:git push --force").rc == 0
    assert in_p("consolidate").rc == 0  # the root cache the hook reads
    edit = {"session_id": "s1", "cwd": str(proj_p), "tool_name": "Edit", "tool_use_id": "t1",
            "tool_input": {"file_path": str(proj_p / "src/payments/a.py"), "old_string": "1.0", "new_string": "100"}}
    assert "Cents" in hook(monkeypatch, capsys, "pre-tool-use", edit)["hookSpecificOutput"]["additionalContext"]
    hook(monkeypatch, capsys, "post-tool-use", {**edit, "tool_response": {"success": True}})
    push = {"session_id": "s1", "cwd": str(proj_p), "tool_name": "Bash", "tool_use_id": "t2",
            "tool_input": {"command": "git push --force"}}
    assert hook(monkeypatch, capsys, "pre-tool-use", push)["hookSpecificOutput"]["permissionDecision"] == "ask"
    hook(monkeypatch, capsys, "post-tool-use", {**push, "tool_response": "ok"})  # the user let it through
    push3 = {**push, "tool_use_id": "t3"}
    hook(monkeypatch, capsys, "pre-tool-use", push3)  # asked again; declined: no post-tool-use
    get = {"session_id": "s1", "cwd": str(proj_p), "tool_name": "mcp__agentctx__ctx_get", "tool_input": {"ids": [rid]}}
    hook(monkeypatch, capsys, "post-tool-use", {**get, "tool_response": {}})
    stats = {r["id"]: r for r in json.loads(in_p("stats", "--json").out)["records"]}
    assert stats[rid]["actions"] == 1 and stats[rid]["acted"] == 1 and stats[rid]["fetched"] == 1
    assert stats[rid]["tokens"] > 0 and not stats[rid]["never_used"]
    assert stats[gid]["actions"] == 2 and stats[gid]["ignored"] == 1 and stats[gid]["followed"] == 1
    text = in_p("stats").out
    assert "Cents" in text and "[guard]" in text
    why = in_p("why").out
    assert "PreToolUse" in why and "before Edit of src/payments/a.py" in why and "matched path:src/payments/**" in why
    assert "guard: ask" in why and "PostToolUse/ignored" in why
