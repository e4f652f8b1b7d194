"""A changed origin URL is the same repository (issue 42, item 3): `status`, `doctor` and SessionStart say which
other project id holds this repository's records, and `agentctx project move` joins them, keeping the history. Until
then, and for any other project, neither sees the other's records."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.memory import consolidate
from agentctx.store import db, records
from agentctx.base import paths


def git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.fixture
def linter(tmp_path, run):
    """A checkout of a Python linter, with history, its origin over ssh, and a store with its records."""
    root = tmp_path / "linter"
    (root / "src").mkdir(parents=True)
    (root / "src" / "rules.py").write_text("RULES = {}\n")
    git(root, "init", "-q")
    git(root, "remote", "add", "origin", "git@github.com:acme/pylint-lite.git")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first")
    assert run("-C", root, "init", "--no-profile", "--no-mcp").rc == 0
    return root


def _add(root, title, body):
    conn = db.connect(paths.db_path())
    try:
        return records.insert(conn, NewRecord(type="convention", title=title, body=body,
                                              project_id=detect(root).id))[0]
    finally:
        conn.close()


def _current(pid):
    conn = db.connect(paths.db_path())
    try:
        return [r for r in records.current(conn, pid, limit=100) if r.type != "profile"]
    finally:
        conn.close()


def _session_start(root, monkeypatch, capsys):
    from agentctx.hooks import run as run_hook

    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"session_id": "s-new", "cwd": str(root),
                                                               "source": "startup"})))
    assert run_hook(["session-start"]) == 0
    return json.loads(capsys.readouterr().out or "{}")


@pytest.mark.parametrize("new_url", ["https://github.com/acme-labs/pylint-lite.git",  # the repository was renamed
                                     "git@github-work:acme/pylint-lite.git",  # https/ssh through a host alias
                                     "git@github.com:me/pylint-lite.git"])  # a fork, the old origin kept as upstream
def test_a_changed_origin_is_recognised_and_moved_with_its_history(linter, run, monkeypatch, capsys, new_url):
    old_id = detect(linter).id
    first = _add(linter, "Rule ids are stable", "A rule's id never changes once released; renames add an alias.")
    conn = db.connect(paths.db_path())
    records.supersede(conn, first.id, old_id, body="A rule's id never changes once released; renames keep the old "
                      "id as an alias for two releases.", rationale="aliases expire")
    conn.close()
    consolidate.run(detect(linter), close_stale=False)  # the old project is seen as this checkout
    if "me/" in new_url:
        git(linter, "remote", "rename", "origin", "upstream")
        git(linter, "remote", "add", "origin", new_url)
    else:
        git(linter, "remote", "set-url", "origin", new_url)
    new_id = detect(linter).id
    assert new_id != old_id
    assert _current(new_id) == []  # a new id sees nothing of the old one's by itself

    status = run("-C", linter, "status")
    assert f"project move --from {old_id[:12]}" in status.out and "2 records" not in status.out
    assert "1 record of this repository are under another project id: github.com/acme/pylint-lite" in status.out
    doctor = json.loads(run("-C", linter, "doctor", "--json").out)
    (check,) = [c for c in doctor if c["name"] == "same repository"]
    assert check["status"] == "warn" and old_id[:12] in check["fix"]
    consolidate.run(detect(linter), close_stale=False)  # the digest carries the notice
    notice = _session_start(linter, monkeypatch, capsys).get("systemMessage", "")
    assert "records of this repository are under github.com/acme/pylint-lite" in notice

    moved = run("-C", linter, "project", "move", "--from", old_id[:12], "--yes")
    assert moved.rc == 0 and "moved 2 records" in moved.out
    (head,) = _current(new_id)
    assert "two releases" in head.body
    conn = db.connect(paths.db_path())
    try:
        chain = records.history(conn, head.id, new_id)
    finally:
        conn.close()
    assert [r.id for r in chain] == [first.id, head.id]  # the history came along
    assert _current(old_id) == []
    assert "project move" not in run("-C", linter, "status").out


def test_a_fork_elsewhere_is_named_by_status_only_and_nothing_crosses(linter, tmp_path, run, monkeypatch, capsys):
    _add(linter, "Rule ids are stable", "A rule's id never changes once released.")
    consolidate.run(detect(linter), close_stale=False)
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(linter), str(fork))
    git(fork, "remote", "set-url", "origin", "git@github.com:someone/pylint-fork.git")
    assert detect(fork).id != detect(linter).id
    out = run("-C", fork, "status").out
    assert "same first commit" in out and "project move" in out
    assert _current(detect(fork).id) == []
    assert run("-C", fork, "search", "rule id released").out.count("Rule ids are stable") == 0
    consolidate.run(detect(fork), close_stale=False)
    notice = _session_start(fork, monkeypatch, capsys).get("systemMessage", "")
    assert "project move" not in notice  # another checkout: said where the user asks, not at every session


def test_move_refuses_what_it_cannot_do(linter, run):
    assert "names no other project" in run("-C", linter, "project", "move", "--from", "nosuchproject",
                                           "--yes").err
    me = detect(linter).id
    bad = run("-C", linter, "project", "move", "--from", me, "--yes")
    assert bad.rc != 0 and len(bad.err.strip().splitlines()) == 1


def test_rule_files_both_projects_read_are_one_record_after_the_move(linter, run):
    rule = linter / ".claude" / "rules" / "rules.md"
    rule.parent.mkdir(parents=True)
    rule.write_text("---\npaths: [\"src/rules.py\"]\n---\nEvery rule has a stable id and a test.\n")
    old_id = detect(linter).id
    consolidate.run(detect(linter), close_stale=False)
    git(linter, "remote", "set-url", "origin", "https://github.com/acme-labs/pylint-lite.git")
    new_id = detect(linter).id
    consolidate.run(detect(linter), close_stale=False)  # the new id reads the same rule file: a second record
    assert [r.source for r in _current(new_id)] == ["rule_file"]
    out = run("-C", linter, "project", "move", "--from", old_id, "--yes", "--json")
    assert json.loads(out.out)["duplicates_retired"] == 1
    (kept,) = [r for r in _current(new_id) if r.source == "rule_file"]
    assert kept.anchors == ("path:src/rules.py",)
    assert json.loads(run("-C", linter, "rules", "sync", "--json").out)["added"] == 0  # and it stays one
