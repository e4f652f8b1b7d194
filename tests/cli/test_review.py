"""agentctx review and agentctx forget: the interactive walk fed through stdin (the terminal check replaced), the
explicit-id forms for scripts, the refusal without a terminal, and once through a real pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.cli import terminal
from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.store import records


@pytest.fixture
def typed(monkeypatch):
    """typed("c\\n", "d\\n", ...): a person at a terminal answering the questions in order."""

    def feed(*answers: str) -> None:
        monkeypatch.setattr(terminal, "is_terminal", lambda: True)
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(answers)))

    return feed


@pytest.fixture
def seeded(in_p, proj_p):
    """Three records of P: one explicit, two inferred (as extraction and capture write them)."""
    pid = detect(proj_p).id
    conn = db.connect(paths.db_path())
    made = {}
    for title, body, conf, type_ in (
        ("Storage engine", "We keep records in sqlite with WAL.", "explicit", "decision"),
        ("Flaky network test", "test_fetch fails without network access.", "inferred", "discovery"),
        ("Tabs in Makefiles", "Makefile recipes must start with a tab.", "inferred", "convention"),
    ):
        made[title] = records.insert(conn, NewRecord(type=type_, title=title, body=body, project_id=pid,
                                                     confidence=conf, source="llm_extraction"))[0]
    conn.close()
    return made


def get(record_id):
    conn = db.connect(paths.db_path())
    try:
        return records.get(conn, record_id)
    finally:
        conn.close()


def test_review_lists_new_records_inferred_first(in_p, seeded):
    listed = json.loads(in_p("review", "--json").out)
    assert [r["title"] for r in listed] == ["Tabs in Makefiles", "Flaky network test", "Storage engine"]
    assert listed[0]["confidence"] == "inferred" and listed[0]["source"] == "llm_extraction"


def test_review_refuses_without_a_terminal(in_p, seeded):
    r = in_p("review")
    assert r.rc == 64 and "there is no terminal to ask" in r.err and "--json" in r.err
    r = in_p("review", "--confirm", seeded["Storage engine"].id)
    assert r.rc == 64 and "--yes" in r.err
    r = in_p("forget", "sqlite")
    assert r.rc == 64 and "there is no terminal" in r.err
    r = in_p("forget", "sqlite", "--yes")
    assert r.rc == 64 and "explicit ids" in r.err
    assert get(seeded["Storage engine"].id) is not None


def test_review_walk_confirm_edit_delete_skip(in_p, seeded, typed):
    tabs, flaky, storage = seeded["Tabs in Makefiles"], seeded["Flaky network test"], seeded["Storage engine"]
    typed("c\n",                                                  # Tabs: confirm
          "e\n", "test_fetch needs network: marked with @network.\n", "\n", "Network tests are marked\n",  # Flaky: edit
          "x\n", "d\n")                                           # Storage: a wrong key, then delete
    r = in_p("review")
    assert r.rc == 0, r.err
    assert "[1/3] convention · inferred" in r.out and "answer c, e, d, s or q" in r.out
    assert "reviewed: 1 confirmed, 1 edited, 1 deleted, 0 skipped" in r.out
    assert get(tabs.id).confidence == "explicit"
    old = get(flaky.id)
    assert old.superseded_by is not None
    new = get(old.superseded_by)
    assert new.title == "Network tests are marked" and new.confidence == "explicit"
    assert new.body.startswith("test_fetch needs network") and "Rationale: corrected by the user" in new.body
    assert get(storage.id) is None
    # A finished review moves the mark: nothing is new now, until something is written.
    assert json.loads(in_p("review", "--json").out) == []
    assert [r["id"] for r in json.loads(in_p("review", "--json", "--all").out)] == [new.id, tabs.id]


def test_a_review_left_early_resumes_with_the_rest(in_p, seeded, typed):
    typed("s\n", "q\n")
    r = in_p("review")
    assert r.rc == 0 and "2 left for the next `agentctx review`" in r.out
    assert [x["title"] for x in json.loads(in_p("review", "--json").out)] == ["Flaky network test", "Storage engine"]
    typed("s\n")  # end of input after one answer: treated as quit, nothing lost
    assert in_p("review").rc == 0
    assert [x["title"] for x in json.loads(in_p("review", "--json").out)] == ["Storage engine"]


def test_review_explicit_ids_with_yes(in_p, seeded):
    flaky, storage = seeded["Flaky network test"], seeded["Storage engine"]
    r = in_p("review", "--yes", "--confirm", flaky.id, "--delete", storage.id, "--json")
    assert json.loads(r.out) == {"confirmed": [flaky.id], "deleted": [storage.id], "restored": []}
    assert get(flaky.id).confidence == "explicit" and get(storage.id) is None
    assert in_p("review", "--yes", "--delete", "01NOPE").rc == 66


def test_forget_takes_the_supersession_history_along(in_p, seeded, typed):
    storage = seeded["Storage engine"]
    new_id = in_p("supersede", storage.id, "--body", "We keep records in sqlite with WAL and a 15 s busy timeout.",
                  "--rationale", "locks").out.strip()
    listed = json.loads(in_p("forget", "sqlite", "WAL", "--json").out)
    assert [(x["id"], x["versions"]) for x in listed] == [(new_id, 2)]
    typed("1\n", "y\n")
    r = in_p("forget", "sqlite", "WAL")
    assert r.rc == 0, r.err
    assert "Forget 1 record and 1 earlier/later version of it? This cannot be undone" in r.out
    assert f"forgot {new_id} (Storage engine), with 1 other version from its supersession history" in r.out
    assert get(new_id) is None and get(storage.id) is None
    assert get(seeded["Tabs in Makefiles"].id) is not None


def test_forget_asks_before_deleting(in_p, seeded, typed):
    typed("1\n", "n\n")
    r = in_p("forget", "Makefile", "tab")
    assert "nothing forgotten" in r.out and get(seeded["Tabs in Makefiles"].id) is not None
    typed("\n")
    assert "nothing forgotten" in in_p("forget", "Makefile", "tab").out
    typed("7\n", "all\n", "y\n")
    r = in_p("forget", "Makefile", "tab")
    assert "numbers between 1 and 1" in r.out and get(seeded["Tabs in Makefiles"].id) is None


def test_forget_explicit_ids(in_p, seeded):
    ids = [seeded["Flaky network test"].id, seeded["Tabs in Makefiles"].id]
    r = in_p("forget", "--yes", "--id", ids[0], "--id", ids[1], "--json")
    assert [x["id"] for x in json.loads(r.out)] == ids
    assert all(get(i) is None for i in ids)
    unknown = in_p("forget", "--yes", "--id", seeded["Storage engine"].id, "--id", "01UNKNOWN")
    assert unknown.rc == 66 and get(seeded["Storage engine"].id) is not None  # all ids checked before any delete


def test_forget_a_record_with_several_predecessors(in_p, seeded, proj_p):
    """Consolidation folds copies into one record: forgetting it takes every copy (no dangling superseded_by)."""
    conn = db.connect(paths.db_path())
    keep = seeded["Storage engine"]
    for n in range(2):
        copy = records.insert(conn, NewRecord(type="decision", title="Storage engine", body=f"copy {n}",
                                              project_id=keep.project_id, confidence="inferred"))[0]
        conn.execute("UPDATE records SET superseded_at = '2026-01-01', superseded_by = ? WHERE id = ?", (keep.id, copy.id))
    conn.commit()
    conn.close()
    r = in_p("forget", "--yes", "--id", keep.id, "--json")
    assert json.loads(r.out)[0]["history"] == 2


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_review_through_a_real_pty(in_p, seeded, proj_p):
    """The terminal check itself (isatty) and the prompts as a person sees them, in a pseudo-terminal."""
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: agentctx review at a terminal
        os.execv(sys.executable, [sys.executable, "-m", "agentctx", "-C", str(proj_p), "review"])
    seen = b""
    answers = [b"c\n", b"s\n", b"d\n"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child exited and closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        if seen.count(b"[q]uit > ") > 3 - len(answers) and answers:
            os.write(fd, answers.pop(0))
    _, status = os.waitpid(pid, 0)
    text = seen.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "reviewed: 1 confirmed, 0 edited, 1 deleted, 1 skipped" in text
    assert get(seeded["Tabs in Makefiles"].id).confidence == "explicit"
    assert get(seeded["Storage engine"].id) is None


# A week on python-attrs/attrs (issue 34): what the store held, in the project's own words (its pyproject.toml,
# CONTRIBUTING.md, changelog and docs), and `agentctx forget minimum python`, which offered 9 of them with "all".
ATTRS = (
    ("convention", "Minimum supported Python is 3.8",
     'attrs requires Python 3.8 or later: requires-python = ">=3.8" in pyproject.toml; 3.7 support ended in 24.1.0.'),
    ("convention", "News fragments with towncrier",
     "Every user-visible change adds a fragment in changelog.d/ named <PR number>.<change type>.md; towncrier "
     "builds CHANGELOG.md when a release is cut."),
    ("convention", "Tests run through tox",
     "Run the suite with tox: each Python version from 3.8 to 3.13 and PyPy has its own environment, plus mypy, "
     "pyright and docs environments."),
    ("decision", "Type stubs ship with the package",
     "attrs ships .pyi stubs next to the code (src/attr/__init__.pyi) and CI checks them with mypy and pyright on "
     "every supported Python."),
    ("discovery", "Slotted classes are the default",
     "@define creates slotted classes; weakref_slot=True is the default so instances can still be weakly "
     "referenced, which plain Python __slots__ classes cannot."),
    ("convention", "Property tests with Hypothesis",
     "Tests use pytest with Hypothesis strategies from tests/strategies.py to generate attrs classes."),
    ("bugfix", "cached_property on slotted classes",
     "functools.cached_property did not work on slotted classes; attrs now rewrites it into a slot-backed "
     "descriptor (Python 3.8+)."),
    ("decision", "attrs namespace is the modern API",
     "New code imports from attrs (attrs.define, attrs.field, attrs.frozen); the attr namespace stays for old "
     "Python code that used attr.s and attr.ib."),
    ("convention", "Docs are built with Sphinx",
     "docs/ is built with Sphinx and the furo theme on Read the Docs; doctests in the Python examples run with "
     "tox -e docs."),
    ("discovery", "PyPy and slotted class creation",
     "Creating slotted classes is slower on PyPy than on CPython; benchmarks live in bench/ and run with "
     "CodSpeed."),
)


@pytest.fixture
def attrs_store(in_p, proj_p):
    pid = detect(proj_p).id
    conn = db.connect(paths.db_path())
    made = [records.insert(conn, NewRecord(type=t, title=title, body=body, project_id=pid, confidence="explicit",
                                           source="cli"))[0] for t, title, body in ATTRS]
    conn.close()
    return made


def test_forget_minimum_python_offers_only_the_clear_match_as_all(in_p, attrs_store, typed):
    listed = json.loads(in_p("forget", "minimum", "python", "--json").out)
    assert [x["title"] for x in listed if x["clear"]] == ["Minimum supported Python is 3.8"]
    assert listed[0]["title"] == "Minimum supported Python is 3.8"
    assert all(isinstance(x["score"], float) for x in listed)
    assert [x["score"] for x in listed] == sorted((x["score"] for x in listed), reverse=True)
    # The same ranking as `agentctx search --keyword-only` lists.
    searched = json.loads(in_p("search", "minimum", "python", "--keyword-only", "--json").out)
    assert [x["id"] for x in listed] == [x["id"] for x in searched]
    typed("all\n", "y\n")
    r = in_p("forget", "minimum", "python")
    assert r.rc == 0, r.err
    assert "'all' for the 1 clear match" in r.out and "Forget 1 record? This cannot be undone" in r.out
    assert f"forgot {attrs_store[0].id} (Minimum supported Python is 3.8)" in r.out
    assert get(attrs_store[0].id) is None
    assert all(get(rec.id) is not None for rec in attrs_store[1:])  # nothing unrelated went with "all"


def test_forget_without_a_clear_match_takes_no_all(in_p, attrs_store, typed):
    # Words most of these records share, none of them telling: every one is a partial match; "all" takes nothing.
    listed = json.loads(in_p("forget", "python", "version", "range", "--json").out)
    assert listed and not any(x["clear"] for x in listed) and all(x["relevance"] == 0.0 for x in listed)
    typed("all\n", "\n")
    r = in_p("forget", "python", "version", "range")
    assert r.rc == 0 and "partial matches (not in 'all')" in r.out and "no clear match to take as 'all'" in r.out
    assert "nothing forgotten" in r.out and "This cannot be undone" not in r.out
    assert all(get(rec.id) is not None for rec in attrs_store)


# The linter of issue 42: a failing test's stub and the repository's rule files, which talk about tests and files.
LINTER = (
    ("bugfix", "Test failure: tests/test_cli.py::test_exit_code_on_syntax_error", "inferred", "hook_observation",
     "Command: python -m pytest\nObserved: FAILED tests/test_cli.py::test_exit_code_on_syntax_error - assert 0 == 1\n"
     "Failed tests:\n- tests/test_cli.py::test_exit_code_on_syntax_error"),
    ("convention", ".claude/rules/testing.md: tests", "explicit", "import",
     "Tests live in tests/, one test_*.py per module; the CLI tests in tests/test_cli.py call main() and check the "
     "exit code, never a subprocess."),
    ("convention", ".claude/rules/cli.md: exit codes", "explicit", "import",
     "The cli exits 1 on a lint error and 2 on a syntax error; tests of the exit code go in tests/test_cli.py."),
)


def test_forget_an_exact_test_id_offers_only_what_names_it(in_p, proj_p, typed):
    pid = detect(proj_p).id
    conn = db.connect(paths.db_path())
    made = [records.insert(conn, NewRecord(type=t, title=title, body=body, project_id=pid, confidence=conf,
                                           source=source))[0] for t, title, conf, source, body in LINTER]
    conn.close()
    test_id = "tests/test_cli.py::test_exit_code_on_syntax_error"
    listed = json.loads(in_p("forget", test_id, "--json").out)
    assert [x["id"] for x in listed if x["clear"]] == [made[0].id]
    typed("all\n", "y\n")
    r = in_p("forget", test_id)
    assert r.rc == 0 and "'all' for the 1 clear match" in r.out and get(made[0].id) is None
    assert get(made[1].id) is not None and get(made[2].id) is not None
