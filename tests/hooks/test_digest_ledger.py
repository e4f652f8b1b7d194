"""What SessionStart's digest carries is in the ledger (issue 26, item 5), and a digest whose budget dropped records
says so in one line."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.memory import digest, pending
from agentctx.store import records, sessions


def test_the_digest_records_its_records_in_the_ledger(hook, conn, add, repo):
    wal = add("Use SQLite WAL", "One file, WAL mode, a busy timeout.")
    snake = add("Snake case everywhere", "Functions and modules.", type_="convention")
    guess = add("Maybe Redis later", "A hunch.", confidence="inferred")  # not established: not in the digest
    project = detect(repo)
    data = digest.refresh(conn, project.id, project=project)
    assert set(data["ids"]) == {wal.id, snake.id} and guess.id not in data["ids"]
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Use SQLite WAL" in out["hookSpecificOutput"]["additionalContext"]
    pending.drain_pending(conn)
    (row,) = [i for i in sessions.injections(conn, project.id, session_id="s1") if i.event == "SessionStart"]
    assert set(row.record_ids) == {wal.id, snake.id} and row.tokens > 0
    assert records.get(conn, wal.id).access_count == 1  # carried: no longer "never injected"


def test_a_digest_whose_budget_drops_decisions_says_so(conn, add, repo, monkeypatch):
    monkeypatch.setitem(digest.SECTION_BUDGETS, "decisions", 150)
    for i in range(8):
        add(f"Decision {i} about the storage layer", "A long enough explanation of why it was decided. " * 3)
    text = digest.decisions_section(conn, detect(repo).id)
    lines = text.splitlines()
    shown = [ln for ln in lines if ln.startswith("- ")]
    assert 0 < len(shown) < 8
    assert lines[-1] == f"({8 - len(shown)} more decisions and conventions did not fit here: ctx_search finds them.)"


def test_a_digest_with_room_for_everything_says_nothing_more(conn, add, repo):
    add("Use SQLite WAL", "One file.")
    assert "did not fit" not in digest.decisions_section(conn, detect(repo).id)


def test_a_resumed_session_gets_no_second_copy_of_the_digest(hook, conn, add, repo):
    add("Use SQLite WAL", "One file, WAL mode, a busy timeout.")
    project = detect(repo)
    digest.refresh(conn, project.id, project=project)
    first = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Use SQLite WAL" in first["hookSpecificOutput"]["additionalContext"]
    resumed = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "resume"})
    assert resumed is None or "hookSpecificOutput" not in resumed  # issue 26, item 8: not twice in one request
    # A new decision since, and the handover this very session wrote at its end (issue 42 item 11): the resumed
    # session gets only what its conversation lacks, the new decision, not the digest again nor its own handover.
    add("Snake case everywhere", "Functions and modules.", type_="convention")
    add("Handover: end-of-session snapshot", "Snapshot taken at session end.\n\nFiles changed:\n- src/a.py",
        type_="handover", confidence="inferred", session_id="s1")
    digest.refresh(conn, project.id, project=project)
    again = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "resume"})
    resumed_text = again["hookSpecificOutput"]["additionalContext"]
    assert resumed_text.startswith("New in this project's memory since this session started (agentctx):")
    assert "Snake case everywhere" in resumed_text and "Use SQLite WAL" not in resumed_text
    assert "handover" not in resumed_text.lower()
    # Another session's handover is news to this conversation.
    add("Handover: end-of-session snapshot", "Snapshot taken later.\n\nBranch: fix-rules", type_="handover",
        confidence="inferred", session_id="s2")
    digest.refresh(conn, project.id, project=project)
    other = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "resume"})
    assert "Branch: fix-rules" in other["hookSpecificOutput"]["additionalContext"]
    third = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "resume"})
    assert third is None or "hookSpecificOutput" not in third  # nothing new since: nothing
    # After compaction the conversation lost it: the digest comes back.
    compacted = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "compact"})
    assert "Use SQLite WAL" in compacted["hookSpecificOutput"]["additionalContext"]
