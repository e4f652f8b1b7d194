"""Records tied to a file (`ctx_related`), ranked by how they are tied to it, each tie a signal with its weight."""

from __future__ import annotations

import sqlite3
from collections import namedtuple
from math import sqrt
from pathlib import Path
from typing import Callable

from ..base.models import Record
from ..store import graph

DEFAULT_LIMIT = 5
# A tie worth listing scores at least MIN_SCORE and at least CUT of the best one: a record that was merely on screen
# in every session that edited anything is linked to every file, and is not about this one.
MIN_SCORE = 0.1
CUT = 0.25

# Linked to the file by capture (written in, or shown in, a session that edited it): LINKED divided by the square
# root of how many files the record is linked to, so a record of the one session that edited this file outranks one
# the digest showed in every session.
LINKED = 0.6
# An edge between the record and the file node (applies_to, observed_in, scoped_to: a claim about the file).
EDGE = 1.0
# The record's title or body names the file: by its path in the project, or by its name alone.
NAMED_PATH = 1.0
NAMED_NAME = 0.5
# The record's anchors govern the file (`path:` globs, SPEC §3.1): what it says it is about. A literal path counts in
# full, a glob by how narrow it is (a glob that governs a whole tree says less about one file in it).
ANCHORED = 1.0
ANCHORED_GLOB = 0.6
# A record with an edge to a tied record (derives_from, a near duplicate) gets this share of that record's score.
NEIGHBOUR = 0.25

# Why a record is tied: signal -> its value; the score is their sum (plus NEIGHBOUR's share).
Tie = namedtuple("Tie", "record score ties")

# A signal: (conn, project_id, the file as an absolute path, its path in the project or None, its node id or None)
# -> {record id: value}.
Signal = Callable[[sqlite3.Connection, str, Path, "str | None", "str | None"], "dict[str, float]"]


def _linked(conn: sqlite3.Connection, project_id: str, path: Path, rel: str | None, node: str | None) -> dict[str, float]:
    if node is None:
        return {}
    return {rid: LINKED / sqrt(max(files, 1))
            for rid, files in graph.file_links(conn, project_id, node, superseded=True).items()}


def _edges(conn: sqlite3.Connection, project_id: str, path: Path, rel: str | None, node: str | None) -> dict[str, float]:
    if node is None:
        return {}
    return {(b if a == node else a): EDGE for a, b, _, _ in graph.edges_of(conn, [node]) if a != b}


def _named(conn: sqlite3.Connection, project_id: str, path: Path, rel: str | None, node: str | None) -> dict[str, float]:
    name = path.name
    if len(name) < 3:
        return {}
    out: dict[str, float] = {}
    for record in graph.naming(conn, project_id, [name], superseded=True):
        text = f"{record.title}\n{record.body}"
        if rel and _names(text, rel):
            out[record.id] = NAMED_PATH
        elif str(path) in text:
            out[record.id] = NAMED_PATH
        elif _names(text, name) and not _names_another(text, name, rel):
            out[record.id] = NAMED_NAME
    return out


def _anchored(conn: sqlite3.Connection, project_id: str, path: Path, rel: str | None, node: str | None
              ) -> dict[str, float]:
    if rel is None:
        return {}
    from ..base.anchors import path_matches, split
    from ..store import records

    out: dict[str, float] = {}
    for record in records.anchored(conn, project_id):
        for anchor in record.anchors:
            kind, glob = split(anchor)
            if kind == "path" and path_matches(glob, rel):
                value = ANCHORED_GLOB if any(c in glob for c in "*?") else ANCHORED
                out[record.id] = max(out.get(record.id, 0.0), value)
    return out


SIGNALS: dict[str, Signal] = {"linked": _linked, "edge": _edges, "named": _named, "anchored": _anchored}

_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


def _names(text: str, needle: str) -> bool:
    """Whether `text` holds `needle` as a whole path or file name (not inside a longer one: `make.py` in `_make.py`)."""
    start = text.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if before not in _PATH_CHARS and before != "/" and (after not in _PATH_CHARS or after == "."):
            return True
        start = text.find(needle, start + 1)
    return False


def _names_another(text: str, name: str, rel: str | None) -> bool:
    """The file name appears only as the last part of another directory's path (`tests/__init__.py` for
    `src/attr/__init__.py`)."""
    start = text.find(name)
    while start >= 0:
        if start and text[start - 1] == "/":
            head = text[:start].rsplit(None, 1)[-1] if text[:start].strip() else ""
            if rel is None or not (rel.endswith(head + name) or (head + name).endswith(rel)):
                return True
        start = text.find(name, start + 1)
    return False


def related(conn: sqlite3.Connection, project_id: str, path: Path, root: Path, node: str | None, *,
            limit: int = DEFAULT_LIMIT) -> list[Tie]:
    """The records tied to the file at `path`, best first, at most `limit`; each with its score and its ties."""
    try:
        rel: str | None = path.relative_to(root).as_posix()
    except ValueError:
        rel = None
    values: dict[str, dict[str, float]] = {}
    for name, signal in SIGNALS.items():
        for rid, value in signal(conn, project_id, path, rel, node).items():
            values.setdefault(rid, {})[name] = value
    # A superseded version's ties are its head's (SPEC §3.5, like its questions, aliases and anchors): the fact was
    # tied to this file before it was restated, and the current statement is the one to return.
    for old, head in graph.heads(conn, list(values)).items():
        ties = values.setdefault(head, {})
        for name, value in values.pop(old).items():
            ties[name] = max(ties.get(name, 0.0), value)
    scores = {rid: sum(ties.values()) for rid, ties in values.items()}
    if scores:
        for a, b, _, _ in graph.edges_of(conn, list(scores)):
            for tied, other in ((a, b), (b, a)):
                if tied in scores and other != tied and other != node:
                    lent = NEIGHBOUR * scores[tied]
                    ties = values.setdefault(other, {})
                    ties["neighbour"] = max(ties.get("neighbour", 0.0), lent)
    found = graph.current_records(conn, project_id, values)
    ranked = [Tie(found[rid], round(sum(ties.values()), 3), ties) for rid, ties in values.items() if rid in found]
    if not ranked:
        return []
    best = max(t.score for t in ranked)
    kept = [t for t in ranked if t.score >= max(MIN_SCORE, CUT * best)]
    kept.sort(key=lambda t: (-t.score, _newest_first(t.record), t.record.id))
    return kept[:limit]


def _newest_first(record: Record) -> str:
    # ISO timestamps: invert each character so a plain ascending sort puts the newest first.
    return "".join(chr(0x10FFFF - ord(c)) for c in record.recorded_at)
