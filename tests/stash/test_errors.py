"""Tests for the single StashError type."""

from __future__ import annotations

import json

import pytest

from agentctx.stash import StashError, is_stash_error


def test_code_message_and_safe_details():
    error = StashError("ERR_NOT_FOUND", "no blob x", ref="x", thing=object(), nested={"k": (1, 2)})
    assert error.code == "ERR_NOT_FOUND"
    assert str(error) == "ERR_NOT_FOUND: no blob x"
    assert error.details == {"ref": "x", "thing": "object", "nested": {"k": [1, 2]}}
    json.dumps(error.to_json())


def test_unknown_code_is_rejected():
    with pytest.raises(ValueError):
        StashError("ERR_NOPE", "x")  # type: ignore[arg-type]


def test_is_stash_error():
    error = StashError("ERR_DIVERGENCE", "x")
    assert is_stash_error(error)
    assert is_stash_error(error, "ERR_DIVERGENCE")
    assert not is_stash_error(error, "ERR_NOT_FOUND")
    assert not is_stash_error(ValueError("x"))
    assert isinstance(error, Exception)
