"""The prompt hook's gate on a store shaped like a real project's (issue 37): a short, plain question a new user types
reaches the record it is about through that record's other names, and everyday prompts from other projects get
nothing through generic other names.

The store: the current decision records of alphagov/forms (adr-dev in /work/shared/bench, found as ../shared beside
the checkout: a real project's decision log; skipped without it) plus tests/data/attrs-conventions.jsonl: conventions
of python-attrs/attrs's CONTRIBUTING.md (commit c1c3fe…) restated in our own words, and three decisions, with
questions and other names written by hand in the way the expansion pass's prompt asks for, some of them generic on
purpose ("logging", "documentation", "cloud provider"), as a model still writes them. adr-dev is among the sets the
gate is fitted on (tools/fit_relevance.py), so this store is not held out; the attrs records and every prompt below
are not fitted on. The positive prompts are written by hand in a new user's words; the negative ones are real prompts
from other projects (prompts-dev) plus three everyday requests written by hand. The kept-apart sets the gate is also
fitted on are harvested at run time from fetched snapshots and not committed, so this test does not read them."""

import json
from pathlib import Path

import pytest

from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.retrieval import relevance
from agentctx.store import db, records

P = "proj"
ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "bench"
FORMS = "alphagov/forms"
RELEASE_NOTES = "User-visible changes get a news fragment in changelog.d/"


def _current(adr):
    return not (adr.get("status") or "").lower().startswith(("superseded", "rejected"))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import os

    adrs = SHARED / "adr-dev" / "adrs.jsonl"
    if not adrs.is_file():
        pytest.skip(f"no shared development decisions at {adrs}")
    home = tmp_path_factory.mktemp("home")
    old = {k: os.environ.get(k) for k in ("HOME", "AGENTCTX_HOME")}
    os.environ.update(HOME=str(home), AGENTCTX_HOME=str(home / ".agentctx"))
    conn = db.connect(paths.db_path(), create=True)
    for line in adrs.read_text(encoding="utf-8").splitlines():
        adr = json.loads(line)
        if adr["repo"] == FORMS and _current(adr) and adr.get("decision"):
            records.insert(conn, NewRecord(type="decision", title=adr["title"][:120], body=adr["decision"][:2000],
                                           project_id=P, confidence="explicit"))
    for line in (ROOT / "tests" / "data" / "attrs-conventions.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        records.insert(conn, NewRecord(type=r["type"], title=r["title"], body=r["body"], project_id=P,
                                       confidence="explicit", questions=tuple(r["questions"]),
                                       aliases=tuple(r["aliases"])))
    yield conn
    conn.close()
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def injected(conn, prompt):
    return [a.hit.record.title for a in relevance.decide(conn, prompt, P) if a.inject][:3]


def test_the_release_notes_question_reaches_its_record_through_its_other_name(store):
    # The week's miss: the record says "news fragment" and "changelog.d"; the user says "release notes", the other
    # name the record carries. Its whole other name counts in full, it ranks first, and the question is one it
    # answers whole (relevance.answered), and nothing comes in with it.
    got = injected(store, "where do the release notes for my change go?")
    assert got and got[0] == RELEASE_NOTES
    assert len(got) == 1  # and nothing else with it


# "how long can my lines be?" was the week's known miss (p 0.409 against 0.773 before the gate read whether a
# record carries questions: "lines" is all it shares with the record); it now passes the gate (p 0.906 against
# 0.780), and so do "what coverage does CI want?" (0.887) and "how do I build the docs locally?" (0.975).
@pytest.mark.parametrize("prompt, title", [
    ("how long can my lines be?", "PEP 8 checked by Ruff, 79-character lines"),
    ("which side does the expected value go on in an assert?",
     "Asserts are written as expected == actual, after an empty line"),
    ("do I have to update the stub files when I change a public function?",
     "Changed public APIs update the .pyi type stubs"),
    ("what coverage does CI want?", "Coverage must stay at 100%"),
    ("can I open the PR from my fork's main branch?", "One change per pull request, branched off main"),
    ("how do I build the docs locally?", "Docs are built with Sphinx and published on Read the Docs"),
])
def test_plain_questions_reach_their_record_first(store, prompt, title):
    got = injected(store, prompt)
    assert got and got[0] == title


@pytest.mark.parametrize("prompt", [
    # Real prompts from other projects that use the records' generic other names.
    "Update all documentation with the current state of the project.",
    "Ok, let's organize our documents in the proper folders like 'docs'.",
    "Add a matrix to the docs",
    "this is the library I'm using - can you read the online documentation? If so, can you save a copy to the folder",
    "I specifically want to this the directories in docs/",
    "please can add more detailed loggging to api/service/whatsapp_service.go.",
    # The closest call (p 0.530 against 0.780): "coverage" is most of what it shares with the coverage convention.
    "create a makefile and add commands for runnings tests, checking coverage and generating the chart",
    "When I add these lines in program.cs my dotnet run doesnt work. builder.Logging.ClearProviders();\n"
    " builder.Host.UseNLog();",
    # Everyday requests, written by hand. The first read p 0.764 while the record's one-word question "how do we
    # log?" counted as wholly said (relevance.QUESTION_WORDS_MIN); now p 0.255 against 0.780.
    "add more logging to the upload handler",
    "which cloud provider is cheapest for a small side project?",
    "write documentation for the new endpoints",
])
def test_everyday_prompts_get_nothing_through_generic_other_names(store, prompt):
    assert injected(store, prompt) == []


def test_a_word_many_records_share_weighs_less_in_this_store():
    specific = {"releas": 0.4, "note": 0.4}
    alone = relevance.weights(specific, (200, {"releas": 1, "note": 1}))
    shared = relevance.weights(specific, (200, {"releas": 60, "note": 1}))
    assert alone == specific and shared["releas"] < 0.5 * alone["releas"] and shared["note"] == alone["note"]
    assert relevance.weights(specific, None) == specific  # no store statistics: specificity alone
