"""One fact, one record: consolidation finds near-duplicates among a project's current records (same type, anchors
that overlap, high word overlap, or cosine with [vectors]) and merges each pair by supersession, never two records
that say different things (a negation, other numbers, other values)."""

from __future__ import annotations

import math
import sqlite3
import time
from collections import Counter
from typing import Any, Iterable

from . import overlap
from ..base.models import Record
from ..store import trust

MERGED_TYPES = ("decision", "convention", "preference", "discovery", "bugfix")
RANK = {"explicit": 3, "reinforced": 1, "inferred": 0}  # team records are left to the team file (SPEC §3.8)
BUDGET_S = 10.0
# A word in more than this many records of a type says nothing about which two are duplicates: not a blocking key
# (a record whose rare words are all this common is not compared: generic text is left alone).
COMMON_TERM = 200
PAIRS_PER_RECORD = 16  # the older records sharing most of a record's rare words it is compared with
# With [vectors]: cosine pairs at or above maintain.NEAR_DUPLICATE merge when their words overlap at least this much.
COSINE_WORDS_AT_LEAST = 0.3


def _text(r: Record) -> str:
    return f"{r.title}\n{r.body}"


def _paths(r: Record) -> set[str]:
    return {a[5:] if a.startswith("path:") else a for a in r.anchors if ":" not in a or a.startswith("path:")}


def _anchors_agree(a: Record, b: Record) -> bool:
    pa, pb = _paths(a), _paths(b)
    return not pa or not pb or bool(pa & pb)


def keeper(a: Record, b: Record) -> tuple[Record, Record]:
    """(kept, folded): the pinned one, else the stronger confidence, else the older (what was established first)."""
    ka, kb = (a.pinned, RANK.get(a.confidence, 0)), (b.pinned, RANK.get(b.confidence, 0))
    if ka != kb:
        return (a, b) if ka > kb else (b, a)
    return (a, b) if (a.recorded_at, a.id) <= (b.recorded_at, b.id) else (b, a)


def candidates(rows: list[Record], deadline: float) -> list[tuple[Record, Record, float]]:
    """(kept, folded, similarity) of records of one type that say the same thing (`overlap.same_fact`) with anchors
    that agree; a record is folded once, a kept one may absorb several. Pairs come from a prefix filter: two word
    sets with Jaccard >= 0.5 (the least `same_fact` accepts) share one of the rarest len - ceil(len / 2) + 1 words
    of each, so only those are indexed and the cost grows with the pairs that could match."""
    terms = {r.id: overlap.terms(_text(r)) for r in rows}
    freq: Counter[tuple[str, str]] = Counter((r.type, t) for r in rows for t in terms[r.id])
    prefix = {}
    for r in rows:
        ordered = sorted(terms[r.id], key=lambda t: (freq[(r.type, t)], t))
        prefix[r.id] = ordered[:len(ordered) - math.ceil(len(ordered) * overlap.SUBSET_AT_LEAST) + 1]
    index: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        for t in prefix[r.id]:
            if freq[(r.type, t)] <= COMMON_TERM:
                index.setdefault((r.type, t), []).append(i)
    paths = {r.id: _paths(r) for r in rows}
    used: set[str] = set()
    found = []
    texts = {r.id: _text(r) for r in rows}
    for i in range(len(rows) - 1, -1, -1):  # newest first: a pass cut by its budget has compared the new records
        r = rows[i]
        if time.monotonic() > deadline:
            break
        if r.id in used or not terms[r.id]:
            continue
        size = len(terms[r.id])
        shared = Counter(j for t in prefix[r.id] for j in index.get((r.type, t), ()) if j < i)
        for j, _n in shared.most_common(PAIRS_PER_RECORD):
            o = rows[j]
            if o.id in used or not size / 2 <= len(terms[o.id]) <= size * 2:  # Jaccard >= 0.5 needs close sizes
                continue
            pa, pb = paths[r.id], paths[o.id]
            if pa and pb and not pa & pb:  # anchors that name other files: other facts
                continue
            same, sim, _why = overlap.same_fact(texts[r.id], texts[o.id], terms[r.id], terms[o.id])
            if not same:
                continue
            keep, dup = keeper(r, o)
            used.add(dup.id)  # folded once; the kept record may absorb more copies
            found.append((keep, dup, sim))
            if dup is r:
                break
    return found


def run(conn: sqlite3.Connection, project_id: str, *, cosine_pairs: Iterable[tuple[str, str, float]] = (),
        budget_s: float = BUDGET_S) -> dict[str, Any]:
    """Merge the project's near-duplicates; `cosine_pairs` (newer id, older id, cosine) from the vector step are
    merged too when their words overlap and nothing sets them apart."""
    deadline = time.monotonic() + budget_s
    rows = [r for r in trust.current_of_types(conn, project_id, MERGED_TYPES) if r.confidence in RANK]
    pending = trust.marks_for(conn, [r.id for r in rows])
    rows = [r for r in rows if "review" not in pending.get(r.id, {})]  # the user decides those first
    merged = []
    pairs = candidates(rows, deadline)
    by_id = {r.id: r for r in rows}
    taken = {x.id for p in pairs for x in p[:2]}
    for newer, older, cos in cosine_pairs:
        a, b = by_id.get(newer), by_id.get(older)
        if not a or not b or a.id in taken or b.id in taken or a.type != b.type or not _anchors_agree(a, b):
            continue
        words = overlap.similarity(overlap.terms(_text(a)), overlap.terms(_text(b)))
        if words >= COSINE_WORDS_AT_LEAST and overlap.differ(_text(a), _text(b)) is None:
            pairs.append((a, b, cos))
            taken.update((a.id, b.id))
    for a, b, sim in pairs:
        keep, dup = keeper(a, b)
        if dup.pinned:
            continue
        if trust.merge(conn, keep, dup, f"near-duplicate of {keep.id} (overlap {sim:.2f})"):
            merged.append({"kept": keep.id, "merged": dup.id, "similarity": round(sim, 3)})
    return {"merged": len(merged), "pairs": merged}
