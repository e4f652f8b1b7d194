"""`agentctx search --explain` and `agentctx why`: the prompt hook's near misses, with threshold and deciding features."""

from __future__ import annotations

import io
import json
import sys

from agentctx.hooks import run as run_hook


def _record(in_p, type_, title, body):
    result = in_p("record", "--type", type_, "--title", title, "--body", body)
    assert result.rc == 0, result.err
    return result.out.strip()


def _prompt(monkeypatch, capsys, cwd, prompt, session="s1"):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"session_id": session, "cwd": str(cwd), "prompt": prompt})))
    assert run_hook(["user-prompt-submit"]) == 0
    return capsys.readouterr().out


def test_search_explain_shows_each_candidate_against_the_threshold(in_p):
    errors = _record(in_p, "convention", "API errors are returned as RFC 7807 problem+json",
                     "Every HTTP error response uses application/problem+json.")
    _record(in_p, "decision", "Rate limits of the shipping partner API", "10 requests per second per key.")
    rows = json.loads(in_p("search", "--explain", "--json", "how", "should", "API", "errors", "be", "returned?").out)
    assert rows[0]["id"] == errors and rows[0]["injected"] and rows[0]["prompt_class"] == "short"
    assert rows[0]["p"] >= rows[0]["threshold"] and ">=" in rows[0]["reason"]
    assert {"title_cover", "cover", "relevance", "question_cover", "expanded"} <= set(rows[0]["features"])
    text = in_p("search", "--explain", "fix the flaky API test on windows").out
    assert "short prompt, threshold" in text and "not" in text and "gate p=" in text and "title_cover" in text


def test_search_explain_names_what_only_search_finds_by_another_name(in_p):
    pg = _record(in_p, "decision", "Use PostgreSQL for orders", "Orders live in PostgreSQL 16.")
    found = json.loads(in_p("search", "--json", "which", "database", "do", "we", "use?").out)
    assert [r["id"] for r in found] == [pg]
    text = in_p("search", "--explain", "which", "database", "do", "we", "use?").out
    assert "no candidates: the prompt hook would inject nothing" in text
    assert f"search only [decision] Use PostgreSQL for orders  {pg}" in text and "own words only" in text
    assert json.loads(in_p("search", "--explain", "--json", "which", "database", "do", "we", "use?").out) == []
    assert "search only" not in in_p("search", "--explain", "postgresql", "orders").out  # the hook's own candidate


def test_why_lists_candidates_that_were_not_injected(in_p, proj_p, monkeypatch, capsys):
    wal = _record(in_p, "decision", "Use SQLite with WAL for storage", "We keep records in sqlite with WAL.")
    errors = _record(in_p, "convention", "API errors are returned as RFC 7807 problem+json",
                     "Every HTTP error response uses application/problem+json.")
    assert "Use SQLite with WAL for storage" in _prompt(monkeypatch, capsys, proj_p, "sqlite storage and WAL")
    assert _prompt(monkeypatch, capsys, proj_p, "please fix the flaky error in the storage test") == ""
    data = json.loads(in_p("why", "--json").out)
    assert [r["id"] for i in data["injections"] for r in i["records"]] == [wal]
    newest, older = data["prompts"][:2]
    assert older["candidates"][0]["id"] == wal and older["candidates"][0]["injected"]
    missed = newest["candidates"][0]
    assert not missed["injected"] and missed["p"] < newest["threshold"] and "<" in missed["reason"]
    assert missed["title"] in ("Use SQLite with WAL for storage", "API errors are returned as RFC 7807 problem+json")
    assert "prompt" not in newest and newest["prompt_chars"] == len("please fix the flaky error in the storage test")
    text = in_p("why").out
    assert "recent prompts" in text and "not " in text and errors in text + wal
    assert in_p("why", "--session", "other", "--json").out.count('"candidates"') == 0


def _conn():
    from agentctx.base import paths
    from agentctx.store import db

    return db.connect(paths.db_path())


