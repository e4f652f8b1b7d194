"""Files the hooks do not control are read bounded in size and time: devices, FIFOs and planted symlinks
(issue 16, item 2). Each case runs as a real process with a memory cap, as Claude Code would run it."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import pytest

from agentctx.base import paths, spawn
from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.store import records

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, /dev/zero and rlimits are POSIX")

MEMORY_CAP = 768 * 1024 * 1024  # a process that reads /dev/zero whole dies at this cap (MemoryError)


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _agentctx(args: list[str], payload: dict | None, cwd, timeout: float = 30) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "agentctx", *args], input=json.dumps(payload) if payload else "",
                          capture_output=True, text=True, cwd=str(cwd), env=dict(os.environ), timeout=timeout,
                          preexec_fn=_cap_memory)
    return done, time.monotonic() - started


def _hooks_log() -> str:
    log = paths.logs_dir() / "hooks.log"
    return log.read_text(encoding="utf-8") if log.exists() else ""


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "transcript.fifo"
    os.mkfifo(path)
    return path


def test_pre_compact_on_dev_zero_transcript_is_bounded(conn, repo):
    done, took = _agentctx(["hook", "pre-compact"], {"session_id": "s1", "transcript_path": "/dev/zero",
                                                     "cwd": str(repo), "trigger": "auto"}, repo)
    assert done.returncode == 0 and took < 10
    assert "MemoryError" not in _hooks_log()


def test_pre_compact_on_a_fifo_nobody_writes_returns_at_once(conn, repo, fifo):
    done, took = _agentctx(["hook", "pre-compact"], {"session_id": "s1", "transcript_path": str(fifo),
                                                     "cwd": str(repo), "trigger": "auto"}, repo)
    assert done.returncode == 0 and took < 5


def test_consolidate_with_dev_zero_transcript_is_bounded(conn, repo):
    done, took = _agentctx(["consolidate", "--session-id", "s1", "--transcript", "/dev/zero"], None, repo)
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 0 and took < 10


def test_consolidate_with_a_fifo_transcript_does_not_hang(conn, repo, fifo):
    done, took = _agentctx(["consolidate", "--session-id", "s1", "--transcript", str(fifo)], None, repo)
    assert done.returncode == 0 and took < 5


def test_a_dedup_file_planted_as_symlink_to_dev_zero_does_not_stop_injection(add, conn, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    os.symlink("/dev/zero", paths.dedup_file("s1"))
    done, took = _agentctx(["hook", "user-prompt-submit"], {"session_id": "s1", "cwd": str(repo),
                                                            "prompt": "sqlite storage decision: WAL and busy timeout"}, repo)
    assert done.returncode == 0 and took < 10
    assert "[decision] Storage decision" in done.stdout
    assert "MemoryError" not in _hooks_log()
    assert os.path.islink(paths.dedup_file("s1"))  # never written through


def test_a_dedup_file_planted_as_fifo_neither_hangs_nor_stops_injection(add, conn, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    os.mkfifo(paths.dedup_file("s1"))
    done, took = _agentctx(["hook", "user-prompt-submit"], {"session_id": "s1", "cwd": str(repo),
                                                            "prompt": "sqlite storage decision: WAL and busy timeout"}, repo)
    assert done.returncode == 0 and took < 5
    assert "[decision] Storage decision" in done.stdout


def test_transcript_reads_refuse_devices_and_cap_their_size(tmp_path):
    from agentctx.base import safeio
    from agentctx.memory import snapshot
    from agentctx.extract import transcript

    assert snapshot.recent_prompts("/dev/zero") == []
    with pytest.raises(OSError):
        transcript.read("/dev/zero")
    big = tmp_path / "big.jsonl"
    line = json.dumps({"type": "user", "message": {"content": "hello " * 50}}) + "\n"
    big.write_text(line * 2000, encoding="utf-8")
    part = transcript.read(big, 0, limit=10 * len(line) + 5)
    assert len(part.turns) == 10 and part.end == 10 * len(line)  # the torn 11th line waits for the next read
    assert transcript.read(big, part.end, limit=len(line)).end == 11 * len(line)
    with pytest.raises(OSError):
        safeio.read_head(str(tmp_path), 100)  # a directory is not a regular file


def test_a_background_process_outlives_its_lifetime_by_no_more_than_the_grace(tmp_path):
    # A detached child that would sleep a minute is ended by its own watchdog after its lifetime.
    argv = [sys.executable, "-c", "import agentctx.base.spawn as s, time; s.limit_lifetime(); time.sleep(60)"]
    started = time.monotonic()
    pid = spawn.detached(argv, lifetime=1.0)
    assert pid
    while time.monotonic() - started < 20:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("the detached process was still running after 20 s")
    assert time.monotonic() - started < 10


def test_spawned_consolidation_carries_its_lifetime(monkeypatch, hook, conn, repo):
    seen = []

    class FakePopen:  # a fake: records what the real Popen would have been given
        def __init__(self, argv, **kwargs):
            seen.append((argv, kwargs["env"].get(spawn.LIFETIME_ENV)))
            self.pid = 1

    monkeypatch.setattr("subprocess.Popen", FakePopen)
    hook("session-end", {"session_id": "s1", "cwd": str(repo), "reason": "other"})
    assert seen and "consolidate" in seen[0][0]
    assert float(seen[0][1]) == spawn.LIFETIME_S["consolidate"]


def test_consolidate_still_writes_the_handover_from_a_regular_transcript(conn, repo, tmp_path):
    t = tmp_path / "t.jsonl"
    t.write_text(json.dumps({"type": "user", "message": {"content": "fix the login bug"}}) + "\n", encoding="utf-8")
    done, _ = _agentctx(["consolidate", "--session-id", "s1", "--transcript", str(t)], None, repo)
    assert done.returncode == 0, done.stderr
    (snap,) = records.current(conn, detect(repo).id, types=["handover"])
    assert "fix the login bug" in snap.body


@pytest.mark.parametrize("planted", ["fifo", "dev-zero"])
def test_a_git_config_planted_as_a_fifo_or_dev_zero_neither_hangs_nor_stops_injection(planted, conn, tmp_path):
    # The repository's own files are not ours either: project detection reads .git/config on a root-cache miss.
    root = tmp_path / "planted"
    (root / ".git").mkdir(parents=True)
    config = root / ".git" / "config"
    if planted == "fifo":
        os.mkfifo(config)
    else:
        os.symlink("/dev/zero", config)
    # Detection in a capped child first (a regression must not hang or exhaust the test run itself).
    found = subprocess.run([sys.executable, "-c", "import sys; from agentctx.base.project import detect; "
                            "print(detect(sys.argv[1]).id)", str(root)], capture_output=True, text=True,
                           timeout=10, preexec_fn=_cap_memory)
    assert found.returncode == 0, found.stderr[-500:]
    project_id = found.stdout.strip()
    records.insert(conn, NewRecord("decision", "Storage decision", "We keep records in sqlite with WAL.", project_id))
    done, took = _agentctx(["hook", "user-prompt-submit"], {"session_id": "s1", "cwd": str(root),
                                                            "prompt": "sqlite storage decision: WAL and busy timeout"}, root)
    assert done.returncode == 0 and took < 5
    assert "[decision] Storage decision" in done.stdout
    assert "MemoryError" not in _hooks_log()
