"""The prompt hook's injection decision: the fitted model file, the gate per prompt class, the companion rule and the
fallback without word statistics. Records: bench/data/handwritten-records.jsonl (written by hand for the benchmark)."""

import json
from pathlib import Path

import pytest

from agentctx.store import db
from agentctx.base import paths
from agentctx.retrieval import relevance, search
from agentctx.base.models import NewRecord, SearchHit, SearchResult
from agentctx.store import records

P = "proj"
CASES = Path(__file__).resolve().parents[2] / "bench" / "data" / "handwritten-records.jsonl"


@pytest.fixture
def store():
    conn = db.connect(paths.db_path(), create=True)
    for line in CASES.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        records.insert(conn, NewRecord(type=r["type"], title=r["title"], body=r["body"], project_id=P,
                                       confidence="explicit"))
    yield conn
    conn.close()


def weigh(conn, prompt):
    return relevance.assess(search.search(conn, prompt, P, limit=6, floor=0.0), prompt)


def test_the_model_file_has_both_prompt_classes_and_every_feature():
    model = relevance.load()
    assert set(relevance.CLASSES) <= set(model)
    assert set(model) <= set(relevance.CLASSES) | {c + relevance.SEMANTIC for c in relevance.CLASSES}
    for klass, (coef, threshold, mean, scale) in model.items():
        assert 0.0 < threshold < 1.0
        assert set(relevance.FEATURES) <= set(coef) and "bias" in coef
        assert set(relevance.FEATURES) <= set(mean) and all(scale[f] > 0 for f in relevance.FEATURES)
        if klass.endswith(relevance.SEMANTIC):  # the model that also reads the static meaning data
            assert set(relevance.SEMANTIC_FEATURES) <= set(coef) and set(relevance.SEMANTIC_FEATURES) <= set(mean)


def test_a_question_naming_a_records_subject_injects_it(store):
    weighed = weigh(store, "how should API errors be returned to the client?")
    assert weighed[0].hit.record.title.startswith("API errors are returned as RFC 7807")
    assert weighed[0].inject and weighed[0].klass == "short" and weighed[0].features["question"] == 1.0
    assert weighed[0].p >= relevance.threshold("short")


def test_a_bug_report_finds_the_fix(store):
    weighed = weigh(store, "the CSV export is missing customers with accents in their names again")
    assert weighed[0].inject and weighed[0].hit.record.type == "bugfix"


@pytest.mark.parametrize("prompt", [
    "Can you refactor the sidebar component so the menu items come from a config array? Right now they are "
    "hard-coded in Sidebar.tsx and the order is wrong on mobile.",
    "fix the typo in the README",
    "Please update the docker compose file so postgres uses a named volume and add a healthcheck, then rerun "
    "the migrations",
])
def test_unrelated_prompts_that_share_words_inject_nothing(store, prompt):
    weighed = weigh(store, prompt)
    assert weighed, "the prompt shares words with the store: there are candidates to refuse"
    assert not any(a.inject for a in weighed)
    assert "<" in weighed[0].reason and "gate closed" in weighed[-1].reason


def test_long_prompts_use_the_long_model():
    assert relevance.prompt_class(relevance.SHORT_TERMS) == "short"
    assert relevance.prompt_class(relevance.SHORT_TERMS + 1) == "long"


def _hit(title, score, matched):
    return SearchHit(_record(title), score, 1.5, None, matched)


def _record(title):
    from agentctx.base.models import Record

    fields = dict.fromkeys(Record._fields)
    fields.update(id=title, type="decision", title=title, body="", confidence="explicit")
    return Record(**fields)


def test_only_close_followers_pass_with_an_open_gate(monkeypatch):
    monkeypatch.setattr(relevance, "probability", lambda feats, klass: 0.99)
    specific = {"sqlite": 1.0, "wal": 1.0}
    hits = (_hit("SQLite WAL", 10.0, {"sqlite": 2.0, "wal": 2.0}), _hit("SQLite notes", 6.5, {"sqlite": 1.0}),
            _hit("SQLite aside", 5.0, {"sqlite": 1.0}), _hit("WAL aside", 1.0, {"wal": 1.0}))
    weighed = relevance.assess(SearchResult(hits, None, ("sqlite", "wal"), specific), "sqlite wal")
    # A companion needs to be nearly as relevant as the first: 0.65 of its score rides along, 0.5 does not.
    assert [a.inject for a in weighed] == [True, True, False, False]
    assert f"0.50 of the gate's candidate < {relevance.COMPANION}" in weighed[2].reason
    assert "0.10 of the gate's candidate" in weighed[3].reason
    monkeypatch.setattr(relevance, "probability", lambda feats, klass: 0.01)
    weighed = relevance.assess(SearchResult(hits, None, ("sqlite", "wal"), specific), "sqlite wal")
    assert not any(a.inject for a in weighed)


