"""Fork a recording: keep the prefix before `at`, optionally override the decision at `at`, drop the tail."""

from __future__ import annotations

import uuid
from typing import Any, Optional

from ._canonical import content_hash, to_json_value
from .errors import StashError
from .model import RecordedEvent, Recording

__all__ = ["fork"]

_UNSET: Any = object()


def fork(recording: Recording, at: int, override: Any = _UNSET, id: Optional[str] = None) -> Recording:
    """A new recording holding events ``0..at-1`` and, with ``override``, a returned ``override`` value at ``at``.

    ``meta["fork"]`` records the parent id and ``at``; replaying a fork serves the prefix and then runs
    every later call live. The original is not changed. Raises ``ERR_INVALID_INPUT`` when ``at`` is out of
    range (``0 <= at <= len(events)``, and ``at < len(events)`` with an override).
    """
    count = len(recording.events)
    if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= count:
        raise StashError("ERR_INVALID_INPUT", f"fork point {at!r} is outside 0..{count}", at=str(at), events=count)
    has_override = override is not _UNSET
    if has_override and at == count:
        raise StashError("ERR_INVALID_INPUT", f"no event at {at} to override (recording has {count})", at=at)
    events = list(recording.events[:at])
    blobs: dict[str, Any] = {}
    for event in events:
        for ref in (event.ref, event.input_ref):
            if ref is not None:
                blobs[ref] = recording.blobs[ref]
    if has_override:
        original = recording.events[at]
        data = to_json_value(override, "override")
        ref = content_hash(data)
        blobs[ref] = data
        if original.input_ref is not None:
            blobs[original.input_ref] = recording.blobs[original.input_ref]
        events.append(
            RecordedEvent(
                seq=at,
                channel=original.channel,
                key=original.key,
                ordinal=original.ordinal,
                outcome="return",
                ref=ref,
                input_ref=original.input_ref,
                label=original.label,
            )
        )
    meta = dict(recording.meta)
    meta["fork"] = {"from": recording.id, "at": at, "override": has_override}
    return Recording(id or uuid.uuid4().hex, tuple(events), blobs, meta)
