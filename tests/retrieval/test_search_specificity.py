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
