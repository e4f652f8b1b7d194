"""A session with no new work keeps the handover that holds the last real working state (issue 18, item 3)."""

from __future__ import annotations

import json

from agentctx.memory import consolidate, snapshot
from agentctx.cli import main
from agentctx.base.project import detect
from agentctx.store import records


def _transcript(tmp_path, name, prompt):
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps({"type": "user", "message": {"content": prompt}}) + "\n", encoding="utf-8")
    return str(path)


def _bash(hook, repo, sid, command, stdout=""):
    hook("post-tool-use", {"session_id": sid, "cwd": str(repo), "tool_name": "Bash",
                           "tool_input": {"command": command}, "tool_response": {"stdout": stdout}})


def _search(monkeypatch, repo, capsys, query):
    monkeypatch.chdir(repo)
    assert main(["search", query, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_question_only_session_keeps_the_branch_in_the_handover(hook, conn, repo, tmp_path, monkeypatch, capsys):
    project = detect(repo)
    _bash(hook, repo, "s1", "git checkout -b feature/e2e-check", "Switched to a new branch 'feature/e2e-check'")
    consolidate.run(project, session_id="s1", transcript=_transcript(tmp_path, "s1", "create the branch"))
    (first,) = records.current(conn, project.id, types=["handover"])
    assert "Branch: feature/e2e-check" in first.body
    assert len(_search(monkeypatch, repo, capsys, "feature/e2e-check")) == 1

    # Session 2 only asks a question: no files, branch, commits, tests or errors of its own.
    consolidate.run(project, session_id="s2", transcript=_transcript(tmp_path, "s2", "why do we use WAL?"))
    assert [r.id for r in records.current(conn, project.id, types=["handover"])] == [first.id]
    assert len(_search(monkeypatch, repo, capsys, "feature/e2e-check")) == 1

    # Session 3 edits a file: a new snapshot, which still names the branch (carried forward, marked as such).
    hook("post-tool-use", {"session_id": "s3", "cwd": str(repo), "tool_name": "Edit",
                           "tool_input": {"file_path": str(repo / "src" / "app.py")}})
    consolidate.run(project, session_id="s3", transcript=_transcript(tmp_path, "s3", "tidy app.py"))
    (third,) = records.current(conn, project.id, types=["handover"])
    assert third.id != first.id and records.get(conn, first.id).superseded_by == third.id
    assert "tidy app.py" in third.body and "app.py" in third.body.split(snapshot.CARRIED_HEADER)[0]
    own, carried = third.body.split(snapshot.CARRIED_HEADER)
    assert "Branch:" not in own and "Branch: feature/e2e-check" in carried
    assert "create the branch" not in third.body  # its own requests replace the earlier ones
    assert len(_search(monkeypatch, repo, capsys, "feature/e2e-check")) == 1

    # Session 4 switches branches: the carried branch is replaced, not repeated.
    _bash(hook, repo, "s4", "git switch main", "Switched to branch 'main'")
    consolidate.run(project, session_id="s4", transcript=_transcript(tmp_path, "s4", "back to main"))
    (fourth,) = records.current(conn, project.id, types=["handover"])
    assert snapshot.sections(fourth.body)["Branch:"] == "Branch: main"
    assert fourth.body.count("Branch:") == 1 and "app.py" in fourth.body


def test_the_first_session_still_gets_a_snapshot_from_its_requests(conn, repo, tmp_path):
    project = detect(repo)
    consolidate.run(project, session_id="s1", transcript=_transcript(tmp_path, "s1", "plan the migration"))
    (handover,) = records.current(conn, project.id, types=["handover"])
    assert "plan the migration" in handover.body


def test_pre_compact_without_new_work_keeps_the_snapshot(hook, conn, repo, tmp_path):
    project = detect(repo)
    _bash(hook, repo, "s1", "git checkout -b feature/e2e-check")
    consolidate.run(project, session_id="s1", transcript=_transcript(tmp_path, "s1", "create the branch"))
    (first,) = records.current(conn, project.id, types=["handover"])
    hook("pre-compact", {"session_id": "s2", "cwd": str(repo), "trigger": "auto",
                         "transcript_path": _transcript(tmp_path, "s2", "explain the schema")})
    assert [r.id for r in records.current(conn, project.id, types=["handover"])] == [first.id]


def test_carry_forward_keeps_the_body_bounded():
    previous = snapshot.compose(["x" * 600] * 3, [{"kind": "file", "path": f"/src/f{i}.py"} for i in range(12)]
                                + [{"kind": "branch", "detail": "feature/long"}], when="then")
    body = snapshot.carry_forward(snapshot.compose([], [{"kind": "error", "detail": "boom"}], when="now"), previous)
    assert len(body) <= snapshot.BODY_MAX and body.startswith("Snapshot taken now")


def test_a_later_pre_compact_of_the_same_session_replaces_its_own_snapshot(hook, conn, repo, tmp_path):
    """Issue 26, item 9: the same session's new requests, with nothing else observed, still move the snapshot on
    (the keep-the-richer-one rule is for another, question-only session)."""
    project = detect(repo)
    hook("pre-compact", {"session_id": "s1", "cwd": str(repo), "trigger": "auto",
                         "transcript_path": _transcript(tmp_path, "s1a", "explain the storage layer")})
    (first,) = records.current(conn, project.id, types=["handover"])
    assert "explain the storage layer" in first.body
    hook("pre-compact", {"session_id": "s1", "cwd": str(repo), "trigger": "auto",
                         "transcript_path": _transcript(tmp_path, "s1b", "now plan the parser rewrite")})
    (second,) = records.current(conn, project.id, types=["handover"])
    assert second.id != first.id and "now plan the parser rewrite" in second.body
    # Another session that only asks still leaves it alone (the rule the same-session case was caught by).
    hook("pre-compact", {"session_id": "s2", "cwd": str(repo), "trigger": "auto",
                         "transcript_path": _transcript(tmp_path, "s2", "what time is it")})
    assert [r.id for r in records.current(conn, project.id, types=["handover"])] == [second.id]
