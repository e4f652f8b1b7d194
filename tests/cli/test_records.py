"""Record commands: record, supersede, show, search, pin, unpin, delete, export; their output and every error path."""

from __future__ import annotations

import io
import json
import re
import sqlite3

import pytest

from agentctx.store import db
from agentctx.base import paths

ULID = re.compile(r"^[0-9A-Z]{26}$")


def record(in_p, *extra, type_="decision", title="Use SQLite", body="One file, no daemon."):
    result = in_p("record", "--type", type_, "--title", title, "--body", body, *extra)
    assert result.rc == 0, result.err
    return result.out.strip()


def rows(sql, *args):
    conn = sqlite3.connect(paths.db_path())
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# --- record ---------------------------------------------------------------------------------------------------------

def test_record_prints_the_new_id(in_p):
    rid = record(in_p)
    assert ULID.match(rid)
    (row,) = rows("SELECT type, title, confidence, source, scope FROM records WHERE id = ?", rid)
    assert row == ("decision", "Use SQLite", "explicit", "cli", "project")


def test_record_json(in_p):
    result = in_p("record", "--type", "convention", "--title", "Tabs", "--body", "Use tabs.", "--json")
    data = json.loads(result.out)
    assert ULID.match(data["id"]) and data["type"] == "convention" and data["superseded"] == []


def test_record_global_scope_is_visible_from_another_project(in_p, in_q):
    rid = record(in_p, "--scope", "global", type_="preference", title="Terse answers")
    assert rows("SELECT project_id FROM records WHERE id = ?", rid) == [("_global",)]
    assert in_q("show", rid).rc == 0


def test_record_reads_title_and_body_from_stdin(in_p, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("A body from a pipe\nwith two lines\n"))
    rid = record(in_p, body="-")
    assert rows("SELECT body FROM records WHERE id = ?", rid) == [("A body from a pipe\nwith two lines",)]


def test_record_with_supersedes_and_pin(in_p):
    old = record(in_p)
    result = in_p("record", "--type", "decision", "--title", "Use Postgres", "--body", "Now.", "--supersedes", old,
                  "--pin", "--json")
    data = json.loads(result.out)
    assert data["superseded"] == [old]
    assert rows("SELECT pinned FROM records WHERE id = ?", data["id"]) == [(1,)]
    assert rows("SELECT superseded_by FROM records WHERE id = ?", old) == [(data["id"],)]


def test_record_unicode_and_quotes(in_p):
    rid = record(in_p, title='Ünïcødé "quotes" \'single\' 数据库', body="emoji 🚀 AND (NOT) \"x\"")
    shown = json.loads(in_p("show", rid, "--json").out)
    assert shown["title"] == 'Ünïcødé "quotes" \'single\' 数据库'


@pytest.mark.parametrize("argv, status, fragment", [
    (["record", "--title", "t", "--body", "b"], 64, "--type"),
    (["record", "--type", "memo", "--title", "t", "--body", "b"], 64, "invalid choice"),
    (["record", "--type", "decision", "--title", "t", "--body", "b", "--scope", "team"], 64, "invalid choice"),
    (["record", "--type", "decision", "--title", "x" * 121, "--body", "b"], 65, "title is 121 characters"),
    (["record", "--type", "decision", "--title", "t", "--body", "y" * 2001], 65, "body is 2001 characters"),
    (["record", "--type", "decision", "--title", "  ", "--body", "b"], 65, "title must not be blank"),
    (["record", "--type", "decision", "--title", "t", "--body", ""], 65, "body must not be blank"),
    (["record", "--type", "decision", "--title", "t", "--body", "b", "--supersedes", "01NOPE"], 66, "01NOPE"),
    (["record", "--type", "decision", "--title", "t", "--body", "b", "--bogus"], 64, "--bogus"),
])
def test_record_errors_write_nothing(in_p, argv, status, fragment):
    result = in_p(*argv)
    assert result.rc == status
    assert fragment in result.err
    assert result.out == ""
    assert rows("SELECT count(*) FROM records") == [(0,)]


