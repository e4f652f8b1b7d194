"""rank.specificity: background idf looked up by a binary search on the stem string."""

from __future__ import annotations

from bisect import bisect_left

from agentctx import background, rank, text


def test_lookup_agrees_with_a_list_bisect_for_every_stem_and_near_misses():
    words = background.STEMS.split("\n")
    table = rank._load()[0]
    probes = words + [w + "x" for w in words[::7]] + [w[:-1] for w in words[::11]] + ["", "~", "0", "zzzz"]
    for word in probes:
        i = bisect_left(words, word)
        expected = i if i < len(words) and words[i] == word else -1
        assert rank._find(table, word) == expected, word


def test_generic_words_weigh_less_than_specific_ones():
    w = rank.specificity(text.stems(["add", "function", "sqlite", "pagerduty"]))
    assert w["add"] < 0.2 and w["function"] < 0.2
    assert w["sqlit"] > 0.5 if "sqlit" in w else w["sqlite"] > 0.5
    assert w["pagerduti"] == 1.0  # never seen in the background: the unit of specificity
