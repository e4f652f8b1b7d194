"""Tests for the content-addressed BlobStore."""

from __future__ import annotations

import pytest

from agentctx.stash import BlobStore, StashError


def test_structurally_equal_payloads_are_stored_once():
    store = BlobStore()
    a = store.put({"x": [1, 2], "y": "z"})
    b = store.put({"y": "z", "x": [1, 2]})
    assert a == b and len(store) == 1 and a in store


def test_defensive_copies_in_and_out():
    store = BlobStore()
    value = {"items": [1]}
    ref = store.put(value)
    value["items"].append(2)
    assert store.get(ref) == {"items": [1]}
    store.get(ref)["items"].append(3)
    assert store.get(ref) == {"items": [1]}


def test_missing_ref_is_not_found():
    with pytest.raises(StashError) as info:
        BlobStore().get("nope")
    assert info.value.code == "ERR_NOT_FOUND"


def test_snapshot_and_size():
    store = BlobStore()
    ref = store.put("abc")
    store.put(1)
    assert store.snapshot({ref}) == {ref: "abc"}
    assert store.size_bytes() == len('"abc"') + 1
    assert sorted(store) == sorted(store.snapshot())
