"""Capture closes what it opens (issue 42 items 4-6): stubs of many failing tests resolve, a test fixed by another
command resolves, agentctx's own errors are never the project's, and a retry that worked is not the last error."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.memory import capture, snapshot
from agentctx.store import records

# A linter's suite as it failed for the week's user: many parametrized rule tests with long ids.
MANY = [f"tests/rules/test_pyflakes_unused_import.py::TestUnusedImport::test_unused_import_is_reported"
        f"[case-{n:02d}-from-package-import-submodule-as-alias]" for n in range(40)]
SUITE_OUT = "\n".join(f"FAILED {t} - AssertionError: expected 1 diagnostic, got 0" for t in MANY) + "\n40 failed, 212 passed"


def _bash(hook, repo, command, out="", *, failed=False, session="s1"):
    payload = {"session_id": session, "cwd": str(repo), "tool_name": "Bash", "tool_input": {"command": command}}
    if failed:
        hook("post-tool-use-failure", {**payload, "error": f"Exit code 1\n{out}"})
    else:
        hook("post-tool-use", {**payload, "tool_response": {"stdout": out, "stderr": ""}})


def _bugfixes(conn, repo):
    return records.current(conn, detect(repo).id, types=["bugfix"])


def test_a_stub_of_many_failing_tests_resolves_once_and_keeps_its_anchor(hook, conn, repo):
    (repo / "tests/rules").mkdir(parents=True)
    (repo / "tests/rules/test_pyflakes_unused_import.py").write_text("def test(): pass\n", encoding="utf-8")
    _bash(hook, repo, "python -m pytest tests/rules -q", SUITE_OUT, failed=True)
    (stub,) = _bugfixes(conn, repo)
    assert len(stub.body) <= 2000 and stub.anchors == ("path:tests/rules/test_pyflakes_unused_import.py",)
    assert stub.body.splitlines()[1].startswith("Observed: FAILED " + MANY[0])
    assert "more" in stub.body.splitlines()[-1]  # 20 ids kept, as many as fit listed, the rest counted
    for _ in range(2):  # the fix, and the same passing run again
        _bash(hook, repo, "python -m pytest tests/rules -q", "252 passed in 3.1s")
    (fixed,) = _bugfixes(conn, repo)
    assert fixed.title.startswith("Test failure fixed: tests/rules/") and fixed.id != stub.id
    assert fixed.body.splitlines()[1].startswith("Resolved: the same command passed later")
    assert fixed.anchors == stub.anchors and len(fixed.body) <= 2000
    history = records.history(conn, fixed.id, detect(repo).id)
    assert [r.id for r in history] == [stub.id, fixed.id]  # one resolution, no copy from the second pass


def test_a_test_fixed_by_running_it_alone_after_the_full_suite_resolves(hook, conn, repo):
    test = "tests/test_config.py::test_reads_pyproject_section"
    _bash(hook, repo, "python -m pytest", f"FAILED {test} - KeyError: 'tool'\n1 failed, 251 passed", failed=True)
    _bash(hook, repo, "python -m pytest tests/test_other.py", "3 passed")  # another test: nothing settled
    assert _bugfixes(conn, repo)[0].title == f"Test failure: {test}"
    _bash(hook, repo, f"python -m pytest {test} -q", "1 passed in 0.05s")
    (fixed,) = _bugfixes(conn, repo)
    assert fixed.title == f"Test failure fixed: {test}"
    assert fixed.body.startswith(f"Command: python -m pytest\nResolved: `python -m pytest {test} -q` ran these tests")


def test_a_subset_run_resolves_only_the_tests_its_output_shows_passed(hook, conn, repo):
    test = "tests/test_config.py::test_reads_pyproject_section"
    _bash(hook, repo, "pytest", f"FAILED {test} - KeyError\n1 failed", failed=True)
    _bash(hook, repo, "pytest tests/test_config.py -k other", "1 passed, 5 deselected")  # the file, not that test
    assert _bugfixes(conn, repo)[0].title.startswith("Test failure: ")
    _bash(hook, repo, "pytest tests/test_config.py -v -k pyproject", f"{test} PASSED\n1 passed, 5 deselected")
    assert _bugfixes(conn, repo)[0].title.startswith("Test failure fixed: ")


def test_agentctx_own_cli_error_is_not_the_projects(hook, conn, repo):
    error = "usage: agentctx [-h] ...\nagentctx: error: unrecognized arguments: --rationale"
    for command in ("agentctx record --type decision --title T --body B --rationale why",
                    "python -m agentctx record --rationale x", "uvx agentctx@latest record --rationale x",
                    "/home/dev/.local/bin/agentctx record --rationale x",
                    "cd /work/linter && AGENTCTX_HOME=/tmp/h agentctx record --rationale x"):
        _bash(hook, repo, command, error, failed=True)
    assert _bugfixes(conn, repo) == [] and capture.read_log("s1") == []
    assert capture.own_command("agentctx search pytest FAILED") and not capture.own_command("echo agentctx")
    # A test run in the same line as agentctx is still the project's.
    obs = capture.observe("Bash", {"command": "agentctx status; pytest -q"}, {"stdout": "FAILED t.py::x\n1 failed"},
                          str(repo), failed=True)
    assert [o.kind for o in obs] == ["test"]


def test_a_failure_the_next_command_fixed_is_not_the_last_error(hook, conn, repo):
    _bash(hook, repo, "npm run build", "Error: Cannot find module './config'", failed=True)
    _bash(hook, repo, "cat src/config.ts", "export const x = 1")
    _bash(hook, repo, "npm run build --silent", "built in 2.1s")
    _bash(hook, repo, "node scripts/migrate.js", "TypeError: cannot read x of undefined", failed=True)
    body = snapshot.compose([], capture.read_log("s1"), when="now", root=str(repo))
    assert "Last error: TypeError: cannot read x of undefined (from `node scripts/migrate.js`)" in body
    _bash(hook, repo, "node scripts/migrate.js", "migrated 3 tables")
    assert "Last error" not in snapshot.compose([], capture.read_log("s1"), when="now", root=str(repo))


def test_a_carried_last_error_is_dropped_when_fixed_or_agentctx_own():
    old_agentctx = "Snapshot taken x.\n\nBranch: main\n\nLast error: agentctx record: error: unrecognized arguments: --rationale"
    body = "Snapshot taken y.\n\nFiles changed:\n- src/a.py"
    assert "Last error" not in snapshot.carry_forward(body, old_agentctx, [])
    old = "Snapshot taken x.\n\nLast error: Error: Cannot find module (from `npm run build`)"
    assert "Last error" in snapshot.carry_forward(body, old, [])
    fixed = [{"kind": "ok", "command": "npm run build"}]
    assert "Last error" not in snapshot.carry_forward(body, old, fixed)


def test_handover_names_files_relative_to_the_repository(repo):
    log = [{"kind": "file", "path": str(repo / "src/linter/rules.py")}, {"kind": "file", "path": "/etc/hosts"}]
    body = snapshot.compose([], log, when="now", root=str(repo))
    assert "Files changed:\n- src/linter/rules.py\n- /etc/hosts" in body


def test_consolidation_retires_error_stubs_of_agentctx_own_commands(conn, repo):
    """Stores written before capture left agentctx out hold its usage error as the project's bug fix."""
    from agentctx.base.models import NewRecord
    from agentctx.memory import consolidate

    pid = detect(repo).id
    own, project = (records.insert(conn, NewRecord(type="bugfix", title=f"Error observed: {cmd}", body=f"Command: {cmd}\n"
                                                   f"Observed: {line}", project_id=pid, source="hook_observation",
                                                   confidence="inferred"))[0]
                    for cmd, line in (("agentctx record --type decision --rationale x",
                                       "agentctx: error: unrecognized arguments: --rationale"),
                                      ("node scripts/migrate.js", "TypeError: cannot read x")))
    report = consolidate.run(detect(repo))
    assert report["own_errors_retired"] == 1
    assert [r.id for r in _bugfixes(conn, repo)] == [project.id]
    assert records.get(conn, own.id).superseded_at is not None  # retired, kept in history


