"""Tests for fork: prefix, override, tail dropped, live boundary on replay, bounds."""

from __future__ import annotations

import pytest

from agentctx.stash import StashError, create_stash, decode_recording, encode_recording, fork, load_stash


def _four():
    stash = create_stash(id="root")
    for value in ("v0", "v1", "v2", "v3"):
        stash.intercept("llm", "step", lambda v=value: v)
    return stash.recording()


def test_fork_with_override_and_live_tail():
    original = _four()
    forked = fork(original, 2, override="V")
    assert forked.id != original.id and len(forked.events) == 3
    assert forked.meta["fork"] == {"from": "root", "at": 2, "override": True}
    assert len(original.events) == 4
    stash = load_stash(encode_recording(forked))
    assert stash.intercept("llm", "step", lambda: "live0") == "v0"
    assert stash.intercept("llm", "step", lambda: "live1") == "v1"
    assert stash.intercept("llm", "step", lambda: pytest.fail("override must not run")) == "V"
    assert stash.live_calls() == 0
    # The boundary: the fourth call is past the fork and runs live.
    assert stash.intercept("llm", "step", lambda: "live3") == "live3"
    assert stash.live_calls() == 1
    continued = decode_recording(stash.save())
    assert [continued.blobs[e.ref] for e in continued.events] == ["v0", "v1", "V", "live3"]
    assert stash.report().ok


def test_fork_without_override_and_at_zero():
    original = _four()
    assert len(fork(original, 2).events) == 2
    empty = fork(original, 0, id="fresh")
    assert empty.events == () and empty.id == "fresh" and empty.blobs == {}
    stash = load_stash(empty)
    assert stash.intercept("llm", "step", lambda: "live") == "live"


@pytest.mark.parametrize(("at", "override"), [(5, None), (-1, None), (4, "x"), ("1", None)])
def test_fork_bounds(at, override):
    args = () if override is None else (override,)
    with pytest.raises(StashError) as info:
        fork(_four(), at, *args)
    assert info.value.code == "ERR_INVALID_INPUT"


def test_fork_at_end_copies_everything():
    assert len(fork(_four(), 4).events) == 4


def test_plain_replay_has_no_live_tail():
    stash = load_stash(_four())
    for _ in range(4):
        stash.intercept("llm", "step", lambda: "x")
    with pytest.raises(StashError):
        stash.intercept("llm", "step", lambda: "x")
