"""Stop after every turn of a growing transcript, then SessionEnd: each line is sent once, the digest is current.

Real hooks (`agentctx hook stop` / `session-end`), the real `agentctx consolidate`, the real `anthropic` client,
and a 127.0.0.1 stub whose model is HAND-WRITTEN rules (stub_api.scripted_model). Detached spawns run as threads,
so they overlap like real ones.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time

import pytest

pytest.importorskip("anthropic")

from agentctx.memory import digest  # noqa: E402
from agentctx.cli import main  # noqa: E402
from agentctx.extract import client as api  # noqa: E402
from agentctx.extract import run  # noqa: E402
from agentctx.hooks import lifecycle  # noqa: E402
from agentctx.store import records  # noqa: E402
from stub_api import StubAPI, carry_part, new_part  # noqa: E402

MARK = re.compile(r"turn-(\d\d):")
FINAL: list = []


@pytest.fixture
def spawned(monkeypatch):
    """`spawn.detached` replaced by a thread running the same command line in-process."""
    threads: list[threading.Thread] = []

    def detached(argv, *, cwd=None):
        args = ["-C", cwd, *argv[3:]]  # drop "python -m agentctx"
        t = threading.Thread(target=main, args=(args,))
        t.start()
        threads.append(t)
        return 1

    monkeypatch.setattr("agentctx.base.spawn.detached", detached)

    def final_run(*args, **kwargs):  # what `agentctx consolidate` calls first; keep its result for the test
        result = run(*args, **kwargs)
        FINAL.append((kwargs.get("final"), result))
        return result

    monkeypatch.setattr("agentctx.extract.run", final_run)
    return threads


def _hook(event: str, payload: dict, monkeypatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
    return main(["hook", event])


def test_each_line_sent_once_and_digest_has_newest_handover(conn, pid, writer, project_dir, monkeypatch, spawned):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")
    monkeypatch.setattr(api, "RETRY_DELAYS", (0.0,))
    monkeypatch.setattr(lifecycle, "DEBOUNCE_BYTES", 1)  # spawn on every Stop: the worst case for overlap
    turns = 12
    payload = {"session_id": "s1", "transcript_path": str(writer.path), "cwd": str(project_dir)}
    FINAL.clear()
    with StubAPI() as stub:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", stub.base_url)
        for i in range(turns):
            writer.turn(f"turn-{i:02d}: we decided to use tool{i} for step {i}. next: step {i + 1}",
                        f"OK, tool{i} it is.", tool=f"make step{i}")
            assert _hook("stop", {**payload, "hook_event_name": "Stop"}, monkeypatch) == 0
            for t in spawned:
                t.join(30)
        stub.delay = 0.5  # the last Stop's extraction is still in flight when the session ends ...
        writer.turn(f"turn-{turns:02d}: we decided to use tool{turns} for the release. next: tag it", "Tagging.")
        _hook("stop", {**payload, "hook_event_name": "Stop"}, monkeypatch)
        while len(stub.requests) < turns + 1:  # its request is at the API (the transcript was read) ...
            time.sleep(0.01)
        # ... and one more turn arrives that no Stop extracted (debounced, or the session was closed at once)
        writer.turn(f"turn-{turns + 1:02d}: we decided to use tool{turns + 1} for docs. next: ship it", "Ok.")
        _hook("session-end", {**payload, "hook_event_name": "SessionEnd", "reason": "other"}, monkeypatch)
        for t in list(spawned):
            t.join(30)
    turns += 1
    (final, result), = FINAL  # consolidate's pass: it waited for the Stop run, then extracted the last turn
    assert final is True and result.skipped is None and result.written >= 2
    # Extraction's requests: consolidation also runs the expansion pass through the same API (its own tool).
    bodies = [b for b in stub.bodies() if "find its records again" not in json.dumps(b.get("system"))]
    sent: list[int] = []
    for i, body in enumerate(bodies):
        fresh = [int(m) for m in MARK.findall(new_part(body))]
        carried = [int(m) for m in MARK.findall(carry_part(body))]
        assert set(carried) <= set(sent), f"request {i} carried lines never sent"
        sent += fresh
    assert sorted(sent) == list(range(turns + 1)), "every developer line sent exactly once as new"
    assert len(bodies) <= turns + 1
    decisions = records.current(conn, pid, types=["decision"])
    assert len(decisions) == turns + 1
    text = digest.read_text(pid)
    assert "ship it" in text, "the digest computed after SessionEnd holds the newest handover"
    (handover,) = records.current(conn, pid, types=["handover"])
    assert handover.title == "Handover: ship it"
