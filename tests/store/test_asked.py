"""How a record will be asked (issue 25): the questions and aliases columns, their index columns, the migration that
adds them to an older store, validation, redaction, supersession and in-place edits."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import pytest

from agentctx.base.errors import ValidationError
from agentctx.base.models import ALIASES_MAX, QUESTION_CHARS, QUESTIONS_MAX
from agentctx.claude.doctor import check_fts
from agentctx.retrieval import search
from agentctx.store import db, migrations, records
from agentctx.store.redaction import rescrub

from .conftest import P

SECRET = "sk-ant-api03-" + "A" * 60


def ids(conn, query, **kw):
    return [h.record.id for h in search.search(conn, query, P, expand=False, **kw).hits]


def test_a_record_is_found_through_its_questions_and_aliases(conn, new):
    rec, _ = records.insert(conn, new(title="Unset HTTPS_PROXY before running pytest",
                                      body="The HTTP client picks up the proxy from the environment.",
                                      questions=("why does the suite freeze on the vpn?",),
                                      aliases=("corporate network",)))
    other, _ = records.insert(conn, new(title="Use SQLite", body="One file, no daemon."))
    assert ids(conn, "suite freezes on vpn") == [rec.id]
    assert ids(conn, "corporate network") == [rec.id]
    got = records.get(conn, rec.id)
    assert got.questions == ("why does the suite freeze on the vpn?",) and got.aliases == ("corporate network",)
    assert records.get(conn, other.id).questions == ()


def test_questions_and_aliases_are_normalised_and_bounded(conn, new):
    rec, _ = records.insert(conn, new(questions=["  which   db?  ", "Which db?", "", "why sqlite?"],
                                      aliases="database\nrdbms\n"))
    assert rec.questions == ("which db?", "why sqlite?") and rec.aliases == ("database", "rdbms")
    with pytest.raises(ValidationError) as info:
        records.insert(conn, new(questions=[f"question {i}?" for i in range(QUESTIONS_MAX + 1)]))
    assert "questions has 9 items; the limit is 8" in str(info.value)
    with pytest.raises(ValidationError):
        records.insert(conn, new(aliases=[f"alias {i}" for i in range(ALIASES_MAX + 1)]))
    with pytest.raises(ValidationError) as info:
        records.insert(conn, new(questions=["x" * (QUESTION_CHARS + 1)]))
    assert info.value.code == "field_too_long"
    with pytest.raises(ValidationError):
        records.insert(conn, new(questions=[3]))
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 1  # nothing of the refused ones


def test_secrets_in_questions_and_aliases_are_redacted_before_storage(conn, new):
    rec, _ = records.insert(conn, new(questions=[f"why does {SECRET} fail?"], aliases=[SECRET[:59]]))
    stored = conn.execute("SELECT questions, aliases FROM records WHERE id = ?", (rec.id,)).fetchone()
    assert SECRET[:40] not in stored[0] + stored[1]
    assert "[REDACTED" in stored[0] and "[REDACTED" in stored[1]


def test_rescrubbing_reaches_questions_and_aliases(conn, new):
    rec, _ = records.insert(conn, new(questions=["where is token HUNTER2 used?"], aliases=["HUNTER2"]))
    changed = rescrub(conn, lambda text: text.replace("HUNTER2", "[REDACTED:test]"), fts=True)
    assert changed == 1
    got = records.get(conn, rec.id)
    assert got.questions == ("where is token [REDACTED:test] used?",) and got.aliases == ("[REDACTED:test]",)
    assert ids(conn, "hunter2") == []


def test_supersession_carries_them_forward_unless_replaced(conn, new):
    rec, _ = records.insert(conn, new(questions=["which database do we use?"], aliases=["rdbms"]))
    _, kept = records.supersede(conn, rec.id, P, body="SQLite in WAL mode.")
    assert kept.questions == ("which database do we use?",) and kept.aliases == ("rdbms",)
    _, replaced = records.supersede(conn, kept.id, P, body="PostgreSQL now.", questions=["is it postgres?"],
                                    aliases=[])
    assert replaced.questions == ("is it postgres?",) and replaced.aliases == ()
    # Only the current record answers: the old ones are history, their questions too.
    assert ids(conn, "which database") == []
    assert ids(conn, "postgres") == [replaced.id]


def test_setting_them_in_place_keeps_the_index_consistent(conn, new):
    rec, _ = records.insert(conn, new(questions=["which database do we use?"]))
    changed = records.set_asked(conn, rec.id, P, questions=["where do records live?"], aliases=["storage"])
    assert changed.id == rec.id and records.get(conn, rec.id).is_current  # no supersession
    assert ids(conn, "storage") == [rec.id] and ids(conn, "records live") == [rec.id]
    assert ids(conn, "which database") == []
    assert check_fts(conn, repair=False)[0].status == "ok"
    conn.execute("INSERT INTO records_fts(records_fts, rank) VALUES ('integrity-check', 1)")
    records.set_asked(conn, rec.id, P, aliases=[])  # None keeps a field, [] clears it
    assert records.get(conn, rec.id).questions == ("where do records live?",)
    assert ids(conn, "storage") == []


def _v9_store(path):
    """A store as the previous release left it: migrations 1-9 only, records written by its SQL."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("CREATE TABLE _agentctx_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at TEXT NOT NULL)")
    for m in migrations.MIGRATIONS:
        if m.version > 9:
            break
        m.apply(raw)
        raw.execute("INSERT INTO _agentctx_migrations VALUES (?, ?, ?)",
                    (m.version, m.name, datetime.now(timezone.utc).isoformat()))
    raw.execute("PRAGMA user_version=9")
    now = "2026-01-01T00:00:00.000Z"
    for i, (title, body) in enumerate([("Use SQLite", "One file, no daemon."),
                                       ("Proxy breaks tests", "On the VPN the suite hangs.")]):
        raw.execute("INSERT INTO records (id, project_id, type, title, body, valid_from, recorded_at, source) "
                    "VALUES (?, ?, 'decision', ?, ?, ?, ?, 'cli')", (f"01OLD{i:021d}", P, title, body, now, now))
    assert [r[1] for r in raw.execute("PRAGMA table_info(records_fts)")] == ["title", "body"]
    raw.close()


def test_an_older_store_is_migrated_and_keeps_working(db_file):
    _v9_store(db_file)
    conn = db.connect(db_file)  # migrates
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST
        assert [r[1] for r in conn.execute("PRAGMA table_info(records_fts)")] == ["title", "body", "questions",
                                                                                 "aliases"]
        old = records.get(conn, "01OLD" + "0" * 21)
        assert old.title == "Use SQLite" and old.questions == () and old.aliases == ()
        assert ids(conn, "vpn suite hangs") == ["01OLD" + "0" * 20 + "1"]  # the rebuilt index holds the old rows
        records.set_asked(conn, old.id, P, questions=["which database do we use?"])
        assert ids(conn, "which database") == [old.id]
        assert check_fts(conn, repair=False)[0].status == "ok"
    finally:
        conn.close()


def test_a_store_without_its_index_gets_the_columns_only(db_file):
    _v9_store(db_file)
    raw = sqlite3.connect(db_file, isolation_level=None)
    for name in migrations.FTS_OBJECTS:
        raw.execute(f"DROP {name}")
    raw.close()
    conn = db.connect(db_file)
    try:
        assert [tuple(r) for r in conn.execute("SELECT questions, aliases FROM records")] == [("", ""), ("", "")]
        assert not db.has_fts(conn)
    finally:
        conn.close()
