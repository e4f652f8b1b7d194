"""Tests for canonical JSON, content hashing and JSON-value normalisation."""

from __future__ import annotations

import math

import pytest

from agentctx.stash import StashError
from agentctx.stash._canonical import canonical_json, clone, content_hash, to_json_value


def test_key_order_does_not_matter():
    assert canonical_json({"b": 2, "a": 1}) == canonical_json({"a": 1, "b": 2}) == '{"a":1,"b":2}'
    assert content_hash({"b": 2, "a": 1}) == content_hash({"a": 1, "b": 2})


def test_hash_distinguishes_values_and_types():
    assert content_hash(1) != content_hash("1")
    assert content_hash([1, 2]) != content_hash([2, 1])
    assert len(content_hash(None)) == 32


def test_unicode_is_kept_verbatim():
    assert canonical_json("café") == '"café"'


@pytest.mark.parametrize("bad", [math.nan, math.inf, {1: "x"}, object(), {"f": print}, b"bytes", {1, 2}])
def test_non_json_values_are_invalid_input(bad):
    with pytest.raises(StashError) as info:
        to_json_value(bad)
    assert info.value.code == "ERR_INVALID_INPUT"


def test_error_names_the_path():
    with pytest.raises(StashError, match=r"value\.a\[1\]"):
        to_json_value({"a": [1, object()]})


def test_to_json_value_copies_and_turns_tuples_into_lists():
    original = {"a": [1, {"b": (2, 3)}]}
    copy = to_json_value(original)
    assert copy == {"a": [1, {"b": [2, 3]}]}
    copy["a"][1]["b"].append(4)
    assert original["a"][1]["b"] == (2, 3)


def test_clone_is_deep():
    data = {"a": [{"b": 1}]}
    copy = clone(data)
    copy["a"][0]["b"] = 2
    assert data["a"][0]["b"] == 1
