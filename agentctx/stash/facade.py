"""The Stash facade: one object that records or replays the same call sites, with cassette-style modes."""

from __future__ import annotations

import os
from collections.abc import Awaitable
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Literal, Optional, TypeVar, Union

from .errors import StashError
from .model import DROP, DivergenceReport, Divergence, RecordedEvent, Recording, RedactContext, RedactFn, StashMode
from .recorder import Recorder
from .redact import scrub_value
from .replayer import MatchMode, OnDivergence, Replayer, create_replayer
from .storage import JsonlWriter, decode_recording, encode_recording, read_recording, write_recording

__all__ = ["RecordMode", "Stash", "create_stash", "load_stash"]

T = TypeVar("T")
RecordMode = Literal["once", "new_episodes", "none", "all"]
_RECORD_MODES = ("once", "new_episodes", "none", "all")
PathLike = Union[str, "os.PathLike[str]"]


def _compose(redact: Optional[RedactFn], scrub: bool) -> Optional[RedactFn]:
    if not scrub:
        return redact
    if redact is None:
        return lambda value, context: scrub_value(value)

    def both(value: Any, context: RedactContext) -> Any:
        value = redact(value, context)
        return value if value is DROP else scrub_value(value)

    return both


class Stash:
    """Record-or-replay facade. Build it with :func:`create_stash` or :func:`load_stash`."""

    def __init__(
        self,
        *,
        recorder: Optional[Recorder] = None,
        replayer: Optional[Replayer] = None,
        path: Optional[Path] = None,
        record_on_error: bool = False,
        jsonl: Optional[JsonlWriter] = None,
    ) -> None:
        self._recorder = recorder
        self._replayer = replayer
        self._path = path
        self._record_on_error = record_on_error
        self._jsonl = jsonl
        self._closed = False

    @property
    def mode(self) -> StashMode:
        """``"record"`` or ``"replay"``."""
        return "replay" if self._replayer is not None else "record"

    @property
    def path(self) -> Optional[Path]:
        """The file this stash loads from and writes to, if any."""
        return self._path

    def intercept(
        self, channel: str, key: str, produce: Callable[[], T], *, input: Any = None, label: Optional[str] = None
    ) -> T:
        """Record ``produce()`` (record mode) or return/raise what was recorded for this call (replay mode)."""
        if self._replayer is not None:
            return self._replayer.replay(channel, key, produce, input=input, label=label)
        assert self._recorder is not None
        return self._recorder.record(channel, key, produce, input=input, label=label)

    async def aintercept(
        self,
        channel: str,
        key: str,
        produce: Callable[[], Union[Awaitable[T], T]],
        *,
        input: Any = None,
        label: Optional[str] = None,
    ) -> T:
        """:meth:`intercept` for coroutine producers (plain functions work too)."""
        if self._replayer is not None:
            return await self._replayer.replay_async(channel, key, produce, input=input, label=label)
        assert self._recorder is not None
        return await self._recorder.record_async(channel, key, produce, input=input, label=label)

    def value(self, channel: str, key: str, value: T, *, input: Any = None, label: Optional[str] = None) -> T:
        """Record a known value, or on replay return the recorded one in its place."""
        return self.intercept(channel, key, lambda: value, input=input, label=label)

    def recording(self) -> Recording:
        """The recording so far (record mode), or the replayed one plus any live tail (replay mode)."""
        if self._replayer is not None:
            return self._replayer.continuation()
        assert self._recorder is not None
        return self._recorder.recording()

    def save(self) -> str:
        """The recording as JSON envelope text."""
        return encode_recording(self.recording())

    def consumed(self) -> int:
        """Recorded events served so far (0 when recording)."""
        return 0 if self._replayer is None else self._replayer.consumed()

    def remaining(self) -> list[RecordedEvent]:
        """Recorded events not yet served ([] when recording)."""
        return [] if self._replayer is None else self._replayer.remaining()

    def divergences(self) -> list[Divergence]:
        """Divergences so far, with ``on_divergence="collect"`` ([] otherwise)."""
        return [] if self._replayer is None else self._replayer.divergences()

    def report(self) -> DivergenceReport:
        """The whole divergence report (empty and ok when recording)."""
        if self._replayer is None:
            return DivergenceReport((), None, 0, 0, 0)
        return self._replayer.report()

    def live_calls(self) -> int:
        """Calls that ran live past the end of a replayed recording (fork tail, ``new_episodes``)."""
        return 0 if self._replayer is None else self._replayer.live_calls()

    def write(self, path: Optional[PathLike] = None) -> Path:
        """Write the recording to ``path`` (default: the stash's own path) atomically; returns the path."""
        target = Path(path) if path is not None else self._path
        if target is None:
            raise StashError("ERR_INVALID_INPUT", "this stash has no path; pass one to write()")
        write_recording(target, self.recording())
        return target

    def close(self, failed: bool = False) -> Optional[Path]:
        """Finish a stash opened on a path: write it if anything new was recorded.

        A failed run (``failed=True``) writes nothing unless ``record_on_error`` was set; an interrupted
        JSONL recording is left as ``<path>.partial`` only in that case."""
        if self._closed or self._path is None:
            return None
        self._closed = True
        keep = not failed or self._record_on_error
        if self._jsonl is not None:
            self._jsonl.close()
            if keep:
                os.replace(self._jsonl.path, self._path)
                return self._path
            self._jsonl.path.unlink(missing_ok=True)
            return None
        changed = self._recorder is not None or (self._replayer is not None and self._replayer.live_calls() > 0)
        if keep and changed:
            return self.write()
        return None

    def __enter__(self) -> "Stash":
        return self

    def __exit__(
        self, kind: Optional[type[BaseException]], error: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close(failed=error is not None)

    async def __aenter__(self) -> "Stash":
        return self

    async def __aexit__(
        self, kind: Optional[type[BaseException]], error: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close(failed=error is not None)


def create_stash(
    *,
    replay: Union[Recording, str, None] = None,
    path: Optional[PathLike] = None,
    record_mode: RecordMode = "once",
    id: Optional[str] = None,
    meta: Optional[dict[str, Any]] = None,
    redact: Optional[RedactFn] = None,
    scrub_secrets: bool = True,
    strict: bool = True,
    on_divergence: OnDivergence = "throw",
    match: MatchMode = "ordinal",
    timestamps: bool = True,
    live_tail: Optional[bool] = None,
    record_on_error: bool = False,
) -> Stash:
    """A record-mode stash, or a replay-mode one when ``replay`` is given or ``path`` holds a recording.

    With ``path``, ``record_mode`` works like a cassette library: ``once`` replays an existing file and
    records a missing one; ``new_episodes`` replays it and records calls past its end; ``none`` only
    replays (a missing file is ``ERR_NOT_FOUND``); ``all`` always records afresh. Every value and input goes
    through the default secret scrubber before storage (recordings are made to be committed); pass
    ``scrub_secrets=False`` to keep them verbatim.
    """
    if record_mode not in _RECORD_MODES:
        raise StashError("ERR_INVALID_INPUT", f"record_mode must be one of {', '.join(_RECORD_MODES)}")
    redactor = _compose(redact, scrub_secrets)
    replay_options = dict(strict=strict, on_divergence=on_divergence, match=match, redact=redactor)
    if replay is not None:
        recording = decode_recording(replay) if isinstance(replay, str) else replay
        replayer = create_replayer(recording, live_tail=live_tail, **replay_options)  # type: ignore[arg-type]
        return Stash(replayer=replayer)
    target = Path(path) if path is not None else None
    if target is not None and record_mode != "all":
        if target.exists():
            tail = live_tail if live_tail is not None else (record_mode == "new_episodes" or None)
            replayer = create_replayer(read_recording(target), live_tail=tail, **replay_options)  # type: ignore[arg-type]
            return Stash(replayer=replayer, path=target, record_on_error=record_on_error)
        if record_mode == "none":
            raise StashError(
                "ERR_NOT_FOUND",
                f"no recording at {target} and record_mode is 'none'; record it once with record_mode='once'",
                path=str(target),
            )
    jsonl = None
    recorder = Recorder(id=id, meta=meta, redact=redactor, timestamps=timestamps)
    if target is not None and target.suffix == ".jsonl":
        jsonl = JsonlWriter(target.with_name(target.name + ".partial"), recorder.id, recorder.recording().meta)
        recorder = Recorder(id=recorder.id, meta=meta, redact=redactor, timestamps=timestamps, on_event=jsonl.append)
    return Stash(recorder=recorder, path=target, record_on_error=record_on_error, jsonl=jsonl)


def load_stash(
    json_text: Union[str, bytes, Recording],
    *,
    strict: bool = True,
    on_divergence: OnDivergence = "throw",
    match: MatchMode = "ordinal",
    redact: Optional[RedactFn] = None,
    scrub_secrets: bool = True,
    live_tail: Optional[bool] = None,
) -> Stash:
    """A replay-mode stash over a saved recording (either form). Invalid text raises ``ERR_INVALID_RECORDING``."""
    recording = json_text if isinstance(json_text, Recording) else decode_recording(json_text)
    replayer = create_replayer(
        recording,
        strict=strict,
        on_divergence=on_divergence,
        match=match,
        redact=_compose(redact, scrub_secrets),
        live_tail=live_tail,
    )
    return Stash(replayer=replayer)
