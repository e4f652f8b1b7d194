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
