from __future__ import annotations

import pytest

from agentctx.memory import capture
from agentctx.base.project import detect
from agentctx.store import graph, records


def bash(command, stdout="", stderr=""):
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_response": {"stdout": stdout, "stderr": stderr}}


@pytest.mark.parametrize("command,branch", [
    ("git checkout -b feature/hooks", "feature/hooks"), ("git switch main", "main"),
    ("git checkout -f release/v1", "release/v1"), ("git switch --track origin/dev", "origin/dev"),
    ("git switch --detach feature-preview", None), ("git checkout -- x.ts", None), ("ls", None),
    ("git checkout main && git checkout -b topic", "topic"), ("git -C ../other switch -c x; git status", "x"),
    ("git stash\ngit checkout -q release/1.x", "release/1.x"), ("git checkout -", None),
])
def test_branch_target(command, branch):
    assert capture.branch_target(command) == branch


def test_write_becomes_file_node(hook, conn, repo):
    hook("post-tool-use", {"session_id": "s", "cwd": str(repo), "tool_name": "Write",
                           "tool_input": {"file_path": "src/app.ts"}, "tool_response": {"success": True}})
    assert graph.find_node(conn, detect(repo).id, "file", str(repo / "src/app.ts"))


def test_failing_test_run_one_stub_linked_to_fail_line(hook, conn, repo):
    out = "src/good.ts ok\n FAIL test/auth.test.ts > login\n 1 failed, 3 passed"
    for _ in range(2):
        hook("post-tool-use", {"session_id": "s", "cwd": str(repo), **bash("npx vitest run test/auth.test.ts", out)})
    pid = detect(repo).id
    (stub,) = records.current(conn, pid, types=["bugfix"])
    assert stub.title == "Test failure: test/auth.test.ts > login"
    assert stub.body.startswith("Command: npx vitest run test/auth.test.ts\nObserved: FAIL test/auth.test.ts > login")
    assert stub.body.endswith("\nFailed tests:\n- test/auth.test.ts > login")
    node = graph.find_node(conn, pid, "file", str(repo / "test/auth.test.ts"))
    assert stub.id in graph.record_ids_for_node(conn, node)
    hook("post-tool-use", {"session_id": "s", "cwd": str(repo), **bash("npx vitest run test/auth.test.ts", "4 passed")})
    (resolved,) = records.current(conn, pid, types=["bugfix"])
    assert "Resolved:" in resolved.body and resolved.id != stub.id


@pytest.mark.parametrize("command,out", [
    ("pytest -q", "12 passed, 0 failed in 0.1s"), ("ls", "a b c"), ("pytest", "===== 5 passed ====="),
    ("go test ./...", "ok  \texample.com/x\t0.01s"),
])
def test_no_stub_for_passing_or_plain_commands(hook, conn, repo, command, out):
    hook("post-tool-use", {"session_id": "s", "cwd": str(repo), **bash(command, out)})
    assert records.current(conn, detect(repo).id, types=["bugfix"]) == []


@pytest.mark.parametrize("command,out,outcome", [
    ("python -m pytest tests", "FAILED tests/test_a.py::test_x - assert 1", "failed"),
    ("cargo test", "test result: FAILED. 1 passed; 2 failed", "failed"),
    ("go test ./...", "--- FAIL: TestX (0.00s)", "failed"),
    ("npm test", "Tests: 1 failed, 2 passed", "failed"),
    ("pnpm run test", "Tests:  5 passed, 5 total", "passed"),
    ("yarn test", "  3 passing", "passed"),
    ("python -m unittest", "Ran 3 tests\n\nOK", "passed"),
])
def test_test_outcomes(command, out, outcome):
    (ob,) = [o for o in capture.observe("Bash", {"command": command}, {"stdout": out}, "/r") if o.kind == "test"]
    assert ob.outcome == outcome


def test_error_stub_and_commit(hook, conn, repo):
    hook("post-tool-use-failure", {"session_id": "s", "cwd": str(repo), "tool_name": "Bash",
                                   "tool_input": {"command": "node scripts/migrate.js"},
                                   "error": "Exit code 1\nTypeError: cannot read x of undefined\n  at scripts/migrate.js:3"})
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.title.startswith("Error observed: node scripts/migrate.js")
    obs = capture.observe("Bash", {"command": "git commit -m 'fix'"}, {"stdout": "[main 1a2b3c4] fix login\n 1 file"}, "/r")
    assert [(o.kind, o.path, o.detail) for o in obs] == [("commit", "main", "1a2b3c4 fix login")]


def test_malformed_payloads_do_nothing(hook, conn, repo):
    for payload in ({"tool_name": "Bash"}, {"tool_name": "Bash", "tool_input": "x"}, {"tool_name": 3},
                    {"tool_name": "Write", "tool_input": {"file_path": 7}}):
        assert hook("post-tool-use", {"session_id": "s", "cwd": str(repo), **payload}) is None
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0


def test_an_error_stub_governs_the_file_it_names(hook, conn, repo):
    """Capture's anchors (issue 33): a stub is inferred, so it is delivered before an edit of that file, never a guard."""
    hook("post-tool-use-failure", {"session_id": "s", "cwd": str(repo), "tool_name": "Bash",
                                   "tool_input": {"command": "node scripts/migrate.js"},
                                   "error": "Exit code 1\nTypeError: cannot read x of undefined\n  at scripts/migrate.js:3"})
    (stub,) = records.current(conn, detect(repo).id, types=["bugfix"])
    assert stub.anchors == ("path:scripts/migrate.js",) and stub.confidence == "inferred"
