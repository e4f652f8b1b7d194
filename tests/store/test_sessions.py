"""Sessions and the injection ledger."""

from __future__ import annotations

from agentctx.store import sessions

P = "p" * 64
Q = "q" * 64


def row(conn, sid):
    return conn.execute("SELECT * FROM sessions WHERE session_id = ?", (sid,)).fetchone()


def test_touch_creates_once(conn):
    sessions.touch(conn, "s1", P)
    started = row(conn, "s1")["started_at"]
    sessions.touch(conn, "s1", P)
    assert row(conn, "s1")["started_at"] == started
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_end_sets_ended_at_even_for_an_unseen_session(conn):
    sessions.end(conn, "s2", P)
    r = row(conn, "s2")
    assert r["ended_at"] and r["started_at"] and r["project_id"] == P


def test_costs_add_up(conn):
    sessions.add_cost(conn, "s1", P, 0.006)
    sessions.add_cost(conn, "s1", P, 0.021)
    assert abs(row(conn, "s1")["extraction_cost_usd"] - 0.027) < 1e-9


def test_log_injection_writes_the_ledger_and_counts_tokens(conn):
    sessions.log_injection(conn, session_id="s1", project_id=P, event="SessionStart", prompt_hash=None,
                           record_ids=["A", "B"], scores=[0.91234, 0.5], tokens=1200)
    sessions.log_injection(conn, session_id="s1", project_id=P, event="UserPromptSubmit", prompt_hash="h",
                           record_ids=["C"], scores=[0.3], tokens=800)
    assert row(conn, "s1")["tokens_injected"] == 2000
    ledger = sessions.injections(conn, P)
    assert [i.event for i in ledger] == ["UserPromptSubmit", "SessionStart"]
    assert ledger[1].record_ids == ("A", "B") and ledger[1].scores == (0.9123, 0.5)
    assert ledger[0].prompt_hash == "h" and ledger[0].tokens == 800
    assert sessions.injections(conn, P, session_id="other") == []
    assert len(sessions.injections(conn, P, limit=1)) == 1


def test_log_injection_without_a_session(conn):
    sessions.log_injection(conn, session_id=None, project_id=P, event="UserPromptSubmit", prompt_hash=None,
                           record_ids=[], scores=[], tokens=0)
    assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0
    assert len(sessions.injections(conn, P)) == 1


def test_stats_are_per_project(conn):
    sessions.log_injection(conn, session_id="s1", project_id=P, event="SessionStart", prompt_hash=None,
                           record_ids=["A"], scores=[1.0], tokens=2000)
    sessions.add_cost(conn, "s1", P, 0.027)
    sessions.end(conn, "s1", P)
    sessions.touch(conn, "s2", Q)
    stats = sessions.stats(conn, P)
    assert stats["sessions"] == 1 and stats["tokens_injected"] == 2000 and stats["injections"] == 1
    assert stats["extraction_cost_usd"] == 0.027
    assert stats["last_session_at"] == row(conn, "s1")["ended_at"]
    empty = sessions.stats(conn, "nobody")
    assert empty == {"sessions": 0, "tokens_injected": 0, "extraction_cost_usd": 0.0, "last_session_at": None,
                     "injections": 0}


def test_latest_session(conn):
    assert sessions.latest_session(conn, P) is None
    sessions.touch(conn, "s1", P)
    conn.execute("UPDATE sessions SET started_at = '2020-01-01T00:00:00.000Z' WHERE session_id = 's1'")
    sessions.touch(conn, "s2", P)
    assert sessions.latest_session(conn, P) == "s2"


def test_log_prompt_keeps_what_was_asked_and_clips_a_long_one(conn):
    from agentctx.store import browse

    sessions.log_prompt(conn, session_id="s1", project_id=P, prompt_hash="h1", text="why is the VAT total off?",
                        chars=25, created_at="2026-03-02T09:00:00.000Z")
    pasted = "Traceback (most recent call last):\n" + "  File x.py, line 1\n" * 400
    sessions.log_prompt(conn, session_id="s1", project_id=P, prompt_hash="h2", text=pasted, chars=len(pasted))
    asked = browse.session(conn, "s1")["prompts"]
    assert [(a["prompt_hash"], a["chars"]) for a in asked] == [("h1", 25), ("h2", len(pasted))]
    assert asked[0]["text"] == "why is the VAT total off?" and asked[0]["at"] == "2026-03-02T09:00:00.000Z"
    assert len(asked[1]["text"]) == sessions.PROMPT_CHARS and asked[1]["text"].endswith("…")
    assert browse.session(conn, "s1")["started_at"]  # a prompt is a sign of life: the session exists


def test_reset_removes_the_projects_prompts(conn):
    from agentctx.store import records

    for pid in (P, Q):
        sessions.log_prompt(conn, session_id=f"s-{pid[0]}", project_id=pid, prompt_hash="h", text="asked", chars=5)
    records.delete_project(conn, P)
    assert [r[0] for r in conn.execute("SELECT project_id FROM prompts")] == [Q]


def test_a_session_starts_when_its_first_ledger_row_was_written_not_when_it_was_drained(conn):
    """The hooks' rows reach the store later (the pending ledger): the session's start is the hook's time."""
    sessions.log_injection(conn, session_id="s9", project_id=P, event="SessionStart", prompt_hash=None,
                           record_ids=["A"], scores=[], tokens=400, created_at="2030-01-02T08:00:00.000Z")
    assert row(conn, "s9")["started_at"] == "2030-01-02T08:00:00.000Z"
