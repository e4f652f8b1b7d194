"""The team file carries how each record will be asked (issue 25): exported after the body, brought in by import
(new records and in place on existing ones), outside the content hash, so a teammate without an LLM finds the
record the same way."""

from __future__ import annotations

import os

import pytest

from agentctx.base.project import detect
from agentctx.retrieval import search
from agentctx.store import db, records
from agentctx.team import fileformat as teamfile
from agentctx.team import sync as team

Q = ("which database do we use?", "can I use mysql locally?")
A = ("rdbms", "persistence")


@pytest.fixture
def proj(repo):
    return detect(repo)


@pytest.fixture
def target(proj):
    return team.team_target(proj)


def _file(target):
    with open(target.path, encoding="utf-8") as fh:
        return fh.read()


def test_export_writes_them_deterministically_after_the_body(conn, add, target):
    rec = add("Use PostgreSQL 16", "All services share one PostgreSQL 16 cluster.")
    records.set_asked(conn, rec.id, None, questions=Q, aliases=A)
    add("Tests are plain functions", "No test classes.", type_="convention")
    team.export_file(conn, target)
    text = _file(target)
    block = text[text.index("### Use PostgreSQL 16"):text.index("## Conventions")]
    assert block.splitlines()[2:] == ["All services share one PostgreSQL 16 cluster.", "", teamfile.ASKED_MARKER,
                                      "- asked: which database do we use?", "- asked: can I use mysql locally?",
                                      "- also: rdbms", "- also: persistence", ""]
    assert "### Tests are plain functions\n\nNo test classes.\n\n## Discoveries" in text
    assert team.export_file(conn, target).written is False  # same store, same bytes


def test_a_teammate_without_them_gets_them_from_the_file(conn, add, target, proj, tmp_path, monkeypatch):
    rec = add("Use PostgreSQL 16", "All services share one PostgreSQL 16 cluster.")
    records.set_asked(conn, rec.id, None, questions=Q, aliases=A)
    team.export_file(conn, target)
    # A teammate's machine: another store, the same checkout.
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "teammate"))
    other = db.connect(create=True)
    try:
        result = team.import_file(other, target)
        (new_id,) = result.created
        got = records.get(other, new_id)
        assert got.questions == Q and got.aliases == A and got.confidence == "team"
        hits = search.search(other, "which database", proj.id, expand=False).hits
        assert [h.record.id for h in hits] == [new_id]
        assert team.import_file(other, target).changed is False  # importing twice changes nothing
    finally:
        other.close()


def test_editing_only_them_in_the_file_sets_them_in_place(conn, add, target):
    rec = add("Use PostgreSQL 16", "All services share one PostgreSQL 16 cluster.")
    team.export_file(conn, target)
    text = _file(target).replace("All services share one PostgreSQL 16 cluster.\n",
                                 "All services share one PostgreSQL 16 cluster.\n\n<!-- agentctx:asked -->\n"
                                 "- asked: where does the data live?\n- also: postgres\n")
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(text)
    plan = team.plan(conn, target, text)
    assert [e.key for e, _ in plan.asked] and not plan.edits  # not an edit of the fact
    result = team.import_file(conn, target)
    assert result.asked == [rec.id] and not result.superseded and not result.created
    got = records.get(conn, rec.id)
    assert got.is_current and got.questions == ("where does the data live?",) and got.aliases == ("postgres",)
    assert team.import_file(conn, target).changed is False
    team.export_file(conn, target)
    assert _file(target) == text  # the round trip keeps the hand-written block byte for byte


def test_a_hand_edit_of_the_body_keeps_the_records_questions(conn, add, target):
    rec = add("Use PostgreSQL 16", "All services share one PostgreSQL 16 cluster.")
    records.set_asked(conn, rec.id, None, questions=Q)
    team.export_file(conn, target)
    text = _file(target)
    edited = text.replace("one PostgreSQL 16 cluster.", "one PostgreSQL 17 cluster.")
    # The teammate also dropped the asked block while editing: the record's own questions carry over.
    edited = edited.replace(f"\n{teamfile.ASKED_MARKER}\n- asked: {Q[0]}\n- asked: {Q[1]}\n", "\n")
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(edited)
    result = team.import_file(conn, target)
    (old, new) = result.superseded[0]
    assert old == rec.id and records.get(conn, new).questions == Q


def test_malformed_asked_lines_are_ignored_not_fatal():
    text = (f"# Team context\n\n{teamfile.FILE_MARKER} kind=team version=1 -->\n\n## Decisions\n\n"
            "<!-- agentctx:entry id=k1 type=decision -->\n### Use SQLite\n\nOne file.\n\n"
            f"{teamfile.ASKED_MARKER}\n- asked: why sqlite?\nnot an item\n- also: {'x' * 200}\n- also:\n")
    parsed = teamfile.parse(text, teamfile.TEAM)
    (entry,) = parsed.entries
    assert entry.body == "One file." and entry.questions == ("why sqlite?",) and entry.aliases == ()
    assert parsed.errors == ()


