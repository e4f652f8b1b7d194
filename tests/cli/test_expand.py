"""`agentctx expand`: one line per batch through a FAKE `claude` executable (HAND-WRITTEN answers, no model runs),
--limit, --all-projects, --dry-run, --json, and no backend as one line and a nonzero exit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agentctx.base.project import detect
from agentctx.store import db, records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "extract"))
from expand_support import fake_claude  # noqa: E402


def _record(run_in, title):
    assert run_in("record", "--type", "decision", "--title", title, "--body", f"{title}, as agreed.").rc == 0


def _asked(project_dir):
    conn = db.connect()
    try:
        return {r.title: r.aliases for r in records.current(conn, detect(str(project_dir)).id, own_only=True)}
    finally:
        conn.close()


@pytest.fixture
def no_backend(monkeypatch, tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_without_a_backend_it_says_so_in_one_line_and_fails(in_p, no_backend):
    _record(in_p, "Use SQLite")
    result = in_p("expand")
    assert result.rc == 1 and result.out == ""
    assert result.err.startswith("agentctx: the expansion pass needs an LLM backend and none is on (")
    assert "ANTHROPIC_API_KEY" in result.err and "claudeCodePath" in result.err
    as_json = in_p("expand", "--json")
    assert as_json.rc == 1 and json.loads(as_json.out)["code"] == "no_llm_backend"
    in_p("config", "set", "llm", "false")
    assert "agentctx config set llm true" in in_p("expand").err


def test_it_says_what_each_batch_did(in_p, proj_p, tmp_path, monkeypatch):
    fake = fake_claude(tmp_path, monkeypatch)
    for i in range(23):
        _record(in_p, f"Rule number {i}")
    result = in_p("expand")
    assert result.rc == 0, result.err
    lines = result.out.strip().splitlines()
    assert lines[0].startswith("batch 1: 20 records sent, 20 given questions and aliases (1 call, 700 tokens in")
    assert lines[1].startswith("batch 2: 3 records sent, 3 given")
    assert lines[2].startswith("23 of 23 records given questions and aliases; 2 call(s)")
    assert len(fake.calls()) == 2
    assert set(_asked(proj_p).values()) == {("cliexpanded",)}
    assert in_p("expand").out.strip() == "nothing expanded (nothing_due: no record needs questions or aliases now)"
    status = in_p("status")
    assert "claude-code  expansion: 2 call(s), 1,400 tokens in" in status.out  # beside extraction's calls per day


def test_limit_dry_run_all_projects_and_json(in_p, in_q, proj_p, proj_q, tmp_path, monkeypatch):
    fake = fake_claude(tmp_path, monkeypatch)
    for i in range(3):
        _record(in_p, f"P rule {i}")
        _record(in_q, f"Q rule {i}")
    preview = in_p("expand", "--dry-run")
    assert preview.rc == 0 and preview.out.startswith("batch 1: would send 3 records, ~") and fake.calls() == []
    one = json.loads(in_p("expand", "--limit", "1", "--json").out)
    assert (one["sent"], one["expanded"], one["backend"], one["skipped"]) == (1, 1, "claude-code", None)
    assert sorted(bool(a) for a in _asked(proj_p).values()) == [False, False, True]
    result = in_p("expand", "--all-projects")
    assert result.rc == 0 and "5 of 5 records given" in result.out
    assert all(_asked(proj_q).values()) and all(_asked(proj_p).values())
    assert in_p("expand", "--limit", "0").rc == 64
