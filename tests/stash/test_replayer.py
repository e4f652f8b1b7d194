"""Tests for replay: round trip, errors, per-key order, strict/collect divergence, exhaustion, input match."""

from __future__ import annotations

import asyncio

import pytest

from agentctx.stash import StashError, create_replayer, create_stash, load_stash


def never():
    raise AssertionError("producer must not run on replay")


async def never_async():
    raise AssertionError("producer must not run on replay")


def _recorded(*calls):
    stash = create_stash()
    for channel, key, value, given in calls:
        stash.intercept(channel, key, lambda v=value: v, input=given)
    return stash.save()


def test_round_trip_serves_values_in_order_without_producers():
    text = _recorded(("llm", "plan", "a", None), ("tool", "search", [1], None), ("llm", "plan", "b", None))
    stash = load_stash(text)
    assert stash.mode == "replay"
    assert stash.intercept("llm", "plan", never) == "a"
    assert stash.intercept("tool", "search", never) == [1]
    assert stash.intercept("llm", "plan", never) == "b"
    assert stash.consumed() == 3 and stash.remaining() == [] and stash.report().ok


def test_record_mode_counters():
    stash = create_stash()
    stash.value("a", "b", 1)
    assert stash.mode == "record"
    assert stash.consumed() == 0 and stash.remaining() == [] and stash.divergences() == []


class RateLimitError(Exception):
    pass


def test_recorded_error_reraised_with_same_type():
    stash = create_stash()

    def boom():
        raise RateLimitError("429")

    with pytest.raises(RateLimitError):
        stash.intercept("llm", "plan", boom)
    with pytest.raises(RateLimitError, match="429"):
        load_stash(stash.save()).intercept("llm", "plan", never)


def test_unrebuildable_error_becomes_stash_error_with_name_and_message():
    stash = create_stash()

    def boom():
        raise RateLimitError("429")

    with pytest.raises(RateLimitError):
        stash.intercept("llm", "plan", boom)
    saved = stash.save().replace(__name__, "not_imported_module")
    with pytest.raises(StashError) as info:
        load_stash(saved).intercept("llm", "plan", never)
    assert "RateLimitError: 429" in str(info.value)
    assert info.value.details["error_type"] == "RateLimitError"


def test_per_key_independence():
    stash = load_stash(_recorded(("a", "x", 1, None), ("b", "y", 2, None)))
    assert stash.intercept("b", "y", never) == 2
    assert stash.intercept("a", "x", never) == 1
    assert stash.divergences() == [] and stash.report().ok


def test_strict_input_mismatch_raises_without_values():
    stash = load_stash(_recorded(("tool", "search", "r", {"q": "cats"})))
    with pytest.raises(StashError) as info:
        stash.intercept("tool", "search", never, input={"q": "dogs"})
    error = info.value
    assert error.code == "ERR_DIVERGENCE"
    assert error.details["kind"] == "input-mismatch"
    assert (error.details["channel"], error.details["key"], error.details["ordinal"]) == ("tool", "search", 0)
    assert "cats" not in str(error.to_json()) and "dogs" not in str(error.to_json())
    assert "recorded tool/search#0 at seq 0, attempted" in error.message


def test_canonical_input_hash_ignores_key_order():
    stash = load_stash(_recorded(("t", "k", 1, {"a": 1, "b": 2})))
    assert stash.intercept("t", "k", never, input={"b": 2, "a": 1}) == 1


def test_non_strict_ignores_input():
    stash = load_stash(_recorded(("t", "k", 1, {"q": "cats"})), strict=False)
    assert stash.intercept("t", "k", never, input={"q": "dogs"}) == 1
    assert stash.divergences() == []


def test_collect_mode_reports_every_kind_in_one_pass():
    text = _recorded(("t", "a", 1, {"q": 1}), ("t", "b", 2, None), ("t", "c", 3, None))
    stash = load_stash(text, on_divergence="collect")
    assert stash.intercept("t", "a", never, input={"q": 2}) == 1
    with pytest.raises(StashError) as info:
        stash.intercept("t", "unknown", never)
    assert info.value.code == "ERR_RECORDING_EXHAUSTED"
    assert stash.intercept("t", "b", never) == 2
    report = stash.report()
    assert [d.kind for d in report.divergences] == ["input-mismatch", "extra-call", "missing-call"]
    assert report.first_divergence == report.divergences[0]
    assert report.first_divergence.kind == "input-mismatch"
    assert [d.kind for d in stash.divergences()] == [d.kind for d in report.divergences]
    assert not report.ok and report.remaining == 1
    assert report.to_json()["first_divergence"]["key"] == "a"


def test_exhaustion_raises_and_does_not_run_producer():
    stash = load_stash(_recorded(("llm", "plan", 1, None)))
    stash.intercept("llm", "plan", never)
    with pytest.raises(StashError) as info:
        stash.intercept("llm", "plan", never)
    assert info.value.code == "ERR_RECORDING_EXHAUSTED"
    assert "attempted llm/plan#1" in info.value.message
    with pytest.raises(StashError) as unknown:
        stash.intercept("llm", "other", never)
    assert unknown.value.code == "ERR_RECORDING_EXHAUSTED"


def test_replayed_values_are_copies():
    stash = load_stash(_recorded(("a", "x", {"l": [1]}, None), ("a", "x", {"l": [1]}, None)))
    first = stash.intercept("a", "x", never)
    first["l"].append(2)
    assert stash.intercept("a", "x", never) == {"l": [1]}


def test_sync_async_and_value_interleave():
    async def run(stash):
        out = [await stash.aintercept("llm", "a", lambda: asyncio.sleep(0, result="A"))]
        out.append(stash.intercept("tool", "b", lambda: "B"))
        out.append(stash.value("clock", "now", 5))
        out.append(await stash.aintercept("llm", "a", lambda: "A2"))
        return out

    recorder = create_stash()
    assert asyncio.run(run(recorder)) == ["A", "B", 5, "A2"]
    assert [e.seq for e in recorder.recording().events] == [0, 1, 2, 3]
    replayer = load_stash(recorder.save())

    async def replay(stash):
        out = [await stash.aintercept("llm", "a", never_async)]
        out.append(stash.intercept("tool", "b", never))
        out.append(stash.value("clock", "now", 99))
        out.append(await stash.aintercept("llm", "a", never_async))
        return out

    assert asyncio.run(replay(replayer)) == ["A", "B", 5, "A2"]


def test_input_match_mode_handles_gather_reordering():
    async def fetch(stash, q, delay):
        async def produce():
            await asyncio.sleep(delay)
            return f"result {q}"

        return await stash.aintercept("tool", "search", produce, input={"q": q})

    async def record():
        stash = create_stash()
        await asyncio.gather(fetch(stash, "a", 0.01), fetch(stash, "b", 0))
        return stash.save()

    text = asyncio.run(record())

    async def replay(order):
        stash = load_stash(text, match="input")
        results = await asyncio.gather(*(fetch(stash, q, 0) for q in order))
        return results, stash.report()

    results, report = asyncio.run(replay(["b", "a"]))
    assert results == ["result b", "result a"] and report.ok
    ordinal_stash = load_stash(text)
    with pytest.raises(StashError):
        ordinal_stash.intercept("tool", "search", never, input={"q": "b"})


def test_invalid_options():
    stash = create_stash()
    with pytest.raises(StashError):
        create_replayer(stash.recording(), on_divergence="warn")  # type: ignore[arg-type]
    with pytest.raises(StashError):
        create_replayer(stash.recording(), match="fuzzy")  # type: ignore[arg-type]
