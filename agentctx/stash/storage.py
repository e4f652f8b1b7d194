"""Recording serialization: the JSON envelope, the crash-safe JSONL form, validation and stats."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Optional, Union

from ._canonical import canonical_json
from .errors import StashError
from .model import RecordedEvent, Recording

__all__ = [
    "JSONL_FORMAT",
    "JsonlWriter",
    "RecordingStats",
    "decode_recording",
    "encode_jsonl",
    "encode_recording",
    "read_recording",
    "recording_stats",
    "write_recording",
]

JSONL_FORMAT = "agentctx.stash/jsonl"
"""The ``format`` field of a JSONL recording's header line."""
_EVENT_FIELDS = {"seq", "channel", "key", "ordinal", "outcome", "ref", "inputRef", "at", "label", "dropped"}


def encode_recording(recording: Recording) -> str:
    """The recording as a JSON envelope ``{version: 1, id, events, blobs, meta}`` (indented, stable order)."""
    return json.dumps(recording.to_json(), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def encode_jsonl(recording: Recording) -> str:
    """The recording as JSONL: a header line, then one line per event carrying the blobs it introduces."""
    lines = [_dumps({"format": JSONL_FORMAT, "version": 1, "id": recording.id, "meta": recording.meta})]
    seen: set[str] = set()
    for event in recording.events:
        new = {}
        for ref in (event.ref, event.input_ref):
            if ref is not None and ref not in seen:
                seen.add(ref)
                new[ref] = recording.blobs[ref]
        lines.append(_dumps({"event": event.to_json(), "blobs": new}))
    return "\n".join(lines) + "\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _invalid(message: str, **details: Any) -> StashError:
    return StashError("ERR_INVALID_RECORDING", message, **details)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in pairs:
        if name in out:
            raise _invalid(f"duplicate JSON member {name!r}", member=name)
        out[name] = value
    return out


def _reject_constant(name: str) -> Any:
    raise _invalid(f"non-standard JSON constant {name}")


def _loads(text: str, where: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise _invalid(f"{where} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}") from None


def decode_recording(text: Union[str, bytes]) -> Recording:
    """Parse and validate a recording in either form (JSON envelope or JSONL).

    Raises ``ERR_INVALID_RECORDING`` naming what is wrong: bad JSON, wrong version, a malformed event,
    a ref missing from ``blobs``, a duplicate (channel, key, ordinal) or a non-contiguous ``seq``.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid("recording is not UTF-8 text") from None
    if not isinstance(text, str):
        raise StashError("ERR_INVALID_INPUT", "decode_recording expects str or bytes")
    stripped = text.lstrip()
    first_line = stripped.split("\n", 1)[0]
    if f'"{JSONL_FORMAT}"' in first_line:
        return _decode_jsonl(stripped)
    data = _loads(text, "recording")
    return recording_from_json(data)


def _decode_jsonl(text: str) -> Recording:
    lines = text.split("\n")
    header = _loads(lines[0], "JSONL header")
    if not isinstance(header, dict) or header.get("format") != JSONL_FORMAT:
        raise _invalid("JSONL header line is missing its format field")
    events: list[Any] = []
    blobs: dict[str, Any] = {}
    body = [line for line in lines[1:]]
    for number, line in enumerate(body, start=2):
        if not line.strip():
            continue
        try:
            entry = _loads(line, f"JSONL line {number}")
        except StashError:
            # A torn final line is what a crash mid-write leaves behind: keep everything before it.
            if number == len(lines) and not text.endswith("\n"):
                break
            raise
        if not isinstance(entry, dict) or not isinstance(entry.get("event"), dict):
            raise _invalid(f"JSONL line {number} has no event object", line=number)
        if not isinstance(entry.get("blobs", {}), dict):
            raise _invalid(f"JSONL line {number} has a non-object blobs field", line=number)
        events.append(entry["event"])
        blobs.update(entry.get("blobs", {}))
    envelope = {k: header.get(k) for k in ("version", "id", "meta")}
    envelope.update(events=events, blobs=blobs)
    return recording_from_json(envelope)


def recording_from_json(data: Any) -> Recording:
    """Validate a parsed envelope and build the :class:`Recording`."""
    if not isinstance(data, dict):
        raise _invalid("recording must be a JSON object")
    if data.get("version") != 1:
        raise _invalid(f"unsupported recording version {data.get('version')!r} (expected 1)", version=data.get("version"))
    rec_id = data.get("id")
    if not isinstance(rec_id, str) or not rec_id:
        raise _invalid("recording id must be a non-empty string")
    raw_events, blobs, meta = data.get("events"), data.get("blobs"), data.get("meta", {})
    if not isinstance(raw_events, list):
        raise _invalid("recording events must be a list")
    if not isinstance(blobs, dict):
        raise _invalid("recording blobs must be an object")
    if not isinstance(meta, dict):
        raise _invalid("recording meta must be an object")
    events = []
    identities: set[tuple[str, str, int]] = set()
    for index, raw in enumerate(raw_events):
        event = _event_from_json(raw, index, blobs)
        if event.identity in identities:
            raise _invalid(f"event {index} duplicates {event.name}", index=index)
        identities.add(event.identity)
        events.append(event)
    return Recording(rec_id, tuple(events), blobs, meta)


def _event_from_json(raw: Any, index: int, blobs: dict[str, Any]) -> RecordedEvent:
    if not isinstance(raw, dict):
        raise _invalid(f"event {index} must be an object", index=index)
    unknown = set(raw) - _EVENT_FIELDS
    if unknown:
        raise _invalid(f"event {index} has unknown field(s) {sorted(unknown)}", index=index)

    def need(name: str, kind: Any, optional: bool = False) -> Any:
        value = raw.get(name)
        if value is None and optional:
            return None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _invalid(f"event {index} has a missing or malformed {name!r}", index=index, field=name)
        return value

    seq = need("seq", int)
    if seq != index:
        raise _invalid(f"event {index} has seq {seq}: seq must be contiguous from 0", index=index)
    channel, key, ordinal = need("channel", str), need("key", str), need("ordinal", int)
    outcome, ref = need("outcome", str), need("ref", str)
    if outcome not in ("return", "throw"):
        raise _invalid(f"event {index} has outcome {outcome!r}", index=index)
    if ordinal < 0 or not channel or not key:
        raise _invalid(f"event {index} has an empty channel/key or a negative ordinal", index=index)
    input_ref = need("inputRef", str, optional=True)
    for name, value in (("ref", ref), ("inputRef", input_ref)):
        if value is not None and value not in blobs:
            raise _invalid(f"event {index} {name} {value} is missing from blobs", index=index, field=name)
    at = raw.get("at")
    if at is not None and (not isinstance(at, (int, float)) or isinstance(at, bool)):
        raise _invalid(f"event {index} has a malformed 'at'", index=index)
    dropped = raw.get("dropped", False)
    if not isinstance(dropped, bool):
        raise _invalid(f"event {index} has a malformed 'dropped'", index=index)
    return RecordedEvent(
        seq, channel, key, ordinal, outcome, ref, input_ref, at, need("label", str, optional=True), dropped
    )


@dataclass(frozen=True)
class RecordingStats:
    """Counts for ``inspect``/``stats``."""

    id: str
    events: int
    blobs: int
    blob_bytes: int
    throws: int
    dropped: int
    with_input: int
    channels: dict[str, int] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form."""
        return dict(self.__dict__)


def recording_stats(recording: Recording) -> RecordingStats:
    """Per-channel and per-key counts, throws, dropped events, blob count and bytes."""
    channels: dict[str, int] = {}
    keys: dict[str, int] = {}
    for event in recording.events:
        channels[event.channel] = channels.get(event.channel, 0) + 1
        keys[f"{event.channel}/{event.key}"] = keys.get(f"{event.channel}/{event.key}", 0) + 1
    return RecordingStats(
        id=recording.id,
        events=len(recording.events),
        blobs=len(recording.blobs),
        blob_bytes=sum(len(canonical_json(v).encode("utf-8")) for v in recording.blobs.values()),
        throws=sum(1 for e in recording.events if e.outcome == "throw"),
        dropped=sum(1 for e in recording.events if e.dropped),
        with_input=sum(1 for e in recording.events if e.input_ref is not None),
        channels=channels,
        keys=keys,
    )


def read_recording(path: Union[str, "os.PathLike[str]"]) -> Recording:
    """Load a recording file in either form. ``OSError`` propagates (the CLI maps it to exit 66)."""
    return decode_recording(Path(path).read_text(encoding="utf-8"))


def write_recording(path: Union[str, "os.PathLike[str]"], recording: Recording) -> None:
    """Write atomically (temp file + rename); ``.jsonl`` paths get the JSONL form, others the envelope."""
    target = Path(path)
    text = encode_jsonl(recording) if target.suffix == ".jsonl" else encode_recording(recording)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")  # unique per writer
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class JsonlWriter:
    """Append-only JSONL sink: the header at open, then one flushed line per event as it is recorded."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], rec_id: str, meta: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: Optional[IO[str]] = self.path.open("w", encoding="utf-8")
        self._write({"format": JSONL_FORMAT, "version": 1, "id": rec_id, "meta": meta})

    def _write(self, entry: dict[str, Any]) -> None:
        if self._file is None:
            raise StashError("ERR_INVALID_INPUT", f"JSONL writer for {self.path} is closed")
        self._file.write(_dumps(entry) + "\n")
        self._file.flush()

    def append(self, event: RecordedEvent, new_blobs: dict[str, Any]) -> None:
        """Write one event line with the blobs it introduces."""
        self._write({"event": event.to_json(), "blobs": new_blobs})

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._file is not None:
            self._file.close()
            self._file = None
