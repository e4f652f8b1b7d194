"""What is sent: redacted, private-free turns, windowed by the seed's size policy (whole, head + tail, map-reduce)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from ..base.redact import scrub_text
from ..base.tokens import estimate
from .transcript import Turn, render, strip_private

Mode = Literal["empty", "whole", "head_tail", "map_reduce"]

WHOLE_MAX = 15_000  # tokens: send the new part as it is
HEAD_TAIL_MAX = 50_000  # tokens: above this, map-reduce
HEAD_TOKENS = 3_000
TAIL_TOKENS = 17_000
CHUNK_TOKENS = 10_000
CARRY_TOKENS = 500  # earlier context repeated so the new part is understood (never more than this)
CARRY_TURN_CHARS = 600  # each carried turn is cut to its head: a reminder, not a second copy
# Per-turn caps: an assistant turn is context, so its head is enough; a developer paste keeps head and tail.
ASSISTANT_CHARS = 1_500
DEVELOPER_CHARS = 6_000
CUT = "\n[… truncated …]\n"


@dataclass(frozen=True)
class Plan:
    """The windows of new transcript to send (one call each), the carry-over, and the text evidence must match."""

    mode: Mode
    windows: tuple[str, ...]
    carry: str
    evidence: str  # the developer's words, as sent (redacted): what ingest grounds entries in
    new_tokens: int
    # What the session's tool calls touched in the new part (`path:…` edited, `command:…` run): the only things an
    # entry's anchors may name (SPEC §6.2).
    actions: tuple[str, ...] = ()


def clean(text: str) -> str:
    """Private spans removed, then secrets masked with the shared scrubber (the order matters: private first)."""
    return scrub_text(strip_private(text)).strip()


def _cap(turn: Turn) -> Turn:
    text = clean(turn.text)
    if turn.role == "assistant" and len(text) > ASSISTANT_CHARS:
        text = text[:ASSISTANT_CHARS].rstrip() + CUT.rstrip()
    elif turn.role == "developer" and len(text) > DEVELOPER_CHARS:
        half = DEVELOPER_CHARS // 2
        text = text[:half].rstrip() + CUT + text[-half:].lstrip()
    return Turn(turn.role, text, turn.offset, turn.end, turn.timestamp)


def prepare(turns: Sequence[Turn]) -> list[Turn]:
    return [t for t in (_cap(t) for t in turns) if t.text]


def _carry(turns: list[Turn]) -> str:
    kept: list[Turn] = []
    used = 0
    for turn in reversed(turns):
        if len(turn.text) > CARRY_TURN_CHARS:
            turn = Turn(turn.role, turn.text[:CARRY_TURN_CHARS].rstrip() + " […]", turn.offset, turn.end)
        cost = estimate(turn.text) + 4
        if used + cost > CARRY_TOKENS:
            break
        kept.insert(0, turn)
        used += cost
    return render(kept)


def _head_tail(text: str) -> str:
    head, tail = text[: HEAD_TOKENS * 4], text[-TAIL_TOKENS * 4:]
    # Cut at a turn boundary when one is near, so no turn starts mid-sentence without its speaker.
    h = head.rfind("\n\n")
    head = head[:h] if h > len(head) // 2 else head
    t = tail.find("\n\n")
    tail = tail[t + 2:] if 0 <= t < len(tail) // 2 else tail
    return head + "\n\n[… transcript truncated …]\n\n" + tail


def _chunks(turns: list[Turn]) -> list[str]:
    chunks: list[list[Turn]] = [[]]
    used = 0
    for turn in turns:
        cost = estimate(turn.text) + 4
        if chunks[-1] and used + cost > CHUNK_TOKENS:
            chunks.append([])
            used = 0
        chunks[-1].append(turn)
        used += cost
    return [render(c) for c in chunks if c]


def plan(new: Sequence[Turn], earlier: Sequence[Turn] = ()) -> Plan:
    """Decide what to send for `new` turns, with a short carry-over from `earlier` ones."""
    fresh = prepare(new)
    carry_turns = prepare(earlier)
    carry = _carry(carry_turns)
    evidence = "\n\n".join(t.text for t in [*carry_turns, *fresh] if t.role == "developer")
    # Nothing the developer said in the new part means nothing can be extracted from it.
    if not any(t.role == "developer" for t in fresh):
        return Plan("empty", (), carry, evidence, 0)
    text = render(fresh)
    tokens = estimate(text)
    if tokens <= WHOLE_MAX:
        return Plan("whole", (text,), carry, evidence, tokens)
    if tokens <= HEAD_TAIL_MAX:
        return Plan("head_tail", (_head_tail(text),), carry, evidence, tokens)
    return Plan("map_reduce", tuple(_chunks(fresh)), carry, evidence, tokens)