def test_a_token_in_a_teammates_asked_line_is_scrubbed_once(conn, add, target, repo, capsys):
    # Issue 34: a teammate pasted a token into an `- asked:` line; every `team import` reported new questions and
    # `team export` refused (65) until --force.
    from agentctx.cli import main

    rec = add("Release with the GitHub workflow", "Tags trigger .github/workflows/pypi-package.yml.")
    assert main(["-C", str(repo), "team", "export"]) == 0
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = _file(target).replace("Tags trigger .github/workflows/pypi-package.yml.\n",
                                 "Tags trigger .github/workflows/pypi-package.yml.\n\n" + teamfile.ASKED_MARKER +
                                 f"\n- asked: why does curl -H 'Authorization: token {token}' fail on release?\n"
                                 "- also: trusted publishing\n")
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(text)
    capsys.readouterr()
    assert main(["-C", str(repo), "team", "import"]) == 0
    first = capsys.readouterr().out
    assert "1 with new questions or aliases" in first
    assert main(["-C", str(repo), "team", "import"]) == 0
    assert "with new questions or aliases" not in capsys.readouterr().out  # reported once
    assert main(["-C", str(repo), "team", "export"]) == 0  # not refused
    assert token not in _file(target)
    (head,) = [r for r in records.current(conn, rec.project_id) if r.title == rec.title]
    assert head.aliases == ("trusted publishing",) and len(head.questions) == 1
    assert token not in head.questions[0] and "fail on release?" in head.questions[0]
    dump = "\n".join(conn.iterdump())
    assert token not in dump


# Issue 42, item 17: a teammate's record whose other names are the commonest words of everyday prompts. These are
# the words found in the most of prompts-dev's 295 real prompts (document frequency, content words: add, work,
# file, make, check, change, run, fix, code, see, test, update, error), as names a teammate's expansion or
# hand might write; next to them, two names that say what the record is about.
GENERIC_NAMES = ("fix the tests", "update the code", "run it", "check the file", "make changes", "add a file",
                 "see the error", "work")
SPECIFIC_NAMES = ("ledger reconciliation", "stripe payouts")
SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench", "prompts-dev",
                      "real_prompts.jsonl")


def test_a_teammates_generic_other_names_are_not_imported(conn, add, target, proj, tmp_path, monkeypatch):
    import json

    from agentctx.retrieval import relevance

    mine = add("Ledger reconciliation runs nightly", "The reconciliation job runs at 02:00 UTC and compares Stripe "
               "payouts with the ledger, line by line.", type_="convention")
    records.set_asked(conn, mine.id, None, aliases=GENERIC_NAMES + SPECIFIC_NAMES)
    team.export_file(conn, target)
    assert "- also: fix the tests" in _file(target)  # the author's own names stay theirs, exported as they are
    assert team.import_file(conn, target).changed is False
    assert records.get(conn, mine.id).aliases == GENERIC_NAMES + SPECIFIC_NAMES
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "teammate"))  # a teammate's machine, the same checkout
    other = db.connect(create=True)
    try:
        (new_id,) = team.import_file(other, target).created
        got = records.get(other, new_id)
        assert got.aliases == SPECIFIC_NAMES and got.confidence == "team"
        assert [h.record.id for h in search.search(other, "stripe payouts", proj.id, expand=False).hits] == [new_id]
        assert team.import_file(other, target).changed is False  # the cut names are not "changed" at every import
        if not os.path.isfile(SHARED):
            pytest.skip(f"no shared development prompts at {SHARED}")
        with open(SHARED, encoding="utf-8") as fh:
            prompts = [json.loads(line)["prompt"] for line in fh][:20]
        hits = [p for p in prompts if any(a.inject and a.hit.record.id == new_id
                                          for a in relevance.decide(other, p, proj.id))]
        assert hits == []
    finally:
        other.close()


def test_specific_names_keeps_what_says_something():
    assert team.specific_names(GENERIC_NAMES + SPECIFIC_NAMES) == SPECIFIC_NAMES
    assert team.specific_names(("release notes", "rdbms", "towncrier", "think hard")) == (
        "release notes", "rdbms", "towncrier", "think hard")


def test_generic_names_a_file_adds_to_ones_own_record_are_not_imported(conn, add, target):
    # The file is someone else's input once shared: a name added to this user's own entry in it is capped too,
    # while the names the record already has stay.
    mine = add("Ledger reconciliation runs nightly", "The reconciliation job compares Stripe payouts with the ledger.",
               type_="convention")
    records.set_asked(conn, mine.id, None, aliases=("run it",) + SPECIFIC_NAMES)
    team.export_file(conn, target)
    text = _file(target).replace("- also: stripe payouts\n", "- also: stripe payouts\n- also: fix the tests\n"
                                 "- also: payout matching\n")
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(text)
    team.import_file(conn, target)
    assert records.get(conn, mine.id).aliases == ("run it",) + SPECIFIC_NAMES + ("payout matching",)
