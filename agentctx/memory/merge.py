"""One fact, one record: consolidation finds near-duplicates among a project's current records (same type, anchors
that overlap, high word overlap, or cosine with [vectors]) and merges each pair by supersession, never two records
that say different things (a negation, other numbers, other values)."""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Iterable

from ..base import overlap
from ..base.models import Record
from ..store import trust

MERGED_TYPES = ("decision", "convention", "preference", "discovery", "bugfix")
RANK = {"explicit": 3, "reinforced": 1, "inferred": 0}  # team records are left to the team file (SPEC §3.8)
# A term in more than this many records of a type says nothing about which two are duplicates: not a blocking key.
COMMON_TERM = 200
BUDGET_S = 10.0
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
    that agree; a record is folded once, a kept one may absorb several. Blocked on shared uncommon words, so the
    cost grows with the pairs that could match, not with the square of the store."""
    terms = {r.id: overlap.terms(_text(r)) for r in rows}
    index: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        for t in terms[r.id]:
            index.setdefault((r.type, t), []).append(i)
    used: set[str] = set()
    found = []
    for i, r in enumerate(rows):
        if time.monotonic() > deadline:
            break
        if r.id in used or not terms[r.id]:
            continue
        shared: dict[int, int] = {}
        for t in terms[r.id]:
            posting = index[(r.type, t)]
            if len(posting) > COMMON_TERM:
                continue
            for j in posting:
                if j > i:
                    shared[j] = shared.get(j, 0) + 1
        for j, n in sorted(shared.items(), key=lambda kv: -kv[1]):
            o = rows[j]
            if o.id in used or (n < 2 and min(len(terms[r.id]), len(terms[o.id])) > 2):
                continue
            if not _anchors_agree(r, o):
                continue
            same, sim, _why = overlap.same_fact(_text(r), _text(o))
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
