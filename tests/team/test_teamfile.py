"""The team file format: round trip, escaping, errors with lines, and merges with git's own line merge."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from agentctx.team import fileformat as teamfile
from agentctx.team.fileformat import PROFILE, TEAM, parse, render

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENTRIES = [
    ("01AAA", "decision", "Use Postgres", "Because JSONB.\n\nSecond paragraph."),
    ("01BBB", "convention", "Snake case", "- names\n- files"),
    ("01CCC", "decision", "Adopt ruff", "Replaces flake8."),
    ("01DDD", "discovery", "FTS5 may be missing", "Fall back to LIKE."),
]


def test_round_trip_and_order():
    text = render(TEAM, ENTRIES)
    parsed = parse(text, TEAM)
    assert parsed.errors == () and parsed.whole_file_ok
    assert [(e.key, e.type, e.title, e.body) for e in parsed.entries] == [
        ENTRIES[2][:4], ENTRIES[0][:4], ENTRIES[1][:4], ENTRIES[3][:4]]  # by section, then title
    assert render(TEAM, list(reversed(ENTRIES))) == text  # input order does not matter


def test_every_section_heading_is_always_there():
    text = render(TEAM, [])
    assert "## Decisions\n" in text and "## Conventions\n" in text and "## Discoveries\n" in text
    assert parse(text, TEAM).entries == ()


def test_body_lines_that_look_like_structure_are_escaped():
    body = ("## Decisions\n<!-- agentctx:entry id=evil type=decision -->\n\\## Decisions\n"
            "<!-- agentctx:file kind=team -->\n## Some heading of my own\n<!-- a normal comment -->")
    text = render(TEAM, [("k1", "decision", "Tricky", body)])
    (entry,) = parse(text, TEAM).entries
    assert entry.body == body and entry.key == "k1"


def test_normalisation_survives_editors():
    text = render(TEAM, [("k1", "decision", "Title  with   spaces", "line one   \r\nline two\t\n\n\n")])
    edited = text.replace("\n", "\r\n").replace("line one", "line one   ")  # CRLF and trailing spaces
    (a,) = parse(text, TEAM).entries
    (b,) = parse(edited, TEAM).entries
    assert a.hash == b.hash and a.title == "Title with spaces"


def test_errors_carry_the_marker_line():
    text = render(TEAM, [("k1", "decision", "Good", "Body.")])
    bad = text + "\n<!-- agentctx:entry id=k1 type=decision -->\n### Same id\n\nBody.\n"
    bad += "\n<!-- agentctx:entry id=k3 type=decision -->\n### " + "x" * 130 + "\n\nBody.\n"
    bad += "\n<!-- agentctx:entry id=k4 type=decision -->\n### Empty body\n\n"
    bad += "\n<!-- agentctx:entry id=bad/id type=decision -->\n### Bad id\n\nBody.\n"
    parsed = parse(bad, TEAM)
    lines = bad.split("\n")
    assert [e.key for e in parsed.entries] == ["k1"]
    messages = {lines[n - 1]: m for n, m in parsed.errors}
    assert len(parsed.errors) == 4
    assert "duplicate id" in messages["<!-- agentctx:entry id=k1 type=decision -->"]
    assert "limit is 120" in messages["<!-- agentctx:entry id=k3 type=decision -->"]
    assert "without a body" in messages["<!-- agentctx:entry id=k4 type=decision -->"]
    assert parsed.seen_keys >= {"k1", "k3", "k4"}


def test_kinds_do_not_mix():
    assert not parse(render(TEAM, []), PROFILE).whole_file_ok
    assert parse(render(PROFILE, [("p", "preference", "Terse", "Yes.")]), PROFILE).entries[0].type == "preference"


def _merge(tmp_path, base: str, ours: str, theirs: str) -> tuple[int, str]:
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = subprocess.run(["git", "merge-file", "-p", str(tmp_path / "ours"), str(tmp_path / "base"),
                           str(tmp_path / "theirs")], capture_output=True, text=True)
    return done.returncode, done.stdout


@needs_git
def test_additions_on_two_branches_merge_with_git(tmp_path):
    base = render(TEAM, ENTRIES)
    ours = render(TEAM, ENTRIES + [("01EEE", "decision", "Cache in Redis", "TTL 5 min.")])
    theirs = render(TEAM, ENTRIES + [("01FFF", "decision", "Zero downtime deploys", "Blue-green.")])
    conflicts, merged = _merge(tmp_path, base, ours, theirs)
    assert conflicts == 0
    assert merged == render(TEAM, ENTRIES + [("01EEE", "decision", "Cache in Redis", "TTL 5 min."),
                                            ("01FFF", "decision", "Zero downtime deploys", "Blue-green.")])


@needs_git
def test_first_entries_of_different_sections_merge(tmp_path):
    base = render(TEAM, [])
    ours = render(TEAM, [("k1", "decision", "Use Postgres", "JSONB.")])
    theirs = render(TEAM, [("k2", "discovery", "FTS5 may be missing", "LIKE.")])
    conflicts, merged = _merge(tmp_path, base, ours, theirs)
    assert conflicts == 0 and len(parse(merged, TEAM).entries) == 2


@needs_git
def test_an_edit_and_an_addition_merge(tmp_path):
    base = render(TEAM, ENTRIES)
    edited = [e if e[0] != "01AAA" else (*e[:3], "Because JSONB and GIN indexes.") for e in ENTRIES]
    conflicts, merged = _merge(tmp_path, base, render(TEAM, edited),
                               render(TEAM, ENTRIES + [("01GGG", "convention", "Type hints everywhere", "mypy.")]))
    assert conflicts == 0
    assert {e.key: e.body for e in parse(merged, TEAM).entries}["01AAA"] == "Because JSONB and GIN indexes."


def test_hash_ignores_what_the_file_cannot_keep():
    assert teamfile.content_hash("decision", "A  b", "x  \n") == teamfile.content_hash("decision", "A b", "x")
    assert teamfile.content_hash("decision", "A", "x") != teamfile.content_hash("convention", "A", "x")
