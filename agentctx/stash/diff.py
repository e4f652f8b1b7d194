"""Diff two recordings by call identity (channel, key, ordinal), not by position, down to JSON paths."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from .model import RecordedEvent, Recording

__all__ = ["DiffResult", "EventChange", "EventOnly", "diff_recordings", "format_diff"]

_MAX_PATHS = 20


@dataclass(frozen=True)
class EventOnly:
    """An event present in only one of the two recordings."""

    name: str
    seq: int
    outcome: str

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class EventChange:
    """The same call in both recordings with a different outcome, value or input."""

    name: str
    seq_a: int
    seq_b: int
    fields: tuple[str, ...]
    paths: tuple[str, ...] = field(default_factory=tuple)
    """JSON-path level differences of the value (``$.steps[2]: "a" → "b"``), at most 20."""

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form."""
        return {**self.__dict__, "fields": list(self.fields), "paths": list(self.paths)}


@dataclass(frozen=True)
class DiffResult:
    """Added (only in b), removed (only in a), changed, and the earliest of them by seq."""

    added: tuple[EventOnly, ...]
    removed: tuple[EventOnly, ...]
    changed: tuple[EventChange, ...]
    first_divergence: Optional[str]

    @property
    def same(self) -> bool:
        """True when the two recordings hold the same calls with the same results."""
        return not (self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form."""
        return {
            "same": self.same,
            "added": [e.to_json() for e in self.added],
            "removed": [e.to_json() for e in self.removed],
            "changed": [c.to_json() for c in self.changed],
            "first_divergence": self.first_divergence,
        }


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _paths(a: Any, b: Any, path: str, out: list[str]) -> None:
    if len(out) >= _MAX_PATHS or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in b:
                out.append(f"{path}.{key}: removed")
            elif key not in a:
                out.append(f"{path}.{key}: added {_short(b[key])}")
            else:
                _paths(a[key], b[key], f"{path}.{key}", out)
        return
    if isinstance(a, list) and isinstance(b, list):
        for index in range(max(len(a), len(b))):
            if index >= len(b):
                out.append(f"{path}[{index}]: removed")
            elif index >= len(a):
                out.append(f"{path}[{index}]: added {_short(b[index])}")
            else:
                _paths(a[index], b[index], f"{path}[{index}]", out)
        return
    out.append(f"{path}: {_short(a)} → {_short(b)}")


def _change(ea: RecordedEvent, eb: RecordedEvent, a: Recording, b: Recording) -> Optional[EventChange]:
    fields = []
    if ea.outcome != eb.outcome:
        fields.append("outcome")
    if ea.ref != eb.ref and a.blobs.get(ea.ref) != b.blobs.get(eb.ref):
        fields.append("value")
    if ea.input_ref != eb.input_ref:
        fields.append("input")
    if not fields:
        return None
    paths: list[str] = []
    if "value" in fields:
        _paths(a.blobs.get(ea.ref), b.blobs.get(eb.ref), "$", paths)
    return EventChange(ea.name, ea.seq, eb.seq, tuple(fields), tuple(paths))


def diff_recordings(a: Recording, b: Recording) -> DiffResult:
    """Compare ``a`` (before) with ``b`` (after). Interleaving of distinct keys is not a difference."""
    index_a = {event.identity: event for event in a.events}
    index_b = {event.identity: event for event in b.events}
    added = [EventOnly(e.name, e.seq, e.outcome) for e in b.events if e.identity not in index_a]
    removed = [EventOnly(e.name, e.seq, e.outcome) for e in a.events if e.identity not in index_b]
    changed = []
    for event in a.events:
        other = index_b.get(event.identity)
        if other is not None:
            change = _change(event, other, a, b)
            if change is not None:
                changed.append(change)
    # Earliest by position in a; an added event is placed by its position in b.
    candidates = [(c.seq_a, c.name) for c in changed] + [(r.seq, r.name) for r in removed]
    candidates += [(e.seq, e.name) for e in added]
    first = min(candidates)[1] if candidates else None
    return DiffResult(tuple(added), tuple(removed), tuple(changed), first)


def format_diff(result: DiffResult) -> str:
    """Readable, line-per-change text for the CLI."""
    if result.same:
        return "recordings are identical\n"
    lines = [f"first divergence: {result.first_divergence}"]
    for change in result.changed:
        lines.append(f"~ {change.name} (seq {change.seq_a} → {change.seq_b}): {', '.join(change.fields)} changed")
        lines.extend(f"    {path}" for path in change.paths)
    lines.extend(f"+ {e.name} (seq {e.seq}, {e.outcome})" for e in result.added)
    lines.extend(f"- {e.name} (seq {e.seq}, {e.outcome})" for e in result.removed)
    lines.append(f"{len(result.changed)} changed, {len(result.added)} added, {len(result.removed)} removed")
    return "\n".join(lines) + "\n"