def test_record_supersedes_a_non_head(in_p):
    a = record(in_p)
    b = in_p("supersede", a, "--body", "second").out.strip()
    result = in_p("record", "--type", "decision", "--title", "t", "--body", "b", "--supersedes", a)
    assert result.rc == 65 and b in result.err
    assert rows("SELECT count(*) FROM records") == [(2,)]


def test_errors_with_json_also_print_a_json_error(in_p):
    result = in_p("record", "--type", "decision", "--title", "x" * 121, "--body", "b", "--json")
    assert result.rc == 65
    assert json.loads(result.out) == {"error": "title is 121 characters; the limit is 120", "code": "field_too_long"}


def test_commands_without_a_store_say_run_init(run, proj_p):
    for argv in (["record", "--type", "decision", "--title", "t", "--body", "b"], ["search", "x"], ["show", "X"],
                 ["pin", "X"], ["export"], ["status"]):
        result = run("-C", proj_p, *argv)
        assert result.rc == 66, argv
        assert "agentctx init" in result.err
    assert not paths.db_path().exists()


def test_missing_project_directory(run, store, tmp_path):
    result = run("-C", tmp_path / "nope", "record", "--type", "decision", "--title", "t", "--body", "b")
    assert result.rc == 66 and "nope" in result.err
    assert rows("SELECT count(*) FROM records") == [(0,)]


# --- supersede --------------------------------------------------------------------------------------------------------

def test_supersede(in_p):
    a = record(in_p, type_="convention", title="Indent", body="Tabs.")
    result = in_p("supersede", a, "--body", "Four spaces.", "--rationale", "PEP 8", "--json")
    data = json.loads(result.out)
    assert data["old_id"] == a and data["id"] == data["new_id"] != a
    (row,) = rows("SELECT type, title, body, confidence FROM records WHERE id = ?", data["id"])
    assert row == ("convention", "Indent", "Four spaces.\n\nRationale: PEP 8", "explicit")
    plain = in_p("supersede", data["id"], "--body", "Two spaces.", "--title", "Indent width")
    assert ULID.match(plain.out.strip())


@pytest.mark.parametrize("argv, status", [
    (["supersede", "01NOPE", "--body", "x"], 66),
    (["supersede", "--body", "x"], 64),
    (["supersede", "ID"], 64),
])
def test_supersede_usage_and_missing(in_p, argv, status):
    record(in_p)
    assert in_p(*argv).rc == status
    assert rows("SELECT count(*) FROM records") == [(1,)]


def test_supersede_a_non_head_names_the_head(in_p):
    a = record(in_p)
    b = in_p("supersede", a, "--body", "second").out.strip()
    result = in_p("supersede", a, "--body", "third")
    assert result.rc == 65
    assert "already superseded" in result.err and b in result.err
    assert rows("SELECT count(*) FROM records") == [(2,)]


def test_supersede_with_an_invalid_body_keeps_the_old_record(in_p):
    a = record(in_p)
    assert in_p("supersede", a, "--body", "z" * 2001).rc == 65
    assert in_p("supersede", a, "--body", "   ").rc == 65
    assert rows("SELECT superseded_at FROM records WHERE id = ?", a) == [(None,)]


def test_another_project_cannot_see_or_supersede(in_p, in_q):
    a = record(in_p)
    for argv in (["supersede", a, "--body", "x"], ["show", a], ["pin", a], ["delete", a, "--force"]):
        result = in_q(*argv)
        assert result.rc == 66, argv
        assert "no record" in result.err
    assert rows("SELECT count(*), max(pinned), max(superseded_at) FROM records") == [(1, 0, None)]


# --- show ---------------------------------------------------------------------------------------------------------------

def test_show_text_and_json(in_p):
    rid = record(in_p, title="Use SQLite", body="One file.")
    text = in_p("show", rid).out
    assert "Use SQLite" in text and rid in text and "CURRENT" in text and "One file." in text
    data = json.loads(in_p("show", rid, "--json").out)
    assert data["id"] == rid and data["body"] == "One file." and data["superseded_by"] is None