def test_why_shows_the_prompts_redacted_start(in_p, proj_p, monkeypatch, capsys):
    """Issue 42 item 10: `why` named a prompt only by its hash and length."""
    _record(in_p, "decision", "Use SQLite with WAL for storage", "We keep records in sqlite with WAL.")
    key = "sk-ant-api03-" + "Q" * 40
    _prompt(monkeypatch, capsys, proj_p, f"sqlite storage and WAL, the deploy key is {key}")
    data = json.loads(in_p("why", "--json").out)
    start = data["prompts"][0]["prompt_start"]
    assert start.startswith("sqlite storage and WAL, the deploy key is") and key not in start
    text = in_p("why").out
    assert '"sqlite storage and WAL, the deploy key is' in text and key not in text


def test_search_explain_and_why_say_the_same_of_a_record_waiting_for_review(in_p, proj_p, monkeypatch, capsys):
    """Issue 42 item 10: `search --explain` said "injected" of a record the hook held back; one path now decides."""
    from agentctx.store import trust

    wal = _record(in_p, "decision", "Use SQLite with WAL for storage", "We keep records in sqlite with WAL.")
    conn = _conn()
    trust.set_mark(conn, wal, "review", "merged from two sessions")
    conn.close()
    prompt = "sqlite storage and WAL"
    assert _prompt(monkeypatch, capsys, proj_p, prompt) == ""  # the hook holds it back
    logged = json.loads(in_p("why", "--json").out)["prompts"][0]["candidates"][0]
    explained = json.loads(in_p("search", "--explain", "--json", prompt).out)[0]
    assert logged["id"] == explained["id"] == wal
    assert (logged["passed"], logged["injected"]) == (explained["passed"], explained["injected"]) == (True, False)
    assert logged["held"] == explained["held"] == "it waits for review (`agentctx review`)"
    assert "relevant, but it waits for review" in in_p("why").out
    assert "not injected: it waits for review" in in_p("search", "--explain", prompt).out


def test_stats_counts_digests_apart_and_a_record_acted_on_is_used(in_p, proj_p):
    """Issue 42 item 10: records delivered before edits (acted) or fetched were listed as "(never used)", and the
    SessionStart digest counted as prompts."""
    from agentctx.base.project import detect
    from agentctx.store import sessions

    acted = _record(in_p, "convention", "Rule docs in docs/rules", "Each rule has a page.")
    shown = _record(in_p, "decision", "Ruff in CI", "CI runs ruff.")
    pid = detect(proj_p).id
    conn = _conn()
    for event, ids, tokens in (("SessionStart", [acted, shown], 40), ("UserPromptSubmit", [shown], 20),
                               ("PreToolUse", [acted], 10), ("PostToolUse/acted", [acted], 0)):
        sessions.log_injection(conn, session_id="s1", project_id=pid, event=event, prompt_hash="k", record_ids=ids,
                               scores=[], tokens=tokens)
    conn.close()
    rows = {r["id"]: r for r in json.loads(in_p("stats", "--json").out)["records"]}
    assert (rows[acted]["digests"], rows[acted]["prompts"], rows[acted]["never_used"]) == (1, 0, False)
    assert (rows[shown]["digests"], rows[shown]["prompts"], rows[shown]["never_used"]) == (1, 1, True)
    text = in_p("stats").out
    line = next(ln for ln in text.splitlines() if ln.startswith(acted[:12]))
    assert "never" not in line and "only shown" in next(ln for ln in text.splitlines() if ln.startswith(shown[:12]))


def test_a_record_fetched_after_a_prompt_injected_it_is_used(in_p, proj_p, monkeypatch, capsys):
    wal = _record(in_p, "decision", "Use SQLite with WAL for storage", "We keep records in sqlite with WAL.")
    assert "Use SQLite with WAL" in _prompt(monkeypatch, capsys, proj_p, "sqlite storage and WAL")
    payload = {"session_id": "s1", "cwd": str(proj_p), "tool_name": "mcp__agentctx__ctx_get",
               "tool_input": {"ids": [wal]}, "tool_response": {"records": []}}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
    assert run_hook(["post-tool-use"]) == 0
    capsys.readouterr()
    (row,) = json.loads(in_p("stats", "--json").out)["records"]
    assert (row["prompts"], row["fetched"], row["never_used"]) == (1, 1, False)
