"""History: what the store held as current at a moment (`as_of`, transaction time), and a record's whole chain."""

from __future__ import annotations

import re
import sqlite3
import subprocess
from typing import Any, Callable

from ..base.errors import UsageError
from ..base.ids import parse_iso, to_iso
from ..base.models import Record, SearchResult, record_type
from ..store import records
from ..store import team as sync

DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
GIT_TIMEOUT_S = 10
AS_OF_POOL = 200  # candidates searched with history before the as_of filter keeps `limit` of them


def parse_as_of(value: str, root: str | None = None) -> str:
    """A store timestamp (ISO 8601 UTC, ms, Z) for a date (its end: everything recorded that day counts), an ISO
    8601 timestamp (naive = UTC), or a git ref of the repository at `root` (its commit's committer date)."""
    text = (value or "").strip()
    if not text:
        raise UsageError("invalid_as_of", value=value, detail="")
    if DATE_ONLY.match(text):
        try:
            parse_iso(text)
        except ValueError:
            raise UsageError("invalid_as_of", value=value, detail=" (no such date)") from None
        return f"{text}T23:59:59.999Z"
    try:
        return to_iso(parse_iso(text))
    except ValueError:
        pass
    return to_iso(parse_iso(git_commit_date(text, root)))


def git_commit_date(ref: str, root: str | None) -> str:
    if ref.startswith("-") or not root:
        raise UsageError("invalid_as_of", value=ref, detail="")
    try:
        done = subprocess.run(["git", "-C", root, "show", "-s", "--format=%cI", f"{ref}^{{commit}}", "--"],
                              capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError("invalid_as_of", value=ref, detail=f" (git: {exc})") from None
    out = done.stdout.strip().splitlines()
    if done.returncode != 0 or not out:
        raise UsageError("invalid_as_of", value=ref, detail="")
    return out[-1]


def current_at(record: Record, as_of: str) -> bool:
    """Transaction time: recorded at or before `as_of` and not yet superseded (or retired) at it."""
    return record.recorded_at <= as_of and (record.superseded_at is None or record.superseded_at > as_of)


def search_as_of(search: Callable[..., SearchResult], conn: sqlite3.Connection, query: str, project_id: str,
                 as_of: str, *, limit: int = 10, **kwargs: Any) -> SearchResult:
    """`search` (keyword or hybrid) over history, keeping the records that were current at `as_of`, ranked with
    recency measured from `as_of`. A filter on the results: the ranking code does not know about time travel."""
    result = search(conn, query, project_id, limit=max(limit, AS_OF_POOL), history=True,
                    now=parse_iso(as_of), **kwargs)
    hits = tuple(h for h in result.hits if current_at(h.record, as_of))[:limit]
    return result._replace(hits=hits)


class Step(record_type("Step", "record rationale state")):
    """One version in a chain: the record, why it replaced its predecessor (None for the first), and its state
    (`current`, `superseded`, or `retired`: ended with no successor)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        r = self.record
        return {"id": r.id, "type": r.type, "title": r.title, "body": r.body, "confidence": r.confidence,
                "source": r.source, "valid_from": r.valid_from, "recorded_at": r.recorded_at,
                "superseded_at": r.superseded_at, "superseded_by": r.superseded_by, "state": self.state,
                "rationale": self.rationale}


def _body_rationale(body: str) -> str | None:
    # `supersede` appends "\n\nRationale: <why>" to the new body (SPEC §3.5).
    head, sep, tail = body.rpartition("\n\nRationale: ")
    return tail.strip() or None if sep else None


def chain(conn: sqlite3.Connection, record_id: str, project_id: str) -> list[Step]:
    """The whole supersession chain through `record_id`, oldest first, with the rationale of each step."""
    versions = records.history(conn, record_id, project_id)
    notes = sync.rationales(conn, [r.id for r in versions])
    steps = []
    for i, r in enumerate(versions):
        rationale = None
        if i > 0:
            # A body that ends with its predecessor's rationale (a teammate's edit of the team file keeps the text
            # under it) states no reason of its own: that one was the previous step's.
            own = _body_rationale(r.body)
            if own is not None and own == _body_rationale(versions[i - 1].body):
                own = None
            rationale = notes.get(r.id) or own or f"superseded {versions[i - 1].id} ({r.source})"
        state = "current" if r.is_current else ("superseded" if r.superseded_by else "retired")
        steps.append(Step(r, rationale, state))
    return steps
