"""A run end to end with a fake client (HAND-WRITTEN answers): cursor, cost, failures, map-reduce, rungs."""

from __future__ import annotations

import threading
import time

import pytest

from agentctx.base import config, paths
from agentctx.extract import cursor, execute, policy, run
from agentctx.store import records, sessions
from extract_support import FakeClient, answer, message

D = {"what": "Use SQLite for storage", "rationale": "no server", "supersedes": None, "confidence": "explicit",
     "evidence": "we keep everything in SQLite"}


def _ok(_kwargs):
    return message(answer(decisions=[D], active_work={"current_task": "Export command", "blockers": [],
                                                      "next_steps": ["write tests"], "open_questions": []}))


def _log() -> str:
    path = paths.logs_dir() / "extract.log"
    return path.read_text() if path.exists() else ""


def test_extracts_records_cost_and_advances(conn, pid, writer, project_dir):
    writer.turn("we keep everything in SQLite, no server please", "OK, SQLite.", tool="pytest -q")
    client = FakeClient(_ok)
    r = execute("s1", writer.path, cwd=str(project_dir), client=client)
    assert (r.written, r.skipped, r.calls) == (2, None, 1)
    assert r.cost_usd == pytest.approx((1000 + 5 * 500) / 1e6)
    assert sessions.stats(conn, pid)["extraction_cost_usd"] == pytest.approx(r.cost_usd)
    kw = client.calls[0]
    assert kw["model"] == "claude-haiku-4-5" and "temperature" not in kw
    assert kw["output_config"]["format"]["type"] == "json_schema"
    assert "cache_control" not in kw["system"][0]  # ~1.3K-token prefix: below Haiku 4.5's 4,096 minimum
    again = execute("s1", writer.path, cwd=str(project_dir), client=client)
    assert again.skipped == "nothing_new" and len(client.calls) == 1


def test_no_key_llm_off_and_no_llm_send_nothing(writer, project_dir):
    writer.turn("we keep everything in SQLite", "OK")
    assert run("s1", writer.path).skipped == "no_api_key"
    assert not paths.db_path().exists()  # no key: no database created either
    assert execute("s1", writer.path, no_llm=True, client=FakeClient(_ok)).skipped == "llm_off"
    config.set_value("llm", "false")
    assert execute("s1", writer.path, client=FakeClient(_ok)).skipped == "llm_off"


def test_missing_transcript_and_missing_db(tmp_path, writer):
    assert execute("s1", tmp_path / "nope.jsonl", client=FakeClient(_ok)).skipped == "no_transcript"
    writer.turn("hello there friend", "hi")
    assert execute("s1", writer.path, client=FakeClient(_ok)).skipped == "no_database"


def test_unparseable_answer_costs_but_retries_then_gives_up(conn, pid, writer, project_dir):
    writer.turn("we keep everything in SQLite", "OK")
    client = FakeClient(lambda kw: message("Sure! Here are the decisions: SQLite."))
    results = [execute("s1", writer.path, cwd=str(project_dir), client=client) for _ in range(4)]
    assert [r.skipped for r in results] == ["unparseable"] * 3 + ["nothing_new"]
    assert sessions.stats(conn, pid)["extraction_cost_usd"] == pytest.approx(3 * 0.0035)
    assert "unparseable" in _log() and "giving up on this part" in _log()


class _Overloaded(Exception):
    status_code = 529


def test_529_is_retried_with_backoff_then_logged_quietly(conn, writer, project_dir):
    writer.turn("we keep everything in SQLite", "OK")
    waits: list[float] = []

    def respond(kw):
        raise _Overloaded("overloaded")

    r = execute("s1", writer.path, cwd=str(project_dir), client=FakeClient(respond), sleep=waits.append)
    assert r.skipped == "api_error" and len(waits) == 3 and waits == sorted(waits)
    assert "extract failed for session s1" in _log() and "529" in _log()
    assert cursor.load("s1").offset == 0 and cursor.load("s1").failures == 1


