"""Sessions that end without SessionEnd: markers, staleness, and closing them later with nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from agentctx.memory import consolidate, digest, open_sessions
from agentctx.base import paths
from agentctx.cli import main
from agentctx.base.project import detect
from agentctx.store import records

HAS_PROC = os.path.isdir("/proc") and os.path.exists(f"/proc/{os.getpid()}/stat")


def _spawned(monkeypatch):
    calls = []
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: calls.append(argv) or 1)
    return calls


def _marker(sid, **fields):
    data = {"session_id": sid, "project_id": "p1", "cwd": "/nowhere", "transcript_path": "", "started": 1000.0,
            "pid": None, "pid_start": None, **fields}
    os.makedirs(open_sessions.open_dir(), exist_ok=True)
    path = open_sessions.marker_file(sid)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    os.utime(path, (data["started"], data["started"]))
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_session_start_marks_open_and_session_end_closes(hook, conn, repo, tmp_path, monkeypatch):
    calls = _spawned(monkeypatch)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup",
                           "transcript_path": str(transcript)})
    (marker,) = open_sessions.markers()
    assert marker["session_id"] == "s1" and marker["project_id"] == detect(repo).id
    assert marker["transcript_path"] == str(transcript) and marker["cwd"] == str(repo)
    if marker["pid"] is not None:  # the process that ran the hook, past shells, and its start time (Linux)
        assert open_sessions.client_alive(marker) is True
    assert calls == []  # nothing stale: no closer spawned
    hook("session-end", {"session_id": "s1", "cwd": str(repo), "reason": "other"})
    assert open_sessions.markers() == []


def test_no_store_no_marker(hook, repo):
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert open_sessions.markers() == []


@pytest.mark.skipif(not HAS_PROC, reason="process liveness needs /proc (Linux)")
def test_stale_when_the_client_process_is_gone():
    now = time.time()
    _marker("gone", pid=_dead_pid(), pid_start="1", started=now)
    _marker("alive", pid=os.getpid(), pid_start=open_sessions._proc_stat(os.getpid())[2], started=now)
    assert [m["session_id"] for m in open_sessions.stale_markers(now)] == ["gone"]


@pytest.mark.skipif(not HAS_PROC, reason="process liveness needs /proc (Linux)")
def test_stale_when_a_newer_session_took_its_place_in_the_same_client():
    me = (os.getpid(), open_sessions._proc_stat(os.getpid())[2])
    now = time.time()
    _marker("before-clear", pid=me[0], pid_start=me[1], started=now - 60)
    _marker("after-clear", pid=me[0], pid_start=me[1], started=now)
    _marker("other-terminal", pid=os.getppid(), pid_start=open_sessions._proc_stat(os.getppid())[2],
            started=now - 120)  # older, in another live process: still open
    assert [m["session_id"] for m in open_sessions.stale_markers(now)] == ["before-clear"]


def test_without_process_information_idle_time_decides():
    now = 1_000_000.0
    _marker("idle-long", started=now - open_sessions.IDLE_SECONDS - 1)
    _marker("idle-a-bit", started=now - open_sessions.NEWER_SESSION_IDLE_SECONDS - 1)
    _marker("recent", started=now - 5)
    assert {m["session_id"] for m in open_sessions.stale_markers(now)} == {"idle-long", "idle-a-bit"}
    # "idle-a-bit" is stale only because a newer session of its project (p1) started after its last activity
    os.unlink(open_sessions.marker_file("recent"))
    _marker("recent", started=now - 5, project_id="another")
    assert {m["session_id"] for m in open_sessions.stale_markers(now)} == {"idle-long"}


def test_transcript_activity_keeps_a_session_open(tmp_path):
    now = 1_000_000.0
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n", encoding="utf-8")
    os.utime(transcript, (now - 10, now - 10))
    _marker("busy", started=now - open_sessions.IDLE_SECONDS - 100, transcript_path=str(transcript))
    assert open_sessions.stale_markers(now) == []
    assert open_sessions.stale_markers(now + open_sessions.IDLE_SECONDS)[0]["session_id"] == "busy"


def test_session_start_spawns_the_closer_when_an_earlier_session_never_ended(hook, conn, repo, monkeypatch):
    calls = _spawned(monkeypatch)
    _marker("abandoned", started=time.time() - open_sessions.IDLE_SECONDS - 1)
    hook("session-start", {"session_id": "s2", "cwd": str(repo), "source": "startup"})
    assert len(calls) == 1 and calls[0][-2:] == ["consolidate", "--close-stale"]


def test_close_stale_runs_the_end_of_session_work(hook, conn, repo, tmp_path, monkeypatch, capsys):
    _spawned(monkeypatch)
    pid = detect(repo).id
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"content": "start the e2e branch"}}) + "\n",
                          encoding="utf-8")
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup",
                           "transcript_path": str(transcript)})
    hook("post-tool-use", {"session_id": "s1", "cwd": str(repo), "tool_name": "Bash",
                           "transcript_path": str(transcript), "tool_input": {"command": "git checkout -b feature/e2e-check"},
                           "tool_response": {"stdout": "Switched to a new branch 'feature/e2e-check'"}})
    # no SessionEnd: the client died. Make it look long gone (and its process unknown).
    marker = open_sessions.markers()[0]
    marker.update(pid=None, pid_start=None, started=time.time() - 3 * 3600)
    path = marker.pop("_path")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(marker, fh)
    old = time.time() - 3 * 3600
    for p in (path, str(transcript), os.path.join(paths.state_dir_str(), "session-s1.jsonl")):
        os.utime(p, (old, old))
    monkeypatch.chdir(repo)
    assert main(["consolidate", "--close-stale", "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["stale_sessions_closed"]
    assert report["session_id"] == "s1" and "error" not in report
    assert report["session"] == ["rule-based handover written"] and report["ledger_rows_drained"] == 0
    from agentctx.base.ids import parse_iso

    (ended,) = conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's1'").fetchone()
    assert ended == report["ended_at"] and abs(parse_iso(ended).timestamp() - old) < 2  # its last activity, not now
    (handover,) = records.current(conn, pid, types=["handover"])
    assert "Branch: feature/e2e-check" in handover.body and "start the e2e branch" in handover.body
    assert "feature/e2e-check" in digest.read_text(pid)
    assert open_sessions.markers() == [] and os.listdir(open_sessions.open_dir()) == []
    assert not os.path.exists(os.path.join(paths.state_dir_str(), "session-s1.jsonl"))
    assert main(["consolidate", "--close-stale", "--json"]) == 0  # closed once: nothing left
    assert json.loads(capsys.readouterr().out)["stale_sessions_closed"] == []


def test_a_claimed_session_is_closed_by_one_process_only(conn, repo):
    _marker("s1", project_id=detect(repo).id, cwd=str(repo), started=1000.0)
    (marker,) = open_sessions.stale_markers()
    assert open_sessions.claim(marker) is not None
    assert open_sessions.claim(marker) is None  # the second closer loses
    assert consolidate.close_stale_sessions() == []  # a fresh claim is someone else's work in progress


def test_a_claim_left_by_a_dead_closer_is_retried(conn, repo):
    _marker("s1", project_id=detect(repo).id, cwd=str(repo), started=1000.0)
    (marker,) = open_sessions.stale_markers()
    claimed = open_sessions.claim(marker)
    os.utime(claimed, (1000.0, 1000.0))
    (report,) = consolidate.close_stale_sessions()
    assert report["session_id"] == "s1" and "error" not in report
    assert os.listdir(open_sessions.open_dir()) == []


def test_consolidate_closes_stale_sessions_but_not_its_own(conn, repo):
    from agentctx.memory import consolidate

    _marker("old", project_id=detect(repo).id, cwd=str(repo), started=1000.0)
    _marker("mine", project_id=detect(repo).id, cwd=str(repo), started=1000.0)
    report = consolidate.run(detect(repo), session_id="mine")
    assert [r["session_id"] for r in report["stale_sessions_closed"]] == ["old"]
    assert [m["session_id"] for m in open_sessions.markers()] == ["mine"]


def test_post_tool_use_reopens_a_session_closed_too_early(hook, conn, repo, monkeypatch):
    _spawned(monkeypatch)
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    hook("session-end", {"session_id": "s1", "cwd": str(repo), "reason": "other"})
    assert open_sessions.markers() == []
    hook("post-tool-use", {"session_id": "s1", "cwd": str(repo), "tool_name": "Bash",
                           "tool_input": {"command": "git checkout -b late"}, "tool_response": {"stdout": ""}})
    assert [m["session_id"] for m in open_sessions.markers()] == ["s1"]  # its late log still gets wrapped up