def test_without_word_statistics_the_share_of_terms_decides():
    hits = (SearchHit(_record("a"), 1.0, 0.67, "like-search"), SearchHit(_record("b"), 0.5, 0.34, "like-search"))
    weighed = relevance.assess(SearchResult(hits, "like-search", ("x", "y", "z")), "x y z")
    assert [a.inject for a in weighed] == [True, False]
    pinned = (SearchHit(_record("p"), 1.0, 0.0, "pinned-only"),)
    assert not relevance.assess(SearchResult(pinned, "pinned-only", ("x",)), "x")[0].inject


def test_the_gate_reads_the_most_probable_of_the_first_candidates(monkeypatch):
    # A close second that names the prompt's subject opens the gate the first candidate alone would not.
    monkeypatch.setattr(relevance, "probability", lambda feats, klass: 0.99 if feats["title_cover"] else 0.1)
    specific = {"sqlite": 1.0, "wal": 1.0}
    hits = (_hit("Storage notes", 10.0, {"sqlite": 1.0, "wal": 1.0}), _hit("SQLite WAL", 8.0, {"sqlite": 2.0}),
            _hit("Unrelated", 1.0, {"wal": 1.0}))
    weighed = relevance.assess(SearchResult(hits, None, ("sqlite", "wal"), specific), "sqlite wal")
    assert "gate p=0.990 >=" in weighed[1].reason and weighed[1].inject
    # The first candidate outscores it on shared words but is no companion: its own probability is far below the
    # threshold (issue 37: a data-migration decision came along with the release-notes record).
    assert [a.inject for a in weighed] == [False, True, False]
    assert f"1.25 of the gate's candidate >= {relevance.COMPANION}, p=0.100 <" in weighed[0].reason


def test_a_companion_needs_its_own_probability_too(monkeypatch):
    specific = {"sqlite": 1.0, "wal": 1.0}
    hits = (_hit("SQLite WAL", 10.0, {"sqlite": 2.0, "wal": 2.0}), _hit("SQLite notes", 7.0, {"sqlite": 1.0}))
    cut = relevance.threshold("short")
    for p_second, passes in ((relevance.COMPANION_P * cut + 0.01, True), (relevance.COMPANION_P * cut - 0.01, False)):
        monkeypatch.setattr(relevance, "probability",
                            lambda feats, klass, p=p_second: 0.99 if feats["title_shared"] == 2 else p)
        weighed = relevance.assess(SearchResult(hits, None, ("sqlite", "wal"), specific), "sqlite wal")
        assert [a.inject for a in weighed] == [True, passes]


# --- questions about the project's profile -------------------------------------------------------------------

def test_profile_intent_needs_a_short_question_made_of_profile_words():
    assert relevance.profile_intent("how do I run the tests?", ["run", "test"]) == ("Commands", frozenset())
    assert relevance.profile_intent("which frameworks and libraries does this project depend on?",
                                    ["framework", "librari", "project", "depend"]) == ("Stack", frozenset())
    assert relevance.profile_intent("where is the entry point of the cli?", ["entri", "point", "cli"]) == \
        ("Entry points", frozenset({"cli"}))
    assert relevance.profile_intent("run the unit tests", ["run", "unit", "test"]) is None  # a request, not a question
    assert relevance.profile_intent("why is the sky blue?", ["sky", "blue"]) is None
    long = "how do I " + " ".join(f"word{i}" for i in range(relevance.SHORT_TERMS)) + " test?"
    assert relevance.profile_intent(long, [f"word{i}" for i in range(relevance.SHORT_TERMS)] + ["test"]) is None


@pytest.fixture
def first_day(tmp_path):
    """A store on the first day: the profile `agentctx init` detects, and nothing else."""
    from agentctx.memory import profile
    from agentctx.base.project import detect

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["fastapi"]\n'
                                         '[project.optional-dependencies]\ndev = ["pytest", "ruff"]\n'
                                         '[tool.ruff]\nline-length = 100\n', encoding="utf-8")
    project = detect(repo)
    conn = db.connect(paths.db_path(), create=True)
    profile.refresh(conn, project)
    conn.close()
    return repo


def _prompt(repo, prompt):
    from agentctx.hooks import Payload
    from agentctx.hooks.prompt import user_prompt_submit

    out = user_prompt_submit(Payload(session_id=f"s-{abs(hash(prompt))}", cwd=str(repo), prompt=prompt))
    return out["hookSpecificOutput"]["additionalContext"] if out else ""


