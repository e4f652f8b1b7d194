"""Tamper-evident seal: a SHA-256 hash chain over the recording id and every event with its payloads."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any, Optional

from ._canonical import canonical_json
from .errors import StashError
from .model import RecordedEvent, Recording

__all__ = ["RecordingSeal", "VerifyResult", "seal_recording", "verify_recording"]

ALGORITHM = "sha256-chain-v1"
KEYED_ALGORITHM = "hmac-sha256-chain-v1"
_DOMAIN = "agentctx.stash/seal/v1"
_LINK_HEX = 16


@dataclass(frozen=True)
class RecordingSeal:
    """The root digest plus a short per-event link digest so verification can name the first broken event."""

    algorithm: str
    root: str
    count: int
    links: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """``{algorithm, root, count, links}``."""
        return {"algorithm": self.algorithm, "root": self.root, "count": self.count, "links": list(self.links)}

    @classmethod
    def from_json(cls, data: Any) -> "RecordingSeal":
        """Parse a seal; raises ``ERR_INVALID_INPUT`` when malformed."""
        try:
            seal = cls(str(data["algorithm"]), str(data["root"]), int(data["count"]), tuple(map(str, data["links"])))
        except (KeyError, TypeError, ValueError):
            raise StashError("ERR_INVALID_INPUT", "malformed seal: expected {algorithm, root, count, links}") from None
        if seal.algorithm not in (ALGORITHM, KEYED_ALGORITHM) or len(seal.links) != seal.count:
            raise StashError("ERR_INVALID_INPUT", f"unsupported or inconsistent seal ({seal.algorithm})")
        return seal


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify_recording`. ``first_broken`` is the index of the first event that differs
    (``count`` of the shorter side when events were added or removed at the end), ``None`` when valid
    or when only the id changed (then ``reason`` says so)."""

    valid: bool
    root: str
    expected_root: str
    first_broken: Optional[int]
    reason: Optional[str]

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form."""
        return dict(self.__dict__)


def _digest(key: Optional[bytes], data: bytes) -> bytes:
    if key is None:
        return hashlib.sha256(data).digest()
    return hmac.new(key, data, hashlib.sha256).digest()


def _event_payload(event: RecordedEvent, recording: Recording) -> bytes:
    body = {
        "event": event.to_json(),
        "value": recording.blobs.get(event.ref),
        "input": None if event.input_ref is None else recording.blobs.get(event.input_ref),
    }
    return canonical_json(body).encode("utf-8")


def _chain(recording: Recording, key: Optional[bytes]) -> tuple[str, list[str]]:
    link = _digest(key, f"{_DOMAIN}\n{canonical_json(recording.id)}".encode("utf-8"))
    links = []
    for event in recording.events:
        link = _digest(key, link + _event_payload(event, recording))
        links.append(link.hex()[:_LINK_HEX])
    return link.hex(), links


def seal_recording(recording: Recording, *, key: Optional[bytes] = None) -> RecordingSeal:
    """Seal ``recording``. With ``key`` the chain uses HMAC-SHA-256, which also proves who sealed it."""
    root, links = _chain(recording, key)
    return RecordingSeal(KEYED_ALGORITHM if key is not None else ALGORITHM, root, len(links), tuple(links))


def verify_recording(recording: Recording, seal: RecordingSeal, *, key: Optional[bytes] = None) -> VerifyResult:
    """Recompute the chain and compare with ``seal``, naming the first event that breaks it."""
    if (seal.algorithm == KEYED_ALGORITHM) != (key is not None):
        raise StashError("ERR_INVALID_INPUT", f"seal algorithm {seal.algorithm} needs {'a' if key is None else 'no'} key")
    root, links = _chain(recording, key)
    if hmac.compare_digest(root, seal.root):
        return VerifyResult(True, root, seal.root, None, None)
    first = next((i for i, (a, b) in enumerate(zip(links, seal.links)) if a != b), None)
    if first == 0 or (first is None and not links and not seal.links):
        # Every link depends on the id: when all differ from the start, the id (or event 0) changed.
        reason = "recording id or event 0 differs"
    elif first is None:
        first = min(len(links), len(seal.links))
        reason = f"event count differs: sealed {seal.count}, found {len(links)}"
    else:
        reason = f"event {first} differs"
    return VerifyResult(False, root, seal.root, first, reason)
