"""History (SPEC §3.5): `as_of` is transaction time; a record's chain carries each step's rationale."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from agentctx import cli
from agentctx.retrieval import search
from agentctx.base.errors import UsageError
from agentctx.memory.history import chain, current_at, parse_as_of, search_as_of
from agentctx.base.project import detect
from agentctx.store import records

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _times(conn, record_id, recorded_at, superseded_at=None):
    """Pin a record's transaction time (tests need fixed instants; the store stamps `now`)."""
    conn.execute("UPDATE records SET recorded_at = ?, valid_from = ? WHERE id = ?", (recorded_at, recorded_at, record_id))
    if superseded_at:
        conn.execute("UPDATE records SET superseded_at = ? WHERE id = ?", (superseded_at, record_id))
    conn.commit()


@pytest.fixture
def timeline(conn, add):
    """v1 recorded on Jan 10, superseded by v2 on Feb 10; an unrelated decision recorded on Mar 1."""
    v1 = add("Database choice", "Use MySQL for the orders service.")
    _, v2 = records.supersede(conn, v1.id, v1.project_id, body="Use Postgres for the orders service.",
                              rationale="JSONB columns")
    later = add("Queue choice", "Use SQS for orders events.")
    _times(conn, v1.id, "2026-01-10T09:00:00.000Z", "2026-02-10T09:00:00.000Z")
    _times(conn, v2.id, "2026-02-10T09:00:00.000Z")
    _times(conn, later.id, "2026-03-01T09:00:00.000Z")
    return v1, v2, later


def _ids(result):
    return [h.record.id for h in result.hits]


def test_as_of_returns_what_was_current_then(conn, repo, timeline):
    v1, v2, later = timeline
    pid = detect(repo).id
    at = lambda when: _ids(search_as_of(search.search, conn, "orders service", pid, when, limit=10))  # noqa: E731
    assert at("2026-01-01T00:00:00.000Z") == []
    assert at("2026-01-20T00:00:00.000Z") == [v1.id]
    assert at("2026-02-10T09:00:00.000Z") == [v2.id]  # superseded at that instant: the new one holds
    assert set(at("2026-03-02T00:00:00.000Z")) == {v2.id, later.id}
    # Without as_of: only current records, as always.
    assert v1.id not in _ids(search.search(conn, "orders service", pid))


def test_current_at_is_half_open(conn, timeline):
    v1 = records.get(conn, timeline[0].id)
    assert current_at(v1, "2026-01-10T09:00:00.000Z") and current_at(v1, "2026-02-10T08:59:59.999Z")
    assert not current_at(v1, "2026-01-10T08:59:59.999Z") and not current_at(v1, "2026-02-10T09:00:00.000Z")


def test_parse_as_of_dates_timestamps_and_bad_input():
    assert parse_as_of("2026-01-20") == "2026-01-20T23:59:59.999Z"
    assert parse_as_of("2026-01-20T10:00:00+02:00") == "2026-01-20T08:00:00.000Z"
    assert parse_as_of("2026-01-20T10:00:00") == "2026-01-20T10:00:00.000Z"
    for bad in ("", "2026-13-45", "yesterday", "--exec=x"):
        with pytest.raises(UsageError):
            parse_as_of(bad, None)


@needs_git
def test_parse_as_of_git_ref_is_its_commit_date(tmp_path):
    repo = tmp_path / "g"
    repo.mkdir()
    env = {"GIT_COMMITTER_DATE": "2026-01-20T10:00:00Z", "GIT_AUTHOR_DATE": "2026-01-20T10:00:00Z",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty",
                                  "-m", "one"], ["tag", "v1"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)
    assert parse_as_of("v1", str(repo)) == "2026-01-20T10:00:00.000Z"
    assert parse_as_of("HEAD", str(repo)) == "2026-01-20T10:00:00.000Z"
    with pytest.raises(UsageError):
        parse_as_of("no-such-ref", str(repo))


def test_chain_has_every_step_with_its_rationale(conn, repo, timeline):
    v1, v2, _ = timeline
    steps = chain(conn, v1.id, detect(repo).id)
    assert [s.record.id for s in steps] == [v1.id, v2.id]
    assert [s.state for s in steps] == ["superseded", "current"]
    assert steps[0].rationale is None and steps[1].rationale == "JSONB columns"
    d = steps[0].to_dict()
    assert d["recorded_at"] == "2026-01-10T09:00:00.000Z" and d["superseded_at"] == "2026-02-10T09:00:00.000Z"
    assert d["valid_from"] and d["superseded_by"] == v2.id
    # From either end.
    assert [s.record.id for s in chain(conn, v2.id, detect(repo).id)] == [v1.id, v2.id]


def test_retired_record_ends_its_chain_without_successor(conn, add, repo):
    rec = add("Old rule", "Body.")
    records.retire(conn, rec.id, rec.project_id)
    (step,) = chain(conn, rec.id, detect(repo).id)
    assert step.state == "retired"
    assert records.current(conn, rec.project_id) == []


def _cli(*argv, capsys):
    rc = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return rc, out.out, out.err


def test_cli_search_as_of_and_history(conn, repo, timeline, capsys):
    v1, v2, later = timeline
    rc, out, _ = _cli("-C", repo, "search", "orders", "service", "--as-of", "2026-01-20", "--json", capsys=capsys)
    assert rc == 0 and [r["id"] for r in json.loads(out)] == [v1.id]
    rc, out, _ = _cli("-C", repo, "history", v2.id, capsys=capsys)
    assert rc == 0 and v1.id in out and "why: JSONB columns" in out and "valid from" in out
    rc, out, _ = _cli("-C", repo, "history", v1.id, "--json", capsys=capsys)
    assert [s["id"] for s in json.loads(out)] == [v1.id, v2.id]
    rc, _, err = _cli("-C", repo, "search", "orders", "--as-of", "not-a-date", capsys=capsys)
    assert rc == 64 and err.startswith("agentctx: as_of") and err.count("\n") == 1


def test_cli_search_as_of_labels_a_record_as_it_stood_then(conn, repo, timeline, capsys):
    """Issue 26, item 9: the record current at T was shown as `[superseded]`."""
    v1, v2, later = timeline
    rc, out, _ = _cli("-C", repo, "search", "orders", "service", "--as-of", "2026-01-20", capsys=capsys)
    (line,) = [ln for ln in out.splitlines() if v1.id in ln]
    assert rc == 0 and "[superseded]" not in line and "current at 2026-01-20; superseded since" in line
    rc, out, _ = _cli("-C", repo, "search", "orders", "service", "--history", capsys=capsys)
    assert "[superseded]" in next(ln for ln in out.splitlines() if v1.id in ln)  # without --as-of: as it is now
