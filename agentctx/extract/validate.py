"""The model's answer checked entry by entry: schema, limits, grounding in the developer's words, record mapping."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from ..base.models import BODY_MAX, TITLE_MAX
from ..store.records import asked_within_limits

Kind = Literal["decision", "preference", "convention", "gotcha"]

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_EVIDENCE_WORDS = 2
EXPLICIT_MIN_WORDS = 3  # a direct statement is a clause, not a word or two


@dataclass(frozen=True)
class Entry:
    """One validated entry, already shaped as a record."""

    kind: Kind
    type: str
    title: str
    body: str
    confidence: str
    scope: str
    supersedes: str | None
    evidence: str
    key: str  # the fact's text without decoration, for near-duplicate checks
    questions: tuple[str, ...] = ()  # how the record will be asked (trimmed to the store's limits)
    aliases: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()  # what it governs: only those the session's tool calls ground


@dataclass(frozen=True)
class Extraction:
    """What one answer yields: entries to ingest, the handover, the flush flag, and why entries were dropped."""

    entries: tuple[Entry, ...] = ()
    handover_title: str | None = None
    handover_body: str | None = None
    flush: bool = False
    dropped: tuple[tuple[str, str], ...] = ()  # (kind, reason)


def decode(text: str) -> dict[str, Any] | None:
    """The JSON object in a text answer (code fences tolerated); None for prose, arrays or broken JSON."""
    match = _FENCE.match(text)
    if match:
        text = match.group(1)
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def grounded(evidence: str, corpus_words: str) -> bool:
    """Is `evidence` the developer's words? Compared as lowercase word sequences, so quotes, punctuation and
    spacing may differ but the words may not; an ellipsis splits it into fragments that must each be found."""
    fragments = [f for f in re.split(r"\.\.\.|…", evidence) if words(f)]
    if not fragments or sum(len(words(f)) for f in fragments) < MIN_EVIDENCE_WORDS:
        return False
    return all(f" {' '.join(words(f))} " in corpus_words for f in fragments)


def corpus(text: str) -> str:
    """The evidence corpus in the form `grounded` searches."""
    return f" {' '.join(words(text))} "


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_MAX else flat[: TITLE_MAX - 1].rstrip() + "…"


def _str(entry: dict[str, Any], name: str, required: bool = True) -> str | None:
    value = entry.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        return None
    return value.strip()


def _choice(entry: dict[str, Any], name: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
    value = entry.get(name, default)
    return value if value in allowed else None


def _supersedes(entry: dict[str, Any]) -> str | None:
    value = entry.get("supersedes")
    return value.strip() if isinstance(value, str) and value.strip() else None


def _shape(kind: Kind, e: dict[str, Any]) -> tuple[str, str, str, str, str] | None:
    """(type, main text, body, scope, confidence) for a well-formed entry, else None."""
    conf = _choice(e, "confidence", ("explicit", "inferred"), "inferred" if kind == "gotcha" else None)
    if conf is None:
        return None
    if kind == "decision":
        what, why = _str(e, "what"), _str(e, "rationale", required=False)
        if what is None or why is None:
            return None
        return "decision", what, what + (f"\n\nRationale: {why}" if why else ""), "project", conf
    if kind == "preference":
        rule, cat = _str(e, "rule"), _choice(e, "category", ("style", "tooling", "process", "naming"))
        scope = _choice(e, "scope", ("project", "global"), "project")
        if rule is None or cat is None or scope is None:
            return None
        return "preference", rule, f"{rule}\n\nCategory: {cat}", scope, conf
    if kind == "convention":
        text, where = _str(e, "convention"), _choice(e, "scope", ("file", "module", "project"))
        if text is None or where is None:
            return None
        return "convention", text, f"{text}\n\nApplies to: {where}", "project", conf
    pattern, why = _str(e, "pattern"), _str(e, "why_it_matters")
    if pattern is None or why is None:
        return None
    # A gotcha is an observation, never an established fact: always inferred (SPEC §3.2 discovery).
    return "discovery", pattern, f"{pattern}\n\nWhy it matters: {why}", "project", "inferred"


def grounded_anchors(items: Any, actions: "tuple[str, ...] | list[str]") -> tuple[str, ...]:
    """The model's anchors that the session's tool calls ground: a path glob matching a file it edited, a command
    prefix matching a command it ran. Anything else (invented, refused by the store, symbols, tools) is dropped."""
    from ..base import anchors

    if not isinstance(items, list) or not actions:
        return ()
    paths = [a[5:] for a in actions if a.startswith("path:")]
    commands = [a[8:] for a in actions if a.startswith("command:")]
    out: dict[str, None] = {}
    for item in items[: anchors.ANCHORS_MAX * 2]:
        try:
            stored = anchors.normalize(item) if isinstance(item, str) else ""
        except anchors.AnchorError:
            continue
        kind, value = anchors.split(stored)
        if (kind == "path" and any(anchors.path_matches(value, p) for p in paths)) or (
                kind == "command" and any(anchors.command_matches(value, c) for c in commands)):
            out.setdefault(stored, None)
    return tuple(out)[: anchors.ANCHORS_MAX]


def _entry(kind: Kind, raw: Any, corpus_words: str, actions: "tuple[str, ...] | list[str]" = ()) -> Entry | str:
    """The entry, or the reason it is dropped."""
    if not isinstance(raw, dict):
        return "schema"
    shaped = _shape(kind, raw)
    if shaped is None:
        return "schema"
    type_, main, body, scope, conf = shaped
    if len(body) > BODY_MAX:
        return "body_too_long"
    evidence = raw.get("evidence")
    if not isinstance(evidence, str) or not grounded(evidence, corpus_words):
        return "ungrounded"
    if conf == "explicit" and len(words(evidence)) < EXPLICIT_MIN_WORDS:
        conf = "inferred"
    return Entry(kind, type_, _title(main), body, conf, scope, _supersedes(raw), evidence.strip(),
                 " ".join(words(main)), asked_within_limits(raw.get("questions"), "questions"),
                 asked_within_limits(raw.get("aliases"), "aliases"), grounded_anchors(raw.get("anchors"), actions))


def _handover(work: Any) -> tuple[str, str] | None:
    if not isinstance(work, dict):
        return None
    task = work.get("current_task") if isinstance(work.get("current_task"), str) else ""
    sections = [("Current task", [task.strip()] if task.strip() else [])]
    for name, label in (("blockers", "Blockers"), ("next_steps", "Next steps"), ("open_questions", "Open questions")):
        items = work.get(name) if isinstance(work.get(name), list) else []
        sections.append((label, [i.strip() for i in items if isinstance(i, str) and i.strip()]))
    if not any(items for _, items in sections):
        return None  # an all-empty active_work is no handover
    body = "\n\n".join(f"{label}:\n" + "\n".join(f"- {i}" for i in items) for label, items in sections if items)
    if len(body) > BODY_MAX:
        body = body[: BODY_MAX - 1].rstrip() + "…"
    return _title(f"Handover: {task.strip() or 'session state'}"), body


_KINDS: tuple[tuple[str, Kind], ...] = (("decisions", "decision"), ("preferences", "preference"),
                                        ("conventions", "convention"), ("gotchas", "gotcha"))


def problem(data: dict[str, Any]) -> str | None:
    """What makes an answer as a whole unusable (None when it is usable): none of the schema's fields, or a list
    field that is not a list. Entries are checked one by one by `check`; this is the answer's own shape."""
    fields = [field for field, _ in _KINDS] + ["active_work", "flush_ok"]
    if not any(field in data for field in fields):
        return "the answer has none of the schema's fields"
    wrong = [field for field, _ in _KINDS if field in data and data[field] is not None and not isinstance(data[field], list)]
    return f"not a list: {', '.join(wrong)}" if wrong else None


def check(data: dict[str, Any], evidence_text: str, actions: "tuple[str, ...] | list[str]" = ()) -> Extraction:
    """Validate a decoded answer against the schema and the developer's words in `evidence_text` (and its anchors
    against what the session's tool calls touched, `actions`)."""
    if data.get("flush_ok") is True:
        return Extraction(flush=True)
    corpus_words = corpus(evidence_text)
    entries: list[Entry] = []
    dropped: list[tuple[str, str]] = []
    for field, kind in _KINDS:
        items = data.get(field)
        if items is None:
            continue
        if not isinstance(items, list):
            dropped.append((kind, "schema"))
            continue
        for raw in items:
            result = _entry(kind, raw, corpus_words, actions)
            if isinstance(result, str):
                dropped.append((kind, result))
            else:
                entries.append(result)
    handover = _handover(data.get("active_work"))
    return Extraction(tuple(entries), handover[0] if handover else None, handover[1] if handover else None,
                      False, tuple(dropped))
