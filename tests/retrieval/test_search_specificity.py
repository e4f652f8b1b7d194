"""search.specificity: background idf looked up by a binary search on the stem lines of background.txt."""

from pathlib import Path

from agentctx.retrieval import search
from agentctx.base import text

BACKGROUND = Path(search.__file__).with_name(search.BACKGROUND_FILE)


def _entries() -> dict[str, int]:
    lines = [line for line in BACKGROUND.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return {stem: int(bucket) for stem, bucket in (line.split("\t") for line in lines)}


def test_the_data_file_is_sorted_and_has_its_header():
    entries = _entries()
    assert len(entries) > 5000 and list(entries) == sorted(entries)
    table, n, scale = search._load()
    assert n > 1000 and scale > 0


def test_lookup_agrees_with_the_file_for_every_stem_and_near_misses():
    entries = _entries()
    words = list(entries)
    table = search._load()[0]
    for word in words:
        assert search._find(table, word) == entries[word], word
    probes = [w + "x" for w in words[::7]] + [w[:-1] for w in words[::11]] + ["", "~", "0", "zzzz", "a\tb"]
    for word in probes:
        if word not in entries:
            assert search._find(table, word) == -1, word


def test_generic_words_weigh_less_than_specific_ones():
    w = search.specificity(text.stems(["add", "function", "sqlite", "pagerduty"]))
    assert w["add"] < 0.2 and w["function"] < 0.2
    assert w["sqlit"] > 0.5 if "sqlit" in w else w["sqlite"] > 0.5
    assert w["pagerduti"] == 1.0  # never seen in the background: the unit of specificity
    assert search.specificity(["a\tb", "x\ny"]) == {"a\tb": 1.0, "x\ny": 1.0}


def test_short_numbers_are_common_words_longer_ones_stay_specific():
    spec = search.specificity(["1", "5", "42", "401", "8080", "django", "api"])
    assert spec["1"] == spec["5"] < spec["42"] < spec["api"] < spec["django"]  # "api" is a common word, 0.16
    assert spec["401"] == spec["8080"] == 1.0  # status codes and ports: as specific as an unseen word
    assert search.specificity(["\u0663"])["\u0663"] == 1.0  # a non-ASCII digit is no list number


def test_a_version_in_a_prompt_does_not_tie_it_to_a_record_with_other_numbers(tmp_path):
    # Real prompt (kept-apart set): "Gemini 2.5" against a decision about Django 5.2 matched as if both said a rare
    # word; the numbers now weigh what they weigh in software text.
    from agentctx.base import paths
    from agentctx.base.models import NewRecord
    from agentctx.retrieval import relevance
    from agentctx.store import db, records

    conn = db.connect(paths.db_path(), create=True)
    records.insert(conn, NewRecord(type="decision", title="Django state control after upgrading to Django 5.2",
                                   body="State transitions use django-fsm-2 since the upgrade to Django 5.2.",
                                   project_id="p", confidence="explicit"))
    result = search.search(conn, "What multimodal capabilities does Gemini 2.5 Flash via API have?", "p", limit=6,
                           floor=0.0)
    assert not any(a.inject for a in relevance.assess(result, "What multimodal capabilities does Gemini 2.5 Flash "
                                                                "via API have?"))
    conn.close()