def test_show_superseded_names_the_head_and_history_shows_the_chain(in_p):
    a = record(in_p)
    b = in_p("supersede", a, "--body", "second").out.strip()
    c = in_p("supersede", b, "--body", "third").out.strip()
    result = in_p("show", a)
    assert result.rc == 0 and "SUPERSEDED by " + b in result.out and f"current     {c}" in result.out
    assert json.loads(in_p("show", a, "--json").out)["head"] == c
    history = in_p("show", a, "--history")
    assert history.rc == 0 and history.out.count("SUPERSEDED") == 2 and "CURRENT" in history.out
    chain = json.loads(in_p("show", c, "--history", "--json").out)
    assert [r["id"] for r in chain] == [a, b, c]


def test_ids_accept_a_unique_prefix(in_p):
    a = record(in_p, title="Use SQLite", body="One file.")
    assert a[:8] in in_p("show", a[:8]).out and "Use SQLite" in in_p("show", a[:8].lower()).out
    assert in_p("pin", a[:10]).out.strip() == f"pinned {a}"
    b = in_p("supersede", a[:7], "--body", "Two files.").out.strip()
    assert rows("SELECT superseded_by FROM records WHERE id = ?", a) == [(b,)]
    # b[:10] is a millisecond timestamp that a can share: past it, ULIDs are random
    assert in_p("delete", b[:14], "--force").out.strip() == f"deleted {b}"
    too_short = in_p("show", a[:5])  # issue 26, item 7: "too short", not "no record"
    assert too_short.rc == 64 and "too short" in too_short.err


def test_ids_accept_the_end_of_an_id_which_is_random(in_p):
    """ULIDs written within ~35 minutes share their first 6 characters; their last ones are random (issue 26)."""
    a = record(in_p, title="Use SQLite", body="One file.")
    b = record(in_p, title="Use Redis", body="A cache.")
    assert a[:6] == b[:6]  # written in the same minute: a 6-character prefix cannot tell them apart
    assert "Use SQLite" in in_p("show", a[-8:]).out and "Use Redis" in in_p("show", b[-6:].lower()).out
    assert in_p("history", a[-8:]).rc == 0 and in_p("history", a[:8]).rc in (0, 64)  # history takes them too
    assert in_p("review", "--yes", "--confirm", b[-8:]).rc == 0


def test_an_ambiguous_prefix_lists_the_candidates(in_p):
    ids = [record(in_p, title=f"Decision {i}", body="b") for i in range(3)]
    import os

    common = os.path.commonprefix(ids)  # made within milliseconds: the ULID's timestamp part is shared
    if len(common) < 6:
        pytest.skip("the records straddle a ULID timestamp boundary")
    result = in_p("show", common, "--json")
    assert result.rc == 64 and json.loads(result.out)["code"] == "ambiguous_id"
    assert all(i in result.err for i in ids) and "give more characters" in result.err
    assert in_p("delete", common, "--force").rc == 64
    assert rows("SELECT count(*) FROM records") == [(3,)]


def test_supersede_refuses_to_keep_a_title_the_new_body_contradicts(in_p):
    a = record(in_p, title="Tokens expire after 15 minutes", body="Session tokens expire after 15 minutes.")
    result = in_p("supersede", a, "--body", "Session tokens expire after 5 minutes.")
    assert result.rc == 65 and "'15'" in result.err and "--title" in result.err and result.out == ""
    assert rows("SELECT count(*), max(superseded_at) FROM records") == [(1, None)]  # nothing changed
    c = in_p("supersede", a, "--title", "Tokens expire after 5 minutes", "--body", "Session tokens expire after 5 minutes.")
    assert c.rc == 0 and c.err == ""
    shown = in_p("show", c.out.strip()).out
    assert shown.startswith("Tokens expire after 5 minutes\n") and "15 minutes" not in shown  # (15 may be the hour)


