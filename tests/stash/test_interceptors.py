"""Tests for the clock, seeded random and wrap/wrap_sync interceptors."""

from __future__ import annotations

import asyncio

import pytest

from agentctx.stash import (
    StashError,
    create_deterministic_clock,
    create_seeded_random,
    create_stash,
    load_stash,
    wrap,
    wrap_sync,
)


def test_clock_and_random_replay_exactly():
    times = iter([100.0, 200.0])
    stash = create_stash()
    clock = create_deterministic_clock(stash, lambda: next(times))
    rng = create_seeded_random(stash, seed=42)
    recorded = [clock.now(), clock(), rng.random(), rng.random(), rng.randint(0, 10**9)]
    replay = load_stash(stash.save())
    clock2 = create_deterministic_clock(replay, lambda: 0.0)
    rng2 = create_seeded_random(replay)
    assert [clock2.now(), clock2(), rng2.random(), rng2.random(), rng2.randint(0, 10**9)] == recorded
    assert rng2.seed_value == 42


def test_random_without_seed_is_recorded():
    stash = create_stash()
    first = create_seeded_random(stash).random()
    assert create_seeded_random(load_stash(stash.save())).random() == first


def test_default_clock_source():
    assert isinstance(create_deterministic_clock(create_stash()).now(), float)


def test_wrap_sync_records_arguments_as_input():
    calls = []

    def search(q, limit=5):
        calls.append(q)
        return [q] * limit

    stash = create_stash()
    wrapped = wrap_sync(stash, "tool", "search", search)
    assert wrapped("a", limit=2) == ["a", "a"] and wrapped.__name__ == "search"
    replayed = wrap_sync(load_stash(stash.save()), "tool", "search", search)
    assert replayed("a", limit=2) == ["a", "a"] and calls == ["a"]
    with pytest.raises(StashError):
        wrap_sync(load_stash(stash.save()), "tool", "search", search)("b", limit=2)


def test_wrap_async():
    async def fetch(url):
        await asyncio.sleep(0)
        return {"url": url}

    stash = create_stash()
    assert asyncio.run(wrap(stash, "http", "get", fetch)("u")) == {"url": "u"}

    async def fail(url):
        raise AssertionError("live call on replay")

    assert asyncio.run(wrap(load_stash(stash.save()), "http", "get", fail)("u")) == {"url": "u"}


def test_wrap_without_input():
    stash = create_stash()
    wrap_sync(stash, "t", "k", lambda x: x, with_input=False)(object.__name__)
    assert stash.recording().events[0].input_ref is None
