"""Capture on a week's kind of work in python-attrs/attrs (issue 34, items 1-5): the session is reconstructed from that
week (its command lines and exit codes), with outputs written by hand in the shape git, pytest, Python and `sed`/`cat`
print them (tests/data/capture/README.md), fed to the hooks as Claude Code sends them.

The sequence: reads and `sed`/`cat` of source files, a chained branch switch, a failed switch, an edit that breaks a
test, failing and passing pytest runs, a traceback, a quiet commit and a commit with nothing to commit. What the
same check finds on a real attrs checkout: bench/capture.py (tests/test_bench_scripts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentctx.base.project import detect
from agentctx.memory import capture, consolidate, snapshot
from agentctx.store import records

DATA = Path(__file__).resolve().parents[2] / "data" / "capture"
SESSION = json.loads((DATA / "session.json").read_text(encoding="utf-8"))
SOURCE_OUTPUTS = sorted(p.name for p in DATA.glob("*.txt"))
FAILING_TEST = "tests/test_filters.py::TestExclude::test_drop_class[excl2-42]"


def _run(command: str) -> dict:
    (row,) = [r for r in SESSION if r["command"] == command][:1] or [None]
    assert row is not None, command
    return row


def claude_payload(row: dict, sid: str, cwd: str) -> tuple[str, dict]:
    """The hook event and stdin Claude Code gives a Bash call that ended as `row` did (vendor-notes fact 24)."""
    common = {"session_id": sid, "cwd": cwd, "tool_name": "Bash", "tool_use_id": "toolu_01",
              "tool_input": {"command": row["command"], "description": "run it"}}
    if row["exit_code"] == 0:
        return "PostToolUse", {**common, "hook_event_name": "PostToolUse",
                               "tool_response": {"stdout": row["stdout"], "stderr": row["stderr"],
                                                 "interrupted": False, "isImage": False}}
    error = "\n".join(p for p in (f"Exit code {row['exit_code']}", row["stderr"].rstrip(), row["stdout"].rstrip()) if p)
    return "PostToolUseFailure", {**common, "hook_event_name": "PostToolUseFailure", "error": error,
                                  "is_interrupt": False}


def _bash(hook, repo, sid: str, command: str) -> None:
    event, payload = claude_payload(_run(command), sid, str(repo))
    hook(event, payload)


@pytest.mark.parametrize("name", SOURCE_OUTPUTS)
def test_printing_source_is_never_an_error(name, hook, conn, repo):
    text = (DATA / name).read_text(encoding="utf-8")
    assert capture._ERROR.search(text), "the old rule read an error in this output: the case the fix is for"
    command = {"sed_make_cached_property_getattr.txt":
               "sed -n '/def _make_cached_property_getattr/,/^def /p' src/attr/_make.py"}.get(name, f"cat {name}")
    hook("PostToolUse", {"session_id": "s1", "cwd": str(repo), "tool_name": "Bash", "tool_input": {"command": command},
                         "tool_response": {"stdout": text, "stderr": "", "interrupted": False, "isImage": False}})
    assert records.current(conn, detect(repo).id, types=["bugfix"]) == []
    assert capture.read_log("s1") == []
    # Codex does not say how the call ended: indented source text is still not an error line
    assert capture.observe("Bash", {"command": command}, text, str(repo), failed=None) == []


def test_a_traceback_is_an_error_even_when_the_pipe_exits_0(hook, conn, repo):
    _bash(hook, repo, "s1", 'python -c "import attr; attr.fields(1)" 2>&1 | tail -5')
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.body.endswith("Observed: TypeError: fields() takes a record class or instance, not int.")
    _bash(hook, repo, "s1", 'python -c "import attr; attr.fields(1)"')  # exit 1: PostToolUseFailure
    assert [e["detail"] for e in capture.read_log("s1")] == ["TypeError: fields() takes a record class or "
                                                             "instance, not int."] * 2


def test_every_segment_of_a_chained_checkout_counts_and_the_last_switch_wins(hook, conn, repo):
    row = _run("git checkout main && git checkout -b fix-filters-exclude")
    assert row["stderr"] == "Already on 'main'\nSwitched to a new branch 'fix-filters-exclude'\n"
    _bash(hook, repo, "s1", row["command"])
    assert [(e["kind"], e["detail"]) for e in capture.read_log("s1")] == [("branch", "fix-filters-exclude")]


@pytest.mark.parametrize("command,branch", [
    ("git checkout main && git checkout -b topic", "topic"),
    ("git checkout main; git checkout -b topic", "topic"),
    ("git switch -c topic || git switch topic", "topic"),
    ("git fetch origin\ngit checkout -b topic origin/main", "topic"),
    ("git checkout -b topic && git checkout main", "main"),
])
def test_chained_commands_in_order(command, branch):
    said = {"topic": "Switched to a new branch 'topic'\n", "main": "Switched to branch 'main'\n"}
    output = "".join(said[b] for b in ("main", "topic") if b in command and not command.endswith(b)) + said[branch]
    (ob,) = [o for o in capture.observe("Bash", {"command": command}, {"stderr": output}, "/r") if o.kind == "branch"]
    assert ob.detail == branch


def test_a_failed_switch_is_not_the_branch_and_not_the_next_sessions_branch(hook, conn, repo):
    project = detect(repo)
    _bash(hook, repo, "s1", "git checkout -q main")
    _bash(hook, repo, "s1", "git switch -c fix-filters-exclude")  # exit 128: the branch exists already
    assert [(e["kind"], e["detail"]) for e in capture.read_log("s1")][0] == ("branch", "main")
    assert all(e["kind"] != "branch" or e["detail"] == "main" for e in capture.read_log("s1"))
    consolidate.run(project, session_id="s1")
    (handover,) = records.current(conn, project.id, types=["handover"])
    assert "Branch: main" in handover.body and "Branch: fix-filters-exclude" not in handover.body
    from agentctx.memory import digest

    text, _ = digest.read_carried(project.id)
    assert "Branch: main" in text and "Branch: fix-filters-exclude" not in text


def test_a_file_checkout_and_a_detached_head_are_no_branch(hook, conn, repo):
    _bash(hook, repo, "s1", "git checkout src/attr/filters.py")
    assert capture.observe("Bash", {"command": "git checkout 25.4.0"},
                           {"stderr": "Note: switching to '25.4.0'.\n\nYou are in 'detached HEAD' state."}, "/r") == []
    assert capture.read_log("s1") == []


def test_a_failing_test_keeps_its_id_and_its_stub_resolves_when_the_command_passes(hook, conn, repo):
    project = detect(repo)
    failing = "python -m pytest tests/test_filters.py -q -p no:cacheprovider"
    rows = [r for r in SESSION if r["command"] == failing]
    assert [r["exit_code"] for r in rows] == [0, 1, 0]  # before the edit, with it, after the fix
    for row, expect in ((rows[1], "failed"), (rows[2], "passed")):
        event, payload = claude_payload(row, "s1", str(repo))
        hook(event, payload)
        assert capture.read_log("s1")[-1]["outcome"] == expect
        if expect == "failed":
            (stub,) = records.current(conn, project.id, types=["bugfix"])
            assert stub.title == f"Test failure: {FAILING_TEST}"
            assert stub.body.endswith(f"\nFailed tests:\n- {FAILING_TEST}")
            assert capture.read_log("s1")[-1]["detail"].startswith(f"FAILED {FAILING_TEST} - Assert")
    (resolved,) = records.current(conn, project.id, types=["bugfix"])
    assert resolved.title == f"Test failure fixed: {FAILING_TEST}"
    assert resolved.body.startswith(f"Command: {failing}\nResolved: the same command passed")
    body = snapshot.compose([], capture.read_log("s1"), when="now")
    assert f"Last test run: `{failing}` passed" in body


def test_the_piped_and_verbose_runs_name_the_same_test(hook, conn, repo):
    for command in ("python -m pytest tests/test_filters.py -q -p no:cacheprovider 2>&1 | tail -3",
                    "python -m pytest tests/test_filters.py -v -p no:cacheprovider -k exclude"):
        _bash(hook, repo, "s1", command)
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])  # one stub: the same failing test
    assert stub.title == f"Test failure: {FAILING_TEST}"
    assert [e["subject"] for e in capture.read_log("s1")] == [FAILING_TEST] * 2


def test_a_quiet_commit_is_a_commit_and_nothing_to_commit_is_none(hook, conn, repo):
    quiet = 'git add src/attr/filters.py && git commit -q -m "filters: exclude() also drops attributes given as Attribute"'
    assert _run(quiet)["stdout"] == _run(quiet)["stderr"] == ""  # no `[branch sha] subject` line to read
    _bash(hook, repo, "s1", quiet)
    _bash(hook, repo, "s1", "git commit -q -m 'nothing here'")  # exit 1: "nothing to commit, working tree clean"
    assert [(e["kind"], e["detail"]) for e in capture.read_log("s1")] == [
        ("commit", "filters: exclude() also drops attributes given as Attribute")]
    assert "Commits:\n- filters: exclude() also drops attributes given as Attribute" in snapshot.compose(
        [], capture.read_log("s1"), when="now")


@pytest.mark.parametrize("command,subject", [
    ("git commit -qm 'fix: x'", "fix: x"), ("git commit -q --message=wip", "wip"),
    ("git commit -q -am \"tidy\"", "tidy"),
    ("git commit -q -m \"$(cat <<'EOF'\nfilters: keep Attribute excludes\n\nCo-Authored-By: Claude\nEOF\n)\"",
     "filters: keep Attribute excludes"),
])
def test_the_subject_of_a_quiet_commit_comes_from_its_command_line(command, subject):
    (ob,) = capture.observe("Bash", {"command": command}, {"stdout": "", "stderr": ""}, "/r")
    assert (ob.kind, ob.detail, ob.path) == ("commit", subject, "")


def test_the_whole_session(hook, conn, repo):
    """Every recorded call in order, plus the Read and Edit calls around them: what is captured, what is not."""
    project = detect(repo)
    read = {"session_id": "s1", "cwd": str(repo), "tool_name": "Read", "hook_event_name": "PostToolUse",
            "tool_input": {"file_path": str(repo / "src/attr/_make.py")},
            "tool_response": {"type": "text", "file": {"filePath": str(repo / "src/attr/_make.py"),
                                                       "content": (DATA / "sed_make_cached_property_getattr.txt")
                                                       .read_text(encoding="utf-8"),
                                                       "numLines": 53, "startLine": 509, "totalLines": 3400}}}
    edit = {"session_id": "s1", "cwd": str(repo), "tool_name": "Edit", "hook_event_name": "PostToolUse",
            "tool_input": {"file_path": str(repo / "src/attr/filters.py"), "old_string": "            or field "
                           "in excluded\n", "new_string": "", "replace_all": False},
            "tool_response": {"filePath": str(repo / "src/attr/filters.py"), "userModified": False,
                              "replaceAll": False}}
    hook("PostToolUse", read)
    for row in SESSION:
        if row["command"] == "python -m pytest tests/test_filters.py -q -p no:cacheprovider" and row["exit_code"]:
            hook("PostToolUse", edit)
        event, payload = claude_payload(row, "s1", str(repo))
        hook(event, payload)
    # `ok`: the commands that succeeded after the first error, kept only in the log (what a retry fixed).
    log = [(e["kind"], e.get("outcome") or e["detail"][:40]) for e in capture.read_log("s1") if e["kind"] != "ok"]
    assert log == [
        ("branch", "fix-filters-exclude"),
        ("error", "fatal: a branch named 'fix-filters-exclu"),  # the failed switch: an error, not a branch
        ("error", "TypeError: fields() takes a record class"),
        ("error", "TypeError: fields() takes a record class"),
        ("test", "passed"),  # before the edit
        ("file", ""),
        ("test", "failed"), ("test", "failed"), ("test", "failed"),
        ("test", "passed"),
        ("commit", "filters: exclude() also drops attributes"),
        ("branch", "main"),
        ("branch", "fix-filters-exclude"),
    ]
    titles = sorted(r.title for r in records.current(conn, project.id, types=["bugfix"]))
    assert titles == sorted([
        "Error observed: git switch -c fix-filters-exclude",
        'Error observed: python -c "import attr; attr.fields(1)"',
        'Error observed: python -c "import attr; attr.fields(1)" 2>&1 | tail -5',
        f"Test failure fixed: {FAILING_TEST}",  # failed three times, then the same command passed
    ])
    body = snapshot.compose([], capture.read_log("s1"), when="now", root=str(repo))
    assert "Branch: fix-filters-exclude" in body and "Files changed:\n- src/attr/filters.py" in body
