"""Canonical JSON, the defensive JSON-value copy and the content hash every other module relies on."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from .errors import StashError

__all__ = ["canonical_json", "clone", "content_hash", "to_json_value"]

_SCALARS = (str, bool, int, type(None))


def to_json_value(value: Any, where: str = "value") -> Any:
    """Return a deep copy of ``value`` as plain JSON data (dict/list/str/int/float/bool/None).

    Tuples become lists. Raises ``ERR_INVALID_INPUT`` for NaN/infinity, non-string keys and any other type,
    naming the JSON path of the offending part.
    """
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StashError("ERR_INVALID_INPUT", f"{where} is not JSON-serializable: {value!r}", path=where)
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise StashError(
                    "ERR_INVALID_INPUT", f"{where} has a non-string key of type {type(key).__name__}", path=where
                )
            out[key] = to_json_value(item, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple)):
        return [to_json_value(item, f"{where}[{index}]") for index, item in enumerate(value)]
    raise StashError(
        "ERR_INVALID_INPUT",
        f"{where} is not JSON-serializable (type {type(value).__name__})",
        path=where,
        type=type(value).__name__,
    )


def clone(value: Any) -> Any:
    """Deep copy of a value already known to be plain JSON data."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


def canonical_json(value: Any) -> str:
    """Serialize plain JSON data canonically: sorted keys, no whitespace, UTF-8 text, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: Any) -> str:
    """The content address of plain JSON data: the first 32 hex digits of SHA-256 over its canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()[:32]