def test_400_on_output_config_falls_back_to_a_forced_tool(conn, writer, project_dir, monkeypatch):
    from agentctx.extract import client as api

    monkeypatch.setattr(api, "_fallback", {})
    writer.turn("we keep everything in SQLite", "OK")

    class _Bad(Exception):
        status_code = 400

    def respond(kw):
        if "output_config" in kw:
            raise _Bad("output_config not supported")
        assert kw["tool_choice"]["name"] == "record_extraction"
        msg = message(answer(decisions=[D]))
        msg["content"] = [{"type": "tool_use", "id": "toolu_1", "name": "record_extraction",
                           "input": answer(decisions=[D])}]
        return msg

    r = execute("s1", writer.path, cwd=str(project_dir), client=FakeClient(respond))
    assert r.written == 1


def test_map_reduce_bounded_parallel_then_synthesis(conn, writer, project_dir, monkeypatch):
    monkeypatch.setattr(policy, "WHOLE_MAX", 1_000)
    monkeypatch.setattr(policy, "HEAD_TAIL_MAX", 2_000)
    monkeypatch.setattr(policy, "CHUNK_TOKENS", 600)
    for i in range(30):
        writer.turn(f"step {i}: we keep everything in SQLite " + "detail " * 60, "ok " * 50)
    live, peak = 0, 0
    guard = threading.Lock()

    def respond(kw):
        nonlocal live, peak
        with guard:
            live += 1
            peak = max(peak, live)
        time.sleep(0.02)
        with guard:
            live -= 1
        return message(answer(decisions=[D]))

    client = FakeClient(respond)
    r = execute("s1", writer.path, cwd=str(project_dir), client=client)
    assert r.mode == "map_reduce" and len(client.calls) > 3 and peak <= 3
    assert "Chunk 1 extraction:" in client.calls[-1]["messages"][0]["content"]
    assert r.written == 1  # the same decision in every chunk is one record


def test_dry_run_prints_and_sends_nothing(conn, writer, project_dir, capsys):
    from agentctx.cli import main

    writer.turn("we keep everything in SQLite; key sk-ant-api03-ZZZZZZZZZZZZZZZZZZZZ", "OK")
    assert main(["-C", str(project_dir), "extract", "--session-id", "s1", "--transcript", str(writer.path),
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "NEW TRANSCRIPT:\nDeveloper: we keep everything in SQLite" in out and "estimated cost $" in out
    assert "sk-ant-api03" not in out
    assert cursor.load("s1").offset == 0


def test_cli_exits_zero_without_a_key(writer, capsys):
    from agentctx.cli import main

    writer.turn("hello there", "hi")
    assert main(["extract", "--session-id", "s1", "--transcript", str(writer.path)]) == 0
    assert "no_api_key" in capsys.readouterr().out


def test_a_session_extracted_by_hand_gets_its_end_and_a_live_one_does_not(conn, pid, writer, project_dir, tmp_path):
    """Issue 26, item 8: `agentctx extract` on a past transcript left a session with no end forever."""
    import os


    writer.turn("we keep everything in SQLite, no server please", "OK, SQLite.")
    os.utime(writer.path, (1_700_000_000, 1_700_000_000))
    assert execute("s1", writer.path, cwd=str(project_dir), client=FakeClient(_ok)).written
    (ended,) = conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's1'").fetchone()
    assert ended and ended.startswith("2023-11-14T22:13:20")
    live = tmp_path / "live.jsonl"
    from transcript_builder import TranscriptWriter

    other = TranscriptWriter(live, "s2", str(project_dir))
    other.turn("we keep everything in SQLite, no server please", "OK.")
    marker = paths.open_marker_file("s2")
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    open(marker, "w").close()  # Claude Code has it open: its SessionEnd ends it
    execute("s2", live, cwd=str(project_dir), client=FakeClient(_ok))
    assert conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's2'").fetchone()[0] is None
