"""The replayer: serves recorded values per (channel, key), re-raises recorded errors, detects divergence."""

from __future__ import annotations

import inspect
import threading
from collections import deque
from collections.abc import Awaitable
from typing import Any, Callable, Literal, Optional, TypeVar

from ._canonical import clone
from ._exc import rebuild_error
from .errors import StashError
from .model import Divergence, DivergenceReport, RecordedEvent, Recording, RedactContext, RedactFn
from .recorder import Recorder, hash_input

__all__ = ["OnDivergence", "MatchMode", "Replayer", "create_replayer"]

T = TypeVar("T")
OnDivergence = Literal["throw", "collect"]
MatchMode = Literal["ordinal", "input"]
_LIVE = object()


class Replayer:
    """Serves a :class:`Recording` back in order. With a live tail, calls past the tape run their producer
    and are appended to a continuation recording (used by forks and the ``new_episodes`` mode)."""

    def __init__(
        self,
        recording: Recording,
        *,
        strict: bool = True,
        on_divergence: OnDivergence = "throw",
        match: MatchMode = "ordinal",
        redact: Optional[RedactFn] = None,
        live_tail: bool = False,
    ) -> None:
        if on_divergence not in ("throw", "collect"):
            raise StashError("ERR_INVALID_INPUT", f"on_divergence must be 'throw' or 'collect', not {on_divergence!r}")
        if match not in ("ordinal", "input"):
            raise StashError("ERR_INVALID_INPUT", f"match must be 'ordinal' or 'input', not {match!r}")
        self._recording = recording
        self._strict = strict
        self._collect = on_divergence == "collect"
        self._match = match
        self._redact = redact
        self._live_tail = live_tail
        self._lock = threading.Lock()
        self._queues: dict[tuple[str, str], deque[RecordedEvent]] = {}
        for event in sorted(recording.events, key=lambda e: (e.channel, e.key, e.ordinal)):
            self._queues.setdefault((event.channel, event.key), deque()).append(event)
        self._consumed = 0
        self._calls = 0
        self._divergences: list[Divergence] = []
        self._tail: Optional[Recorder] = None

    @property
    def recording_in(self) -> Recording:
        """The recording being replayed."""
        return self._recording

    def consumed(self) -> int:
        """How many recorded events have been served."""
        return self._consumed

    def remaining(self) -> list[RecordedEvent]:
        """Recorded events not yet served, in seq order."""
        with self._lock:
            left = [event for queue in self._queues.values() for event in queue]
        return sorted(left, key=lambda e: e.seq)

    def live_calls(self) -> int:
        """How many calls ran live past the end of the tape."""
        return 0 if self._tail is None else self._tail.size() - len(self._recording.events)

    def continuation(self) -> Recording:
        """The recording plus every live call appended after it (the recording itself when none ran)."""
        return self._recording if self._tail is None else self._tail.recording()

    def divergences(self) -> list[Divergence]:
        """Divergences collected so far, then one ``missing-call`` per unserved event (collect mode only)."""
        if not self._collect:
            return []
        return list(self._divergences) + self._missing()

    def report(self) -> DivergenceReport:
        """The full report: collected divergences plus missing calls, and the first divergence."""
        found = tuple(self._divergences) + tuple(self._missing())
        return DivergenceReport(
            divergences=found,
            first_divergence=found[0] if found else None,
            consumed=self._consumed,
            remaining=len(self.remaining()),
            total=len(self._recording.events),
        )

    def _missing(self) -> list[Divergence]:
        return [
            Divergence(
                "missing-call",
                e.channel,
                e.key,
                e.ordinal,
                e.seq,
                None,
                f"recorded {e.name} at seq {e.seq}, attempted nothing (never called)",
            )
            for e in self.remaining()
        ]

    def _take(self, channel: str, key: str, input: Any) -> Any:
        """Pick the event to serve (or ``_LIVE``), recording or raising divergences."""
        with self._lock:
            call = self._calls
            self._calls += 1
            queue = self._queues.get((channel, key))
            if not queue:
                return self._exhausted(channel, key, call)
            digest = None
            if input is not None and (self._strict or self._match == "input"):
                digest = hash_input(input, self._redact, RedactContext(channel, key, queue[0].ordinal, "input"))
            event = queue[0]
            if self._match == "input" and digest is not None:
                event = next((e for e in queue if e.input_ref == digest), event)
            queue.remove(event)
            self._consumed += 1
        if self._strict and digest is not None and event.input_ref is not None and event.input_ref != digest:
            self._diverge(
                "input-mismatch",
                event,
                call,
                f"recorded {event.name} at seq {event.seq}, attempted {event.name} with a different input",
            )
        return event

    def _exhausted(self, channel: str, key: str, call: int) -> Any:
        if self._live_tail:
            return _LIVE
        recorded = sum(1 for e in self._recording.events if (e.channel, e.key) == (channel, key))
        attempted = f"{channel}/{key}#{recorded}"
        if self._collect:
            self._divergences.append(
                Divergence(
                    "extra-call",
                    channel,
                    key,
                    recorded,
                    None,
                    call,
                    f"recorded nothing more for {channel}/{key}, attempted {attempted} at call {call}",
                )
            )
        raise StashError(
            "ERR_RECORDING_EXHAUSTED",
            f"recorded {recorded} call(s) to {channel}/{key}, attempted {attempted} at call {call}",
            channel=channel,
            key=key,
            ordinal=recorded,
            call=call,
            kind="extra-call",
        )

    def _diverge(self, kind: Any, event: RecordedEvent, call: int, message: str) -> None:
        divergence = Divergence(kind, event.channel, event.key, event.ordinal, event.seq, call, message)
        if self._collect:
            self._divergences.append(divergence)
            return
        raise StashError(
            "ERR_DIVERGENCE",
            message,
            kind=kind,
            channel=event.channel,
            key=event.key,
            ordinal=event.ordinal,
            seq=event.seq,
            call=call,
        )

    def _serve(self, event: RecordedEvent) -> Any:
        payload = clone(self._recording.blobs[event.ref])
        if event.outcome == "throw":
            raise rebuild_error(payload)
        return None if event.dropped else payload

    def _live_recorder(self) -> Recorder:
        with self._lock:
            if self._tail is None:
                self._tail = Recorder(base=self._recording, redact=self._redact)
            return self._tail

    def replay(
        self,
        channel: str,
        key: str,
        produce: Optional[Callable[[], T]] = None,
        *,
        input: Any = None,
        label: Optional[str] = None,
    ) -> T:
        """Return the next recorded value for (channel, key) or raise its recorded error.

        ``produce`` is called only past the end of the tape with a live tail enabled."""
        event = self._take(channel, key, input)
        if event is _LIVE:
            if produce is None:
                raise StashError("ERR_RECORDING_EXHAUSTED", f"no producer for live call {channel}/{key}")
            return self._live_recorder().record(channel, key, produce, input=input, label=label)
        return self._serve(event)  # type: ignore[no-any-return]

    async def replay_async(
        self,
        channel: str,
        key: str,
        produce: Optional[Callable[[], Awaitable[T] | T]] = None,
        *,
        input: Any = None,
        label: Optional[str] = None,
    ) -> T:
        """Like :meth:`replay`; a live producer may be a coroutine function."""
        event = self._take(channel, key, input)
        if event is _LIVE:
            if produce is None:
                raise StashError("ERR_RECORDING_EXHAUSTED", f"no producer for live call {channel}/{key}")
            return await self._live_recorder().record_async(channel, key, produce, input=input, label=label)
        return self._serve(event)  # type: ignore[no-any-return]


def create_replayer(
    recording: Recording,
    *,
    strict: bool = True,
    on_divergence: OnDivergence = "throw",
    match: MatchMode = "ordinal",
    redact: Optional[RedactFn] = None,
    live_tail: Optional[bool] = None,
) -> Replayer:
    """A :class:`Replayer` over ``recording``. ``live_tail`` defaults to on for a fork, off otherwise."""
    if live_tail is None:
        live_tail = "fork" in recording.meta
    return Replayer(
        recording, strict=strict, on_divergence=on_divergence, match=match, redact=redact, live_tail=live_tail
    )
