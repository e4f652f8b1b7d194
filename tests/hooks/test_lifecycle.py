from __future__ import annotations

import json
import sys

from agentctx.base import config, paths
from agentctx.hooks import lifecycle
from agentctx.base.project import detect
from agentctx.store import records


def _spawned(monkeypatch):
    calls = []
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: calls.append(argv) or 1)
    return calls


def _fake_llm_extra(monkeypatch, tmp_path):
    """An importable (empty) `anthropic` package, named as a fake: Stop only checks that [llm] is installed."""
    fake = tmp_path / "fake-site"
    (fake / "anthropic").mkdir(parents=True)
    (fake / "anthropic" / "__init__.py").write_text("# fake for the Stop hook's [llm] check\n")
    monkeypatch.delitem(sys.modules, "anthropic", raising=False)
    monkeypatch.syspath_prepend(str(fake))


def test_stop_spawns_extract_debounced(hook, monkeypatch, tmp_path, repo):
    calls = _spawned(monkeypatch)
    _fake_llm_extra(monkeypatch, tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("x" * 100, encoding="utf-8")
    payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo)}
    assert hook("stop", payload) is None
    assert hook("stop", payload) is None  # same size: debounced
    transcript.write_text("x" * (lifecycle.DEBOUNCE_BYTES + 200), encoding="utf-8")
    assert hook("stop", payload) is None
    assert len(calls) == 2 and calls[0][-4:] == ["--session-id", "s1", "--transcript", str(transcript)]
    assert "extract" in calls[0]


def test_stop_without_llm_or_key_spawns_nothing(hook, monkeypatch, tmp_path, repo):
    calls = _spawned(monkeypatch)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("x", encoding="utf-8")
    hook("stop", {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo)})
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # a key, llm on, but no [llm] extra: nothing to spawn
    hook("stop", {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo)})
    config.set_value("llm", "false")
    hook("stop", {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo)})
    assert calls == []


def test_session_end_closes_session_deletes_dedup_spawns_consolidate(hook, monkeypatch, conn, repo):
    calls = _spawned(monkeypatch)
    paths.dedup_path("s1").write_text("[]", encoding="utf-8")
    hook("session-end", {"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": str(repo), "reason": "other"})
    assert not paths.dedup_path("s1").exists()
    assert calls[0][-5:] == ["consolidate", "--session-id", "s1", "--transcript", "/t.jsonl"]
    # SessionEnd opens no database (issue 26, item 10): its end is queued, and the consolidation drains it first.
    assert conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's1'").fetchone() is None
    from agentctx.memory import pending

    pending.drain_pending(conn)
    assert conn.execute("SELECT ended_at FROM sessions WHERE session_id = 's1'").fetchone()[0]


def _transcript(tmp_path, prompts):
    lines = [{"type": "user", "message": {"role": "user", "content": p}} for p in prompts]
    lines.append({"type": "user", "isMeta": True, "message": {"content": "meta line"}})
    lines.append({"type": "user", "message": {"content": [{"type": "tool_result", "content": "3 passed"}]}})
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n{partial", encoding="utf-8")
    return path


def test_pre_compact_snapshots_but_keeps_richer_handover(hook, conn, add, repo, tmp_path):
    path = _transcript(tmp_path, ["fix the login bug", "now add tests " + "y" * 10_000])
    pid = detect(repo).id
    hook("pre-compact", {"session_id": "s1", "transcript_path": str(path), "cwd": str(repo), "trigger": "auto"})
    (snap,) = records.current(conn, pid, types=["handover"])
    assert "fix the login bug" in snap.body and "meta line" not in snap.body and len(snap.body) <= 2000
    assert snap.confidence == "inferred" and snap.source == "hook_observation"
    rich = add("Handover: auth work", "Current task: auth\nNext steps:\n- tests", type_="handover",
               source="llm_extraction")
    hook("pre-compact", {"session_id": "s1", "transcript_path": str(path), "cwd": str(repo)})
    assert [r.id for r in records.current(conn, pid, types=["handover"])] == [rich.id]


def test_pre_compact_missing_transcript_writes_nothing(hook, conn, repo):
    hook("pre-compact", {"session_id": "s1", "transcript_path": "/nope.jsonl", "cwd": str(repo)})
    assert records.current(conn, detect(repo).id, types=["handover"]) == []


def _working_session(hook, repo, tmp_path):
    """A session that edited a file, switched branch and has a failing test, then compacts."""
    base = {"session_id": "s1", "cwd": str(repo)}
    hook("post-tool-use", {**base, "tool_name": "Edit", "tool_input": {"file_path": str(repo / "src" / "auth.py")}})
    hook("post-tool-use", {**base, "tool_name": "Bash", "tool_input": {"command": "git checkout -b fix-login"},
                           "tool_response": {"stdout": "Switched to a new branch 'fix-login'"}})
    hook("post-tool-use", {**base, "tool_name": "Bash", "tool_input": {"command": "pytest tests/test_auth.py"},
                           "tool_response": {"stdout": "FAILED tests/test_auth.py::test_expiry - AssertionError"}})
    path = _transcript(tmp_path, ["fix the login token expiry bug"])
    hook("pre-compact", {**base, "transcript_path": str(path), "trigger": "auto"})


def _context(out):
    return out["hookSpecificOutput"]["additionalContext"]


def test_session_start_after_compaction_gives_back_the_snapshot_with_the_digest(hook, conn, add, repo, tmp_path):
    from agentctx.base import tokens

    add("Use SQLite for storage", "One file, WAL.")
    _working_session(hook, repo, tmp_path)
    text = _context(hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "compact"}))
    assert text.startswith("Working state before compaction (agentctx):")
    for part in ("fix the login token expiry bug", "auth.py", "fix-login", "test_expiry", "Use SQLite for storage"):
        assert part in text, part
    assert text.count("Snapshot taken before auto compaction") == 1  # not again as the digest's handover
    assert tokens.estimate(text) <= tokens.SESSION_START_BUDGET
    # Delivered once: a later resume gets neither the snapshot nor the digest the conversation holds already.
    again = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "resume"})
    assert again is None or "hookSpecificOutput" not in again


def test_compaction_snapshot_survives_a_richer_handover_and_a_full_digest(hook, conn, add, repo, tmp_path):
    from agentctx.base import tokens

    add("Handover: auth work", "Current task: auth\n" + "detail " * 250, type_="handover", source="llm_extraction")
    for i in range(30):
        add(f"Decision number {i} about caching layers", "because " * 80)
    _working_session(hook, repo, tmp_path)
    assert records.current(conn, detect(repo).id, types=["handover"])[0].title == "Handover: auth work"
    text = _context(hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "compact"}))
    assert "fix the login token expiry bug" in text and "test_expiry" in text and "Decision number 29" in text
    assert tokens.estimate(text) <= tokens.SESSION_START_BUDGET


def test_compaction_snapshot_is_only_for_its_own_session(hook, conn, add, repo, tmp_path):
    add("Use SQLite for storage", "One file, WAL.")
    _working_session(hook, repo, tmp_path)
    text = _context(hook("session-start", {"session_id": "other", "cwd": str(repo), "source": "compact"}))
    assert not text.startswith("Working state before compaction") and "Use SQLite for storage" in text
