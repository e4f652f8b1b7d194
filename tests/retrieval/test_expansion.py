"""agentctx.retrieval.expansion and tools/build_expansions.py: the other names of a question's words, stemmed ahead of time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.retrieval import expansion
from agentctx.base import text

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "tools"))

import build_expansions  # noqa: E402


def stem(word):
    return text.stems([word])[0]


def test_shipped_file_is_what_the_vocabulary_builds():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_expansions.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_category_word_names_its_members_and_the_spelling_of_each():
    found = expansion.lookup([stem("database")])
    members = found[stem("database")]
    assert members[stem("postgresql")] == "postgresql"
    assert stem("mysql") in members and stem("db") in members  # a member, and an abbreviation of the word


def test_spellings_stand_for_each_other_but_members_not_for_their_category():
    assert stem("postgresql") in expansion.lookup([stem("postgres")])[stem("postgres")]
    assert stem("postgres") in expansion.lookup([stem("postgresql")])[stem("postgresql")]
    assert stem("database") not in expansion.lookup([stem("postgresql")]).get(stem("postgresql"), {})


def test_names_the_query_holds_itself_are_left_out():
    found = expansion.lookup([stem("database"), stem("postgresql")])
    assert stem("postgresql") not in found[stem("database")]


def test_words_without_other_names_and_odd_stems():
    assert expansion.lookup([stem("refactor"), "", "数据库", "a\tb"]) == {}


def test_a_missing_data_file_means_no_expansion(monkeypatch, tmp_path):
    monkeypatch.setattr(expansion, "_data", None)
    monkeypatch.setattr(expansion, "FILE", str(tmp_path / "gone.txt"))
    assert expansion.lookup([stem("database")]) == {}
    monkeypatch.setattr(expansion, "_data", None)  # the next test loads the real file again


def test_build_alias_closure_and_categories():
    built = build_expansions.build("= db database\ndatabase > postgresql mysql\n")
    lines = dict(line.split("\t") for line in built.splitlines()[1:])
    assert lines[stem("db")].split() == sorted([f"{stem('database')}:database", "mysql:mysql",
                                                 "postgresql:postgresql"])
    assert stem("postgresql") not in lines  # a member does not stand for its category


@pytest.mark.parametrize("bad", ["= lonely\n", "database >\n", "just words\n", "= log-4j other\n", "= the db\n"])
def test_build_refuses_malformed_vocabulary(bad):
    with pytest.raises(SystemExit):
        build_expansions.build(bad)
