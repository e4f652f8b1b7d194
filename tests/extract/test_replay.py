"""Replay of stash recordings of the real `anthropic` client (made against the 127.0.0.1 stub; HAND-WRITTEN answers).

A missing recording is recorded on the spot (the stub serves it); a present one replays with no server at all.
To re-record after a prompt change: delete tests/extract/stashes/*.json and run this file once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

anthropic = pytest.importorskip("anthropic")

from agentctx.extract import client as api  # noqa: E402
from agentctx.extract import run  # noqa: E402
from agentctx.stash import create_stash, wrap_anthropic  # noqa: E402
from agentctx.store import records, sessions  # noqa: E402
from extract_support import FIXTURES  # noqa: E402
from stub_api import StubAPI, scripted_model  # noqa: E402
from test_stub_api import _handwritten  # noqa: E402

STASHES = Path(__file__).parent / "stashes"
META = {"responses": "hand-written (tests/extract/stub_api.py), served by a 127.0.0.1 stub of the Messages API "
                     "and recorded through the real anthropic client", "anthropic": anthropic.__version__}


@pytest.fixture
def stashed(monkeypatch):
    """(stash, stub or None): extraction's client is the stash-wrapped real client, or an offline replayer."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    opened = []

    def open_(name: str, handler, *, strict: bool = True):
        path = STASHES / f"{name}.json"
        stash = create_stash(path=path, record_mode="once", meta=META, scrub_secrets=True, strict=strict)
        stub = None
        if stash.mode == "record":
            stub = StubAPI(handler).__enter__()
            real = anthropic.Anthropic(api_key="sk-test-key", base_url=stub.base_url, max_retries=0)
            wrapped = wrap_anthropic(stash, real)
        else:
            wrapped = wrap_anthropic(stash, None)  # replay only: any live call is an error
        monkeypatch.setattr(api, "make", lambda key=None: wrapped)
        opened.append((stash, stub))
        return stash

    yield open_
    for stash, stub in opened:
        stash.close(failed=False)
        if stub is not None:
            stub.__exit__(None, None, None)


def test_replayed_extraction_is_identical(conn, pid, tmp_path, project_dir, stashed):
    path = tmp_path / "s1.jsonl"
    path.write_text((FIXTURES / "session.jsonl").read_text().replace('"/w/app"', f'"{project_dir}"'))
    stash = stashed("fixture_session", _handwritten)
    result = run("s1", path, cwd=str(project_dir))
    assert (result.written, result.dropped, result.skipped) == (3, 1, None)
    assert result.cost_usd > 0 and sessions.stats(conn, pid)["extraction_cost_usd"] == pytest.approx(result.cost_usd)
    assert {r.title for r in records.current(conn, pid)} == {
        "Store everything in SQLite", "Use pytest, never unittest", "Handover: Export command"}
    if stash.mode == "replay":
        assert stash.remaining() == [] and stash.report().ok


def test_replayed_growing_session(conn, pid, writer, project_dir, stashed):
    # Record ids differ between runs and appear in later prompts, so inputs are not compared (strict=False).
    stashed("growing_session", scripted_model, strict=False)
    costs = []
    for i in range(3):
        writer.turn(f"turn-{i:02d}: we decided to use tool{i} for step {i}. next: step {i + 1}", "OK.")
        costs.append(run("s1", writer.path, cwd=str(project_dir)).cost_usd)
    assert all(c > 0 for c in costs)
    assert len(records.current(conn, pid, types=["decision"])) == 3
    assert [r.title for r in records.current(conn, pid, types=["handover"])] == ["Handover: step 3"]
