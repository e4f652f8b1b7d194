"""Backfill: finds this project's transcripts only, estimates, asks, extracts with progress, resumes."""

from __future__ import annotations

import os

import pytest

from agentctx.base import paths
from agentctx.cli import main
from agentctx.extract import backfill
from transcript_builder import TranscriptWriter


@pytest.fixture
def claude_projects(project_dir, tmp_path):
    base = paths.claude_home() / "projects"
    mine = base / backfill.encode(str(project_dir.resolve()))
    sub = base / backfill.encode(str(project_dir.resolve() / "pkg"))
    other = base / backfill.encode(str(tmp_path / "other"))
    for folder in (mine, sub, other, mine / "s1" / "subagents"):
        folder.mkdir(parents=True)
    (project_dir / "pkg").mkdir()
    for folder, sid, cwd in ((mine, "s1", project_dir), (sub, "s2", project_dir / "pkg"),
                             (other, "s3", tmp_path / "other"), (mine / "s1" / "subagents", "agent-x", project_dir)):
        w = TranscriptWriter(folder / f"{sid}.jsonl", sid, str(cwd))
        w.turn(f"in {sid} we decided to use tool{sid} for the build. next: release", "OK.")
    old = mine / "s0.jsonl"
    TranscriptWriter(old, "s0", str(project_dir)).turn("old session: we decided to use make. next: x", "ok")
    os.utime(old, (1_600_000_000, 1_600_000_000))
    return base


def test_discovers_only_this_projects_main_transcripts(claude_projects, project_dir):
    found = backfill.discover(str(project_dir))
    assert [f.session_id for f in found] == ["s0", "s1", "s2"]
    recent = backfill.discover(str(project_dir), since=backfill.parse_since("2021-01-01"))
    assert [f.session_id for f in recent] == ["s1", "s2"]


def test_dry_run_estimates_without_sending(claude_projects, project_dir, capsys):
    assert main(["-C", str(project_dir), "backfill", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "3 transcript(s)" in out and "3 with something new" in out and "$" in out


def test_unconfirmed_sends_nothing(claude_projects, project_dir, conn, monkeypatch, capsys):
    pytest.importorskip("anthropic")  # without [llm] backfill stops before asking (tests/base/test_extras.py)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    assert main(["-C", str(project_dir), "backfill"]) == 1  # no terminal: the question is answered "no"
    assert "nothing sent" in capsys.readouterr().out


def test_backfill_extracts_with_progress_and_resumes(claude_projects, project_dir, conn, pid, monkeypatch, capsys):
    pytest.importorskip("anthropic")
    from agentctx.extract import client as api
    from agentctx.store import records
    from stub_api import StubAPI

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    monkeypatch.setattr(api, "RETRY_DELAYS", ())
    with StubAPI() as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.base_url)
        assert main(["-C", str(project_dir), "backfill", "--yes", "--since", "2021-01-01"]) == 0
        captured = capsys.readouterr()
        assert "2/2 sessions" in captured.err and "2 session(s)" in captured.out
        assert len(stub.requests) == 2
        assert main(["-C", str(project_dir), "backfill", "--yes", "--since", "2021-01-01"]) == 0
        assert len(stub.requests) == 2 and "0 with something new" in capsys.readouterr().out
    titles = {r.title for r in records.current(conn, pid, types=["decision"])}
    assert titles == {"Use tools1 for the build", "Use tools2 for the build"}
