"""The stash's value types: events, recordings, divergences, redaction context and the DROP sentinel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional

__all__ = [
    "DROP",
    "Channel",
    "Divergence",
    "DivergenceKind",
    "DivergenceReport",
    "Outcome",
    "RecordedEvent",
    "Recording",
    "RedactContext",
    "RedactFn",
    "StashMode",
]

Channel = str
"""'llm', 'tool', 'mcp', 'clock', 'random', or any custom name."""
Outcome = Literal["return", "throw"]
StashMode = Literal["record", "replay"]
DivergenceKind = Literal["input-mismatch", "extra-call", "missing-call"]


class _Drop:
    """Type of :data:`DROP`."""

    _instance: Optional["_Drop"] = None

    def __new__(cls) -> "_Drop":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "DROP"

    def __reduce__(self) -> str:
        return "DROP"


DROP = _Drop()
"""Returned by a redact function to store a metadata-only event: the payload is never written."""


@dataclass(frozen=True)
class RedactContext:
    """What a redact function is looking at."""

    channel: str
    key: str
    ordinal: int
    part: Literal["value", "input", "error"]


RedactFn = Callable[[Any, RedactContext], Any]


@dataclass(frozen=True)
class RecordedEvent:
    """One recorded call: identity (channel, key, ordinal), global order ``seq`` and blob references."""

    seq: int
    channel: str
    key: str
    ordinal: int
    outcome: Outcome
    ref: str
    input_ref: Optional[str] = None
    at: Optional[float] = None
    label: Optional[str] = None
    dropped: bool = False

    @property
    def identity(self) -> tuple[str, str, int]:
        """(channel, key, ordinal): how replay, diff and fork recognise the same call."""
        return (self.channel, self.key, self.ordinal)

    @property
    def name(self) -> str:
        """``channel/key#ordinal``, the form used in messages."""
        return f"{self.channel}/{self.key}#{self.ordinal}"

    def to_json(self) -> dict[str, Any]:
        """The event in the envelope's JSON shape (seed field names: ``inputRef``)."""
        out: dict[str, Any] = {
            "seq": self.seq,
            "channel": self.channel,
            "key": self.key,
            "ordinal": self.ordinal,
            "outcome": self.outcome,
            "ref": self.ref,
        }
        if self.input_ref is not None:
            out["inputRef"] = self.input_ref
        if self.at is not None:
            out["at"] = self.at
        if self.label is not None:
            out["label"] = self.label
        if self.dropped:
            out["dropped"] = True
        return out


@dataclass(frozen=True)
class Recording:
    """The tape: ordered events plus a content-addressed blob table (envelope ``version: 1``)."""

    id: str
    events: tuple[RecordedEvent, ...]
    blobs: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    version: int = 1

    def blob(self, ref: Optional[str]) -> Any:
        """The payload stored under ``ref`` (``None`` for ``None``)."""
        return None if ref is None else self.blobs[ref]

    def to_json(self) -> dict[str, Any]:
        """The envelope ``{version, id, events, blobs, meta}``."""
        return {
            "version": self.version,
            "id": self.id,
            "events": [event.to_json() for event in self.events],
            "blobs": self.blobs,
            "meta": self.meta,
        }


@dataclass(frozen=True)
class Divergence:
    """One way a replay differed from its recording. Holds no recorded values or inputs."""

    kind: DivergenceKind
    channel: str
    key: str
    ordinal: int
    seq: Optional[int]
    """The recorded event's seq; ``None`` for an extra call."""
    call: Optional[int]
    """Index of the replayed call (0-based) that diverged; ``None`` for a missing call."""
    message: str

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form, safe to log."""
        return {
            "kind": self.kind,
            "channel": self.channel,
            "key": self.key,
            "ordinal": self.ordinal,
            "seq": self.seq,
            "call": self.call,
            "message": self.message,
        }


@dataclass(frozen=True)
class DivergenceReport:
    """Everything a replay saw go differently, in one pass."""

    divergences: tuple[Divergence, ...]
    first_divergence: Optional[Divergence]
    consumed: int
    remaining: int
    total: int

    @property
    def ok(self) -> bool:
        """True when the replay matched the recording exactly."""
        return not self.divergences

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form, safe to log."""
        return {
            "ok": self.ok,
            "divergences": [d.to_json() for d in self.divergences],
            "first_divergence": None if self.first_divergence is None else self.first_divergence.to_json(),
            "consumed": self.consumed,
            "remaining": self.remaining,
            "total": self.total,
        }