@pytest.mark.parametrize("question, title", [
    ("how do I run the tests?", "Commands"), ("which linter do we use?", "Commands"),
    ("what's our stack?", "Stack"), ("which libraries does this project depend on?", "Stack"),
])
def test_a_question_about_the_profile_injects_it_on_the_first_day(first_day, question, title):
    assert f"[profile] {title} " in _prompt(first_day, question)


@pytest.mark.parametrize("prompt", [
    "run the tests",  # a request: the agent runs them, it does not ask how
    "How do I run an individual playwright test file in the terminal?",  # words the profile does not hold
    "why does the test for the login page fail?",
])
def test_other_prompts_about_tests_do_not_get_the_profile(first_day, prompt):
    assert "[profile]" not in _prompt(first_day, prompt)


def test_explain_says_why_the_profile_was_injected(first_day):
    from agentctx.retrieval.relevance import decide
    from agentctx.base.project import detect

    conn = db.connect(paths.db_path())
    first = decide(conn, "how do I run the tests?", detect(first_day).id)[0]
    conn.close()
    assert first.inject and first.hit.record.title == "Commands"
    assert first.reason.startswith("a question about the project's commands")


def test_a_record_with_questions_or_other_names_is_marked_expanded():
    from agentctx.base.models import Record

    specific = {"sqlite": 1.0}
    plain = _hit("SQLite WAL", 1.0, {"sqlite": 1.0})
    fields = plain.record._asdict()
    fields.update(aliases=("write-ahead log",))
    aliased = SearchHit(Record(**fields), 1.0, 1.5, None, {"sqlite": 1.0})
    assert relevance.features(plain, specific, True)["expanded"] == 0.0
    assert relevance.features(aliased, specific, True)["expanded"] == 1.0


@pytest.mark.parametrize("feats, passes", [
    # half of a stored question through three telling words that hold a fifth of the prompt's weight
    ({"question": 1.0, "cover": 0.25, "telling": 3.0, "question_cover": 0.5}, True),
    ({"question": 1.0, "cover": 0.25, "telling": 2.0, "question_cover": 0.5}, False),  # two telling words: too few
    ({"question": 1.0, "cover": 0.15, "telling": 3.0, "question_cover": 0.5}, False),  # a sliver of the prompt
    ({"question": 1.0, "cover": 0.25, "telling": 3.0, "question_cover": 0.4}, False),  # less than half a question
    ({"question": 0.0, "cover": 0.25, "telling": 3.0, "question_cover": 0.5}, False),  # not a question
    ({"question": 1.0, "cover": 0.85, "telling": 2.0, "question_cover": 0.5}, True),   # most of it, two words
    ({"question": 1.0, "cover": 0.95, "telling": 3.0, "question_cover": 0.0}, True),   # all but nothing of it
])
def test_a_question_the_record_foresaw_passes_a_closed_gate(feats, passes):
    assert relevance.answered(feats) is passes


def test_a_one_word_stored_question_is_never_wholly_said():
    specific = {"log": 0.5, "upload": 0.6, "handler": 0.4}
    assert relevance.question_cover(("how do we log?",), specific) == 0.5
    assert relevance.question_cover(("what log format do services use?", "how do we log?"), specific) == 0.5
    assert relevance.question_cover(("where do upload handlers log?",), specific) == 1.0


@pytest.mark.parametrize("prompt", ["now whats the next step ?", "ok cool, whats next? pls continue",
                                    "im not sure thats right, dont you think?", "didnt work, cant see why"])
def test_contractions_without_apostrophes_and_chat_filler_inject_nothing(store, prompt):
    from agentctx.base import text

    assert not {"whats", "thats", "im", "dont", "didnt", "cant", "ok", "pls", "cool"} & set(text.query_tokens(prompt))
    assert not any(a.inject for a in weigh(store, prompt))


def test_one_word_of_a_short_stored_question_is_not_half_of_it_for_the_closed_gate():
    stems = {"user": 1.0, "profil": 1.0}
    assert relevance.question_cover(("Route53 Profiles?",), stems, strict=True) == 0.0  # "profiles" alone
    assert relevance.question_cover(("Route53 Profiles?",), stems) == 0.5  # the gate's own feature: as before
    assert relevance.question_cover(("which user profiles exist?",), stems, strict=True) == 2 / 3
    assert relevance.question_cover(("how do we log?",), {"log": 1.0}, strict=True) == 0.5  # one word counts as two
    # "a prompt about user profiles got Route53 Profiles at cover 0.31": the foreseen-question rule no longer opens
    # a closed gate on half of a two-word question.
    half = {"question": 1.0, "cover": 0.31, "telling": 3.0, "question_cover": 0.5, "question_asked": 0.0}
    assert not relevance.answered(half)
    assert relevance.answered(dict(half, question_asked=0.5))
