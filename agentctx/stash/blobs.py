"""Content-addressed, deduplicating blob table with defensive copies on the way in and out."""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Optional

from ._canonical import canonical_json, clone, content_hash, to_json_value
from .errors import StashError

__all__ = ["BlobStore"]


class BlobStore:
    """Stores plain JSON payloads under their content hash; structurally equal payloads are stored once."""

    def __init__(self, blobs: Optional[Mapping[str, Any]] = None) -> None:
        self._blobs: dict[str, Any] = dict(blobs or {})

    def put(self, value: Any, where: str = "value") -> str:
        """Store a copy of ``value`` and return its ref. Raises ``ERR_INVALID_INPUT`` if it is not JSON data."""
        data = to_json_value(value, where)
        ref = content_hash(data)
        self._blobs.setdefault(ref, data)
        return ref

    def put_json(self, data: Any) -> str:
        """Store data already normalized by :func:`to_json_value` (no copy) and return its ref."""
        ref = content_hash(data)
        self._blobs.setdefault(ref, data)
        return ref

    def get(self, ref: str) -> Any:
        """A fresh copy of the payload under ``ref``; raises ``ERR_NOT_FOUND`` for an unknown ref."""
        try:
            return clone(self._blobs[ref])
        except KeyError:
            raise StashError("ERR_NOT_FOUND", f"no blob {ref}", ref=ref) from None

    def __contains__(self, ref: object) -> bool:
        return ref in self._blobs

    def __len__(self) -> int:
        return len(self._blobs)

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def size_bytes(self) -> int:
        """Total canonical-JSON size of all payloads, in UTF-8 bytes."""
        return sum(len(canonical_json(value).encode("utf-8")) for value in self._blobs.values())

    def snapshot(self, refs: Optional[set[str]] = None) -> dict[str, Any]:
        """A copy of the table, optionally restricted to ``refs``."""
        return {ref: clone(value) for ref, value in self._blobs.items() if refs is None or ref in refs}