def test_supersede_on_attrs_minimum_python(in_p):
    # A week on python-attrs/attrs: the minimum Python moved from 3.7 to 3.8 and `supersede --body` kept the title.
    a = record(in_p, type_="convention", title="Minimum supported Python is 3.7",
               body='attrs supports Python 3.7 and later (requires-python = ">=3.7" in pyproject.toml); '
                    "CI runs 3.7 through 3.12 and PyPy.")
    refused = in_p("supersede", a, "--body", 'attrs requires Python 3.8 or later (requires-python = ">=3.8"); CI '
                   "runs 3.8 through 3.13 and PyPy.", "--rationale", "24.1.0 dropped 3.7", "--json")
    assert refused.rc == 65 and json.loads(refused.out)["code"] == "title_outdated"
    assert "'7'" in refused.err and "--title" in refused.err and refused.err.count("\n") == 1
    # A title that stays true is kept without a word: "Minimum Python version" over either body.
    b = record(in_p, type_="convention", title="Minimum Python version",
               body='attrs supports Python 3.7 and later (requires-python = ">=3.7" in pyproject.toml).')
    kept = in_p("supersede", b, "--body", 'attrs supports Python 3.8 and later (requires-python = ">=3.8").')
    assert kept.rc == 0 and kept.err == ""
    assert rows("SELECT title FROM records WHERE id = ?", kept.out.strip()) == [("Minimum Python version",)]
    # By stem: the old title's "supported" is what the old body's "supports" stated, and "requires" does not.
    assert "'supported'" in refused.err


def test_show_unknown(in_p):
    result = in_p("show", "01NOPE", "--json")
    assert result.rc == 66 and json.loads(result.out)["code"] == "record_not_found"


# --- search ---------------------------------------------------------------------------------------------------------------

@pytest.fixture
def searchable(in_p):
    ids = {
        "grpc": record(in_p, title="Use gRPC for internal services", body="Protobuf between services."),
        "auth": record(in_p, title="Auth tokens", body="Rotate auth tokens daily."),
        "bucket": record(in_p, type_="discovery", title="Token bucket limiter", body="Gateway uses a token bucket."),
    }
    return ids


def test_search_json_contract(in_p, searchable):
    hits = json.loads(in_p("search", "auth", "tokens", "--json").out)
    assert isinstance(hits, list) and hits
    assert hits[0]["id"] == searchable["auth"]
    for hit in hits:
        assert {"id", "type", "title", "score"} <= set(hit)
        assert "degraded" not in hit
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_search_text(in_p, searchable):
    out = in_p("search", "grpc services").out
    assert searchable["grpc"] in out and "Use gRPC" in out
    assert in_p("search", "kubernetes").out.strip() == "no matching records"


def test_search_filters(in_p, searchable):
    assert [h["id"] for h in json.loads(in_p("search", "token", "--type", "discovery", "--json").out)] == [
        searchable["bucket"]]
    assert len(json.loads(in_p("search", "token", "--limit", "1", "--json").out)) == 1
    new = in_p("supersede", searchable["grpc"], "--body", "Still gRPC services.").out.strip()
    assert [h["id"] for h in json.loads(in_p("search", "grpc", "--json").out)] == [new]
    with_history = json.loads(in_p("search", "grpc", "--history", "--json").out)
    assert {h["id"] for h in with_history} == {new, searchable["grpc"]}
    assert "[superseded]" in in_p("search", "grpc", "--history").out


def test_search_is_per_project(in_p, in_q, searchable):
    assert json.loads(in_q("search", "auth tokens", "--json").out) == []


@pytest.mark.parametrize("query", ['"x" AND (NOT)', "NEAR(a b)", "ünïcødé 数据库", "'", "*", "auth*", "col:auth"])
def test_search_query_syntax_never_crashes(in_p, searchable, query):
    result = in_p("search", query, "--json")
    assert result.rc == 0
    assert isinstance(json.loads(result.out), list)


@pytest.mark.parametrize("argv", [["search"], ["search", "  "], ["search", "x", "--limit", "0"],
                                  ["search", "x", "--limit", "51"], ["search", "x", "--limit", "many"],
                                  ["search", "x", "--type", "memo"], ["search", "x", "--scope", "team"]])
def test_search_usage_errors(in_p, argv):
    assert in_p(*argv).rc == 64


