"""Delivery at the read (issue 43): the agent reads the file it is about to change, and the record anchored to it goes
out with what the read returns, so it is in the request the model answers with the edit; once per session, so the
edit that follows gets nothing more; a guard on a path never stops a read."""

import io
import json
import sys

from agentctx.base import guards
from agentctx.base.project import detect
from agentctx.hooks import action, run
from agentctx.memory import consolidate
from agentctx.store import records

from hookcases import payload as _payload
from hookcases import pending as _pending



def _cents(add, repo):
    rec = add("Payments use integer cents", "Amounts in src/payments are integer cents, never floats.",
              anchors=("path:src/payments/**",))
    consolidate.run(detect(repo))
    return rec


def test_a_read_of_an_anchored_file_delivers_and_the_edit_after_it_gets_nothing(add, repo, hook):
    rec = _cents(add, repo)
    out = hook("pre-tool-use", _payload(repo, "Read", {"file_path": str(repo / "src/payments/charge.py")}))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert rec.id in text and "integer cents, never floats" in text
    assert "permissionDecision" not in out["hookSpecificOutput"]
    assert [r["record_ids"] for r in _pending() if r["event"] == "PreToolUse"] == [[rec.id]]
    edit = _payload(repo, "Edit", {"file_path": str(repo / "src/payments/charge.py"), "old_string": "1.0",
                                   "new_string": "100"})
    assert hook("pre-tool-use", edit) is None  # it reached the model with the file: not again
    assert hook("pre-tool-use", _payload(repo, "NotebookRead", {"notebook_path": "src/payments/a.ipynb"},
                                         session="s2"))


def test_grep_and_glob_deliver_only_for_one_file(add, repo, hook):
    rec = _cents(add, repo)
    (repo / "src/payments").mkdir(parents=True)
    (repo / "src/payments/charge.py").write_text("AMOUNT = 1\n")
    assert hook("pre-tool-use", _payload(repo, "Grep", {"pattern": "AMOUNT", "path": "src/payments"})) is None
    assert hook("pre-tool-use", _payload(repo, "Glob", {"pattern": "**/*.py", "path": "src/payments/*"})) is None
    out = hook("pre-tool-use", _payload(repo, "Grep", {"pattern": "AMOUNT", "path": str(repo / "src/payments/charge.py")}))
    assert rec.id in out["hookSpecificOutput"]["additionalContext"]