def test_a_whole_suite_pass_resolves_what_its_runner_failed_under_another_command(hook, conn, repo):
    test = "tests/test_config.py::test_reads_pyproject_section"
    _bash(hook, repo, f"pytest {test} -x", f"FAILED {test} - KeyError\n1 failed", failed=True)
    _bash(hook, repo, "npm test", "Tests:  12 passed, 12 total")  # another runner's suite: not these tests
    assert _bugfixes(conn, repo)[0].title.startswith("Test failure: ")
    _bash(hook, repo, "pytest -k pyproject", "1 passed, 251 deselected")  # only some tests: says nothing of this one
    assert _bugfixes(conn, repo)[0].title.startswith("Test failure: ")
    _bash(hook, repo, "python -m pytest -q", "252 passed in 4.0s")
    (fixed,) = _bugfixes(conn, repo)
    assert fixed.body.splitlines()[1].startswith("Resolved: the whole suite passed (`python -m pytest -q`)")


def test_test_runs_are_read_as_the_shell_runs_the_line(repo):
    # A runner's name in a quoted argument or a here-document's body runs no tests; one in a nested shell does.
    for command in ('git commit -m "run pytest" -q', "cat > notes.md <<EOF\npytest -x\nEOF"):
        assert [o.kind for o in capture.observe("Bash", {"command": command}, {"stdout": "FAILED t.py::x\n1 failed"},
                                                str(repo), failed=True)] != ["test"]
    obs = capture.observe("Bash", {"command": 'bash -c "pytest -q tests/a.py"'}, {"stdout": "FAILED t.py::x\n1 failed"},
                          str(repo), failed=True)
    assert [o.kind for o in obs] == ["test"]
    from agentctx.memory.capture import testruns
    assert testruns.passed_tests("FOO=1 timeout 60 python -m pytest tests/b.py -q", "3 passed") == ["tests/b.py"]
    assert testruns.passed_tests("echo $(pytest tests/a.py)", "1 passed") == ["tests/a.py"]