def test_search_degraded_is_marked(in_p, searchable):
    conn = db.connect()
    for trigger in ("records_ai", "records_ad", "records_au"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE records_fts_vocab")
    conn.execute("DROP TABLE records_fts")
    conn.close()
    hits = json.loads(in_p("search", "auth tokens", "--json").out)
    assert hits and all(h["degraded"] == "like-search" for h in hits)
    text = in_p("search", "auth tokens")
    assert text.rc == 0 and "like-search" in text.err and "agentctx doctor" in text.err


# --- pin, unpin, delete ------------------------------------------------------------------------------------------------------

def test_pin_and_unpin(in_p):
    rid = record(in_p)
    assert in_p("pin", rid).out.strip() == f"pinned {rid}"
    assert rows("SELECT pinned FROM records") == [(1,)]
    assert json.loads(in_p("unpin", rid, "--json").out) == {"id": rid, "pinned": False}
    assert rows("SELECT pinned FROM records") == [(0,)]
    assert in_p("pin", "01NOPE").rc == 66
    assert in_p("pin").rc == 64


def test_delete_asks_and_refuses_without_a_terminal(in_p):
    rid = record(in_p)
    result = in_p("delete", rid)
    assert result.rc == 64 and "--force" in result.err
    assert rows("SELECT count(*) FROM records") == [(1,)]


def test_delete_after_confirmation(in_p, monkeypatch):
    rid = record(in_p)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    assert in_p("delete", rid).out.strip() == f"deleted {rid}"
    assert rows("SELECT count(*) FROM records") == [(0,)]


def test_delete_force(in_p):
    rid = record(in_p)
    assert json.loads(in_p("delete", rid, "--force", "--json").out) == {"deleted": rid}
    assert in_p("delete", rid, "--force").rc == 66


# --- export ------------------------------------------------------------------------------------------------------------------

def test_export_groups_by_type(in_p, tmp_path):
    record(in_p, type_="convention", title="Indent with tabs", body="Always.")
    record(in_p, title="Use SQLite", body="One file.")
    record(in_p, "--scope", "global", type_="preference", title="Terse", body="Short answers.")
    out = in_p("export").out
    assert out.startswith("# agentctx context: app-p")
    assert out.index("## Decisions") < out.index("## Conventions") < out.index("# Global")
    assert "### Use SQLite" in out and "One file." in out
    target = tmp_path / "ctx.md"
    written = in_p("export", "--out", target)
    assert written.rc == 0 and "3 records" in written.out
    assert target.read_text() == out


def test_export_to_an_unwritable_place(in_p, tmp_path):
    result = in_p("export", "--out", tmp_path / "missing-dir" / "ctx.md")
    assert result.rc == 66


def test_corrupt_database_names_doctor(in_p):
    paths.db_path().write_bytes(b"not a database" * 500)
    for suffix in ("-wal", "-shm"):
        paths.db_path().with_name(paths.db_path().name + suffix).unlink(missing_ok=True)
    for argv in (["search", "x"], ["record", "--type", "decision", "--title", "t", "--body", "b"], ["status"]):
        result = in_p(*argv)
        assert result.rc == 1, argv
        assert "agentctx doctor" in result.err


def test_locked_database_names_doctor(in_p, monkeypatch):
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 100)
    holder = sqlite3.connect(paths.db_path(), isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO sessions (session_id) VALUES ('holder')")
    try:
        result = in_p("record", "--type", "decision", "--title", "t", "--body", "b")
        assert result.rc == 1
        assert "locked" in result.err and "agentctx doctor" in result.err
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_search_lists_relevant_records_and_all_lists_every_match(in_p):
    good = record(in_p, title="SQLite storage in WAL mode", body="The store is one SQLite file.")
    generic = record(in_p, title="Fix the login button", body="Fix the button so the form submits.")
    for extra in ([], ["--keyword-only"]):
        listed = [h["id"] for h in json.loads(in_p("search", "fix", "the", "sqlite", "storage", "--json", *extra).out)]
        assert listed == [good], extra
        every = [h["id"] for h in json.loads(in_p("search", "fix the sqlite storage", "--all", "--json", *extra).out)]
        assert set(every) == {good, generic}, extra


# --- how a record will be asked (issue 25) ---------------------------------------------------------------------------

def test_record_takes_questions_and_aliases_and_show_lists_them(in_p):
    rid = record(in_p, "--question", "which database do we use?", "--questions", "can I use mysql?",
                 "--alias", "rdbms", "--aliases", "persistence")
    (row,) = rows("SELECT questions, aliases FROM records WHERE id = ?", rid)
    assert row == ("which database do we use?\ncan I use mysql?", "rdbms\npersistence")
    shown = in_p("show", rid).out
    assert "Asked as (searched, not injected):\n  ? which database do we use?\n  ? can I use mysql?\n" \
           "  also: rdbms, persistence" in shown
    got = json.loads(in_p("show", rid, "--json").out)
    assert got["questions"] == ["which database do we use?", "can I use mysql?"]


def test_record_says_when_a_question_was_redacted(in_p):
    result = in_p("record", "--type", "decision", "--title", "Use SQLite", "--body", "One file.",
                  "--question", "is sk-ant-api03-" + "C" * 50 + " the key?")
    assert result.rc == 0 and "redacted" in result.err


def test_supersede_keeps_or_replaces_them(in_p):
    rid = record(in_p, "--question", "which database do we use?")
    kept = in_p("supersede", rid, "--body", "SQLite in WAL mode.").out.strip()
    assert rows("SELECT questions FROM records WHERE id = ?", kept) == [("which database do we use?",)]
    new = in_p("supersede", kept, "--body", "PostgreSQL.", "--title", "Use PostgreSQL",
               "--question", "is it postgres?").out.strip()
    assert rows("SELECT questions FROM records WHERE id = ?", new) == [("is it postgres?",)]


def test_too_many_questions_is_one_line_and_nothing_stored(in_p):
    args = [a for i in range(9) for a in ("--question", f"question {i}?")]
    result = in_p("record", "--type", "decision", "--title", "t", "--body", "b", *args)
    assert result.rc != 0 and "limit is 8" in result.err and len(result.err.strip().splitlines()) == 1
    assert rows("SELECT count(*) FROM records WHERE title = 't'") == [(0,)]


def test_explain_names_the_words_matched_only_through_them(in_p):
    record(in_p, "--type", "discovery", "--title", "Unset HTTPS_PROXY before running pytest",
           "--body", "The HTTP client picks up the proxy from the environment.",
           "--question", "why does the suite freeze on the vpn?")
    out = in_p("search", "--explain", "pytest suite freezes on the vpn").out
    assert "only through how it will be asked" in out and "vpn" in out and "freezes" in out


# --- anchors (issue 33) -----------------------------------------------------------------------------------------------

def test_record_with_anchors_stores_them_apart_and_show_lists_them(in_p, proj_p):
    rid = record(in_p, "--anchor", "src/payments/**", "--anchor", "command:alembic upgrade",
                 "--anchor", f"{proj_p}/migrations/*.sql")
    (row,) = rows("SELECT anchors, body FROM records WHERE id = ?", rid)
    assert row[0].split("\n") == ["path:src/payments/**", "command:alembic upgrade", "path:migrations/*.sql"]
    shown = in_p("show", rid).out
    assert "Governs" in shown and "  path:src/payments/**" in shown


def test_a_bad_anchor_is_one_line_and_stores_nothing(in_p):
    before = rows("SELECT count(*) FROM records")
    result = in_p("record", "--type", "convention", "--title", "T", "--body", "B", "--anchor", "../outside/**")
    assert result.rc != 0 and "'..'" in result.err and len(result.err.strip().splitlines()) == 1
    assert rows("SELECT count(*) FROM records") == before


def test_supersede_carries_anchors_unless_given(in_p):
    rid = record(in_p, "--anchor", "src/**/*.py")
    kept = in_p("supersede", rid, "--title", "Use SQLite everywhere", "--body", "SQLite for all storage.").out.strip()
    assert rows("SELECT anchors FROM records WHERE id = ?", kept) == [("path:src/**/*.py",)]
    moved = in_p("supersede", kept, "--title", "Use SQLite everywhere", "--body", "SQLite for all storage, WAL.",
                 "--anchor", "db/**").out.strip()
    assert rows("SELECT anchors FROM records WHERE id = ?", moved) == [("path:db/**",)]
