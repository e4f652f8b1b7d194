"""Token budgets (SPEC §10): one estimate and one truncation rule."""

from __future__ import annotations

import pytest

from agentctx.base import tokens


@pytest.mark.parametrize("text, expected", [("", 0), ("abcd", 1), ("abcde", 2), ("x" * 6000, 1500), ("é" * 8, 2)])
def test_estimate_is_ceil_chars_over_4(text, expected):
    assert tokens.estimate(text) == expected


def test_spec_constants():
    assert tokens.SESSION_START_BUDGET == 1500
    assert tokens.PROMPT_BUDGET == 2000
    assert tokens.PROMPT_CHAR_CAP == 8000
    assert tokens.PROMPT_TOP_K == 3
    assert tokens.SEARCH_RESULT_BUDGET == 50
    assert tokens.SEARCH_LIMIT_MAX == 15
    assert tokens.DRIFT_HINT_BUDGET == 60


@pytest.mark.parametrize("budget", [1, 2, 5, 10, 37, 100, 499])
@pytest.mark.parametrize("text", ["word " * 1000, "x" * 5000, "line\n" * 900, "ünïcødé " * 700])
def test_truncate_stays_within_budget_and_marks_the_cut(text, budget):
    out = tokens.truncate(text, budget)
    assert len(out) <= budget * 4
    assert tokens.estimate(out) <= budget
    assert out.endswith("…")
    assert text.startswith(out[: -len(tokens.ELLIPSIS)].rstrip()[:10])


def test_truncate_zero_or_negative_budget_is_empty():
    assert tokens.truncate("anything", 0) == ""
    assert tokens.truncate("anything", -3) == ""


def test_truncate_leaves_fitting_text_alone():
    assert tokens.truncate("abcdefgh", 2) == "abcdefgh"
    assert tokens.truncate("", 5) == ""


def test_truncate_prefers_a_word_boundary():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    out = tokens.truncate(text, 8)
    body = out[: -len(tokens.ELLIPSIS)]
    assert text.startswith(body)
    assert text[len(body)] == " "  # cut between words, not inside one


def test_truncate_chars():
    assert tokens.truncate_chars("abc", 5) == "abc"
    out = tokens.truncate_chars("x" * 100, 10)
    assert len(out) <= 10 and out.endswith("…")
    assert tokens.truncate_chars("x" * 100, 1) == ""


@pytest.mark.parametrize("sizes, cap, budget, kept", [
    ((100, 100, 100), 300, 10_000, [0, 1]),   # char cap
    ((800, 800), None, 250, [0]),             # token cap
    ((2000, 100, 100), 400, 10_000, [1, 2]),  # an oversized block is skipped, later ones still fit
])
def test_fit_keeps_blocks_in_order_under_the_caps(sizes, cap, budget, kept):
    blocks = [chr(ord("a") + i) * n for i, n in enumerate(sizes)]
    assert tokens.fit(blocks, budget, char_cap=cap) == [blocks[i] for i in kept]


def test_fit_result_respects_budget_and_cap():
    blocks = ["y" * n for n in (500, 1500, 3000, 2500, 10, 4000)]
    out = tokens.fit(blocks, tokens.PROMPT_BUDGET, char_cap=tokens.PROMPT_CHAR_CAP)
    joined = "\n\n".join(out)
    assert tokens.estimate(joined) <= tokens.PROMPT_BUDGET
    assert len(joined) <= tokens.PROMPT_CHAR_CAP


def test_compose_keeps_everything_that_fits():
    assert tokens.compose(["a", "", "b"], 100) == "a\n\nb"


def test_compose_truncates_the_first_overflowing_section_and_drops_the_rest():
    sections = ["p" * 400, "d" * 4000, "h" * 400]
    out = tokens.compose(sections, 300)
    assert tokens.estimate(out) <= 300
    assert out.startswith("p" * 400)
    assert "d" in out and out.endswith("…")
    assert "h" not in out


def test_compose_drops_a_section_when_under_40_tokens_remain():
    sections = ["p" * 1100, "d" * 4000]
    out = tokens.compose(sections, 300)  # 275 t used, 25 t left: not worth a partial section
    assert out == "p" * 1100


@pytest.mark.parametrize("budget", [40, 100, 1500])
def test_compose_never_exceeds_the_budget(budget):
    sections = [("s%d " % i) * (50 * i + 1) for i in range(1, 12)]
    assert tokens.estimate(tokens.compose(sections, budget)) <= budget
