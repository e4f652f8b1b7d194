"""The recorder: runs producers, stores values and thrown errors as content-addressed events."""

from __future__ import annotations

import inspect
import threading
import time
import uuid
from collections.abc import Awaitable
from typing import Any, Callable, Optional, TypeVar

from ._canonical import content_hash, to_json_value
from ._exc import encode_error
from .blobs import BlobStore
from .errors import StashError
from .model import DROP, RecordedEvent, Recording, RedactContext, RedactFn

__all__ = ["Recorder", "create_recorder", "hash_input"]

T = TypeVar("T")
_DROPPED = {"dropped": True}
"""The blob a DROP-redacted payload is replaced by (one shared entry, no content)."""


def hash_input(value: Any, redact: Optional[RedactFn], context: RedactContext) -> Optional[str]:
    """Content hash of a call's input after redaction: what replay compares. ``None`` input has no hash."""
    if value is None:
        return None
    if redact is not None:
        value = redact(value, context)
        if value is DROP:
            value = _DROPPED
    return content_hash(to_json_value(value, "input"))


class Recorder:
    """Captures every intercepted call into an in-memory tape. Thread-safe; one lock guards the tape."""

    def __init__(
        self,
        *,
        id: Optional[str] = None,
        meta: Optional[dict[str, Any]] = None,
        redact: Optional[RedactFn] = None,
        timestamps: bool = True,
        base: Optional[Recording] = None,
        on_event: Optional[Callable[[RecordedEvent, dict[str, Any]], None]] = None,
    ) -> None:
        self._lock = threading.Lock()
        self._redact = redact
        self._timestamps = timestamps
        self._on_event = on_event
        self._id = id or (base.id if base else uuid.uuid4().hex)
        self._meta = to_json_value(dict(base.meta if base and meta is None else meta or {}), "meta")
        self._events: list[RecordedEvent] = list(base.events) if base else []
        self._blobs = BlobStore(base.blobs if base else None)
        self._ordinals: dict[tuple[str, str], int] = {}
        for event in self._events:
            pair = (event.channel, event.key)
            self._ordinals[pair] = max(self._ordinals.get(pair, 0), event.ordinal + 1)

    @property
    def id(self) -> str:
        """The recording id."""
        return self._id

    def size(self) -> int:
        """Number of recorded events."""
        return len(self._events)

    def recording(self) -> Recording:
        """A snapshot of the tape (copies; later recording does not change it)."""
        with self._lock:
            return Recording(self._id, tuple(self._events), self._blobs.snapshot(), dict(self._meta))

    def reserve(self, channel: str, key: str) -> int:
        """Claim the next ordinal for (channel, key) at call time, so concurrent calls keep their call order."""
        if not isinstance(channel, str) or not isinstance(key, str) or not channel or not key:
            raise StashError("ERR_INVALID_INPUT", "channel and key must be non-empty strings")
        with self._lock:
            pair = (channel, key)
            ordinal = self._ordinals.get(pair, 0)
            self._ordinals[pair] = ordinal + 1
            return ordinal

    def _prepare(self, value: Any, channel: str, key: str, ordinal: int, part: Any) -> tuple[Any, bool]:
        if self._redact is not None:
            value = self._redact(value, RedactContext(channel, key, ordinal, part))
            if value is DROP:
                return _DROPPED, True
        return to_json_value(value, part), False

    def commit(
        self,
        channel: str,
        key: str,
        ordinal: int,
        outcome: str,
        payload: Any,
        input: Any = None,
        label: Optional[str] = None,
    ) -> RecordedEvent:
        """Append one event. Validates and redacts everything first, so a bad payload appends nothing."""
        part = "value" if outcome == "return" else "error"
        data, dropped = self._prepare(payload, channel, key, ordinal, part)
        input_data = None
        if input is not None:
            input_data, _ = self._prepare(input, channel, key, ordinal, "input")
        with self._lock:
            new: dict[str, Any] = {}
            ref = self._put(data, new)
            input_ref = None if input_data is None else self._put(input_data, new)
            event = RecordedEvent(
                seq=len(self._events),
                channel=channel,
                key=key,
                ordinal=ordinal,
                outcome=outcome,  # type: ignore[arg-type]
                ref=ref,
                input_ref=input_ref,
                at=round(time.time(), 3) if self._timestamps else None,
                label=label,
                dropped=dropped,
            )
            self._events.append(event)
            if self._on_event is not None:
                self._on_event(event, new)
            return event

    def _put(self, data: Any, new: dict[str, Any]) -> str:
        ref = content_hash(data)
        if ref not in self._blobs:
            self._blobs.put_json(data)
            new[ref] = data
        return ref

    def record(
        self, channel: str, key: str, produce: Callable[[], T], *, input: Any = None, label: Optional[str] = None
    ) -> T:
        """Run ``produce`` and record its return value or thrown error; return or re-raise it unchanged."""
        ordinal = self.reserve(channel, key)
        try:
            result = produce()
        except Exception as error:
            self.commit(channel, key, ordinal, "throw", encode_error(error), input, label)
            raise
        self.commit(channel, key, ordinal, "return", result, input, label)
        return result

    async def record_async(
        self,
        channel: str,
        key: str,
        produce: Callable[[], Awaitable[T] | T],
        *,
        input: Any = None,
        label: Optional[str] = None,
    ) -> T:
        """Like :meth:`record` for a coroutine function (a plain function is accepted too)."""
        ordinal = self.reserve(channel, key)
        try:
            result = produce()
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:
            self.commit(channel, key, ordinal, "throw", encode_error(error), input, label)
            raise
        self.commit(channel, key, ordinal, "return", result, input, label)
        return result  # type: ignore[return-value]

    def value(self, channel: str, key: str, value: T, *, input: Any = None, label: Optional[str] = None) -> T:
        """Record an already-known value and return it."""
        ordinal = self.reserve(channel, key)
        self.commit(channel, key, ordinal, "return", value, input, label)
        return value


def create_recorder(
    *,
    id: Optional[str] = None,
    meta: Optional[dict[str, Any]] = None,
    redact: Optional[RedactFn] = None,
    timestamps: bool = True,
) -> Recorder:
    """A new, empty :class:`Recorder`."""
    return Recorder(id=id, meta=meta, redact=redact, timestamps=timestamps)
