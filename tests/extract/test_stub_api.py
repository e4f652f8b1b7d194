"""End to end with the REAL `anthropic` client against a local Messages API stub (answers are HAND-WRITTEN)."""

from __future__ import annotations

import pytest

pytest.importorskip("anthropic")

from agentctx.base import paths  # noqa: E402
from agentctx.cli import main  # noqa: E402
from agentctx.extract import client as api  # noqa: E402
from agentctx.extract import cost, prompt, run  # noqa: E402
from agentctx.store import records, sessions  # noqa: E402
from extract_support import FIXTURES  # noqa: E402
from stub_api import StubAPI, reply, usage_for  # noqa: E402

SECRETS = ("sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA", "hunter2hunter2", "1 Main St")


@pytest.fixture
def live(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    monkeypatch.setattr(api, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    monkeypatch.setattr(api, "_fallback", {})

    def start(handler):
        stub = StubAPI(handler)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.base_url)
        return stub

    return start


def _fixture_transcript(tmp_path, project_dir):
    path = tmp_path / "s1.jsonl"
    text = (FIXTURES / "session.jsonl").read_text().replace('"/w/app"', f'"{project_dir}"')
    path.write_text(text)
    return path


def _handwritten(body):
    return reply(body, {
        "decisions": [
            {"what": "Store everything in SQLite", "rationale": "no server", "supersedes": None,
             "confidence": "explicit", "evidence": "We store everything in SQLite, no server."},
            {"what": "Add Redis as a cache layer", "rationale": "", "supersedes": None, "confidence": "inferred",
             "evidence": "I could also add Redis as a cache layer"},  # the assistant's words: must be dropped
        ],
        "preferences": [{"category": "tooling", "rule": "Use pytest, never unittest", "confidence": "explicit",
                         "scope": "project", "supersedes": None, "evidence": "Use pytest for tests, never unittest."}],
        "conventions": [], "gotchas": [],
        "active_work": {"current_task": "Export command", "blockers": [], "next_steps": ["Implement export"],
                        "open_questions": []},
        "flush_ok": False})


def test_request_shape_headers_schema_and_no_secrets(conn, pid, tmp_path, project_dir, live):
    path = _fixture_transcript(tmp_path, project_dir)
    with live(_handwritten) as stub:
        result = run("s1", path, cwd=str(project_dir))
    (route, headers, body), = stub.requests
    assert route == "/v1/messages"
    assert headers["authorization"] == "Bearer sk-test-key" and headers["anthropic-version"] == "2026-10-21"
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == api.MAX_TOKENS
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": prompt.SCHEMA}}
    assert not {"temperature", "top_p", "top_k", "tools"} & set(body)
    raw = stub.raw[0].decode()
    assert not [s for s in SECRETS if s in raw] and "[REDACTED" in raw
    assert "Redis as a cache too" not in raw  # thinking never leaves the machine
    assert (result.written, result.dropped, result.skipped) == (3, 1, None)
    current = records.current(conn, pid)
    assert {r.type for r in current} == {"decision", "preference", "handover"}
    assert all(r.source == "llm_extraction" for r in current)
    answer_text = _handwritten(body)[1]["content"][0]["text"]
    expected = cost.usd(cost.usage_of(usage_for(body, answer_text)), "claude-haiku-4-5")
    assert expected > 0 and result.cost_usd == pytest.approx(expected)
    assert sessions.stats(conn, pid)["extraction_cost_usd"] == pytest.approx(expected)


def test_overloaded_529_retried_then_succeeds(conn, tmp_path, project_dir, live):
    path = _fixture_transcript(tmp_path, project_dir)
    replies = iter([
        (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, {"retry-after": "0"}),
        (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}, {"retry-after": "0"}),
    ])

    def handler(body):
        return next(replies, None) or _handwritten(body)

    with live(handler) as stub:
        result = run("s1", path, cwd=str(project_dir))
    assert len(stub.requests) == 3 and result.written == 3


def test_persistent_529_exits_zero_and_logs(conn, tmp_path, project_dir, live, capsys):
    path = _fixture_transcript(tmp_path, project_dir)

    def overloaded(body):
        return 529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, {}

    with live(overloaded) as stub:
        code = main(["-C", str(project_dir), "extract", "--session-id", "s1", "--transcript", str(path)])
    assert code == 0 and len(stub.requests) == 1 + len(api.RETRY_DELAYS)
    log = (paths.logs_dir() / "extract.log").read_text()
    assert "extract failed for session s1" in log and "529" in log
    assert "api_error" in capsys.readouterr().out


def test_rejected_output_config_falls_back_to_forced_tool(conn, tmp_path, project_dir, live):
    path = _fixture_transcript(tmp_path, project_dir)

    def handler(body):
        if "output_config" in body:
            return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": "output_config.format: not supported"}}, {}
        status, data, headers = _handwritten(body)
        data["content"] = [{"type": "tool_use", "id": "toolu_01", "name": prompt.TOOL_NAME,
                            "input": __import__("json").loads(data["content"][0]["text"])}]
        data["stop_reason"] = "tool_use"
        return status, data, headers

    with live(handler) as stub:
        result = run("s1", path, cwd=str(project_dir))
    assert result.written == 3
    last = stub.requests[-1][2]
    assert last["tool_choice"] == {"type": "tool", "name": prompt.TOOL_NAME, "disable_parallel_tool_use": True}
    assert last["tools"][0]["input_schema"] == prompt.SCHEMA