def test_a_path_guard_never_stops_a_read_but_a_read_tool_guard_does(add, conn, repo, hook):
    rec = add("Migrations are append-only", "Never edit a migration that shipped.", anchors=("path:migrations/**",))
    pid = detect(repo).id
    records.set_guard(conn, rec.id, pid, guards.make("never", ["path:migrations/**"], "deny"))
    consolidate.run(detect(repo))
    read = hook("pre-tool-use", _payload(repo, "Read", {"file_path": "migrations/0001.sql"}))
    assert "permissionDecision" not in read["hookSpecificOutput"]  # delivered, not stopped
    assert rec.id in read["hookSpecificOutput"]["additionalContext"]
    edit = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "migrations/0001.sql"}))
    assert edit["hookSpecificOutput"]["permissionDecision"] == "deny"
    other = add("No reading secrets", "Secrets stay unread.")
    records.set_guard(conn, other.id, pid, guards.make("never", ["tool:Read"], "deny"))
    consolidate.run(detect(repo))
    out = hook("pre-tool-use", _payload(repo, "Read", {"file_path": "README.md"}, session="s9"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_target_of_reads():
    root = "/r"
    t = action.target_of("Read", {"file_path": "/r/src/a.py"}, root, root)
    assert t.read == ("src/a.py",) and not t.paths and not t.command
    assert action.target_of("Read", {"file_path": "/elsewhere/a.py"}, root, root).read == ()
    assert not action.target_of("Edit", {"file_path": "/r/src/a.py"}, root, root).read


def _gemini(event, payload, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    assert run([event, "--agent", "gemini"]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if out.strip() else None


def test_gemini_delivers_a_read_from_after_tool(add, repo, capsys, monkeypatch):
    rec = _cents(add, repo)
    call = {"session_id": "g1", "cwd": str(repo), "tool_name": "read_file",
            "tool_input": {"file_path": str(repo / "src/payments/charge.py")}}
    assert _gemini("pre-tool-use", {**call, "hook_event_name": "BeforeTool"}, capsys, monkeypatch) is None
    out = _gemini("post-tool-use", {**call, "hook_event_name": "AfterTool",
                                    "tool_response": {"llmContent": "AMOUNT = 1", "returnDisplay": ""}},
                  capsys, monkeypatch)
    assert out["hookSpecificOutput"]["hookEventName"] == "AfterTool"
    assert rec.id in out["hookSpecificOutput"]["additionalContext"]
    many = {**call, "session_id": "g2", "tool_name": "read_many_files",
            "tool_input": {"include": ["src/payments/refund.py", "docs/**/*.md"]}}
    _gemini("pre-tool-use", {**many, "hook_event_name": "BeforeTool"}, capsys, monkeypatch)
    assert [r["record_ids"] for r in _pending() if r["event"] == "PreToolUse"][-1] == [rec.id]


def test_gemini_logs_nothing_for_a_tool_after_tool_does_not_cover(add, repo, capsys, monkeypatch):
    add("No web", "Docs are vendored.", anchors=("tool:web_fetch",))
    consolidate.run(detect(repo))
    call = {"session_id": "g3", "cwd": str(repo), "hook_event_name": "BeforeTool", "tool_name": "web_fetch",
            "tool_input": {"prompt": "x"}}
    assert _gemini("pre-tool-use", call, capsys, monkeypatch) is None
    assert not [r for r in _pending() if r["event"] == "PreToolUse"]
    assert action.delivered_ids("g3") == set()


def test_a_record_marked_before_stops_the_first_edit_once_and_the_same_call_goes_through(add, conn, repo, hook):
    from agentctx.memory import pending
    from agentctx.store import before, sessions

    rec = _cents(add, repo)
    pid = detect(repo).id
    assert hook("pre-tool-use", _payload(repo, "Write", {"file_path": "src/payments/new.py", "content": "x"},
                                         session="n0"))["hookSpecificOutput"].get("permissionDecision") is None
    before.set_mark(conn, pid, rec.id, True)  # off by default; marked, the map says so
    write = _payload(repo, "Write", {"file_path": "src/payments/new.py", "content": "AMOUNT = 1"}, session="n1",
                     tool_use_id="t1")
    out = hook("pre-tool-use", write)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "Payments use integer cents" in out["permissionDecisionReason"] and rec.id in out["permissionDecisionReason"]
    again = hook("pre-tool-use", {**write, "tool_use_id": "t2"})  # the identical retry: through, nothing more
    assert again is None
    changed = hook("pre-tool-use", _payload(repo, "Write", {"file_path": "src/payments/other.py", "content": "y"},
                                            session="n1"))
    assert changed is None  # the record reached the model with the stop: not again in this session
    read_first = _payload(repo, "Read", {"file_path": "src/payments/new.py"}, session="n2")
    assert "permissionDecision" not in hook("pre-tool-use", read_first)["hookSpecificOutput"]  # a read is not stopped
    assert hook("pre-tool-use", {**write, "session_id": "n2"}) is None  # it arrived with the read
    pending.drain_pending(conn)
    uses = sessions.record_uses(conn, pid)[rec.id]
    assert uses["stops"] == 1 and uses["retries"] == 1
    before.set_mark(conn, pid, rec.id, False)
    assert hook("pre-tool-use", {**write, "session_id": "n3"})["hookSpecificOutput"].get("permissionDecision") is None


def test_the_project_mark_covers_every_anchored_record_and_follows_supersession(add, conn, repo, hook):
    from agentctx.memory import anchormap
    from agentctx.store import before

    rec = _cents(add, repo)
    pid = detect(repo).id
    before.set_mark(conn, pid, before.PROJECT, True)
    assert all(e.get("before") for e in anchormap.build(conn, pid)["entries"])
    before.set_mark(conn, pid, before.PROJECT, False)
    before.set_mark(conn, pid, rec.id, True)
    _old, new = records.supersede(conn, rec.id, pid, body="Amounts are integer cents everywhere in src/payments.")
    assert [e["id"] for e in anchormap.build(conn, pid)["entries"] if e.get("before")] == [new.id]


def test_the_before_cli(add, repo, capsys, monkeypatch):
    from agentctx.cli import main

    monkeypatch.chdir(repo)
    rec = _cents(add, repo)
    assert main(["before", rec.id]) == 0 and "before: on" in capsys.readouterr().out
    assert main(["before", rec.id, "--off", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"id": rec.id, "before": False}
    assert main(["before"]) != 0
    assert main(["before", "--project"]) == 0


def test_shell_lines_that_read_or_change_a_file_are_reads_and_edits(add, conn, repo, hook):
    rec = _cents(add, repo)
    (repo / "src/payments").mkdir(parents=True)
    (repo / "src/payments/charge.py").write_text("AMOUNT = 1.0\n")
    for i, line in enumerate(["sed -i 's/1.0/100/' src/payments/charge.py", "echo 1 >> src/payments/charge.py",
                              "cat > src/payments/new.py <<'EOF'\nAMOUNT = 1\nEOF", "sed -n 1,200p src/payments/charge.py",
                              "nl -ba src/payments/charge.py | head -50", "rg -n AMOUNT src/payments/charge.py",
                              "git diff HEAD -- src/payments/charge.py", "cd src && cat payments/charge.py"]):
        out = hook("pre-tool-use", _payload(repo, "Bash", {"command": line}, session=f"sh{i}"))
        assert out and rec.id in out["hookSpecificOutput"]["additionalContext"], line
    for i, line in enumerate(["rg -n AMOUNT src/", "cat src/other.py", "echo src/payments/charge.py",
                              "sed -n 1p $F", "cat src/payments/*.py"]):
        assert hook("pre-tool-use", _payload(repo, "Bash", {"command": line}, session=f"no{i}")) is None, line
    guarded = add("Shipped migrations are frozen", "Never edit a shipped migration.", anchors=("path:migrations/**",))
    records.set_guard(conn, guarded.id, detect(repo).id, guards.make("never", ["path:migrations/**"], "deny"))
    consolidate.run(detect(repo))
    (repo / "migrations").mkdir()
    (repo / "migrations/0001.sql").write_text("create table t (id int);\n")
    edit = hook("pre-tool-use", _payload(repo, "Bash", {"command": "sed -i 's/int/bigint/' migrations/0001.sql"}))
    assert edit["hookSpecificOutput"]["permissionDecision"] == "deny"
    read = hook("pre-tool-use", _payload(repo, "Bash", {"command": "cat migrations/0001.sql"}, session="r1"))
    assert "permissionDecision" not in read["hookSpecificOutput"]
    copy = hook("pre-tool-use", _payload(repo, "Bash", {"command": "cat migrations/0001.sql > /tmp/x.sql"},
                                         session="r2"))
    assert "permissionDecision" not in copy["hookSpecificOutput"]  # it reads the migration, writes elsewhere


def test_hostile_shell_lines_are_bounded(add, repo, hook):
    import time

    _cents(add, repo)
    lines = ["cat " + "'" * 200_000, "echo $(" * 5000 + "x", "cat <<EOF\n" + "a\n" * 100_000,
             "sed -n 1p " + "src/payments/a.py " * 20_000, "x" * 10 * 1024 * 1024, "bash -c '" * 3000]
    for i, line in enumerate(lines):
        start = time.perf_counter()
        hook("pre-tool-use", _payload(repo, "Bash", {"command": line}, session=f"h{i}"))  # exit 0, valid output
        assert time.perf_counter() - start < 2.0
