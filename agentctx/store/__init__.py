"""All record SQL, and the database itself: opening it, migrations, why it cannot be used.

May import: `base`, `stash`.

Submodules are imported where used (`from agentctx.store import records`): the hooks load only what they need.
The records table's row shape lives here, so reading records does not load the writing side (validation, errors).

The rooms above keep their SQL here, in modules named after them: `outside`'s in `rulefiles`, `agentmem` and
`drift`; `trust`'s in `trust`; the lifecycle's in `capture`, `sessions` and `review`.
"""

import sqlite3
from collections.abc import Sequence  # loaded by sqlite3 already: free at run time

from ..base.models import Record

COLUMNS = (
    "id, project_id, type, title, body, scope, pinned, confidence, reinforce_count, valid_from, recorded_at, "
    "superseded_at, superseded_by, access_count, last_accessed, score, claudemd_drift_score, source, session_id, "
    "pending_embedding, questions, aliases, anchors, guard"
)
# Columns read per record; a query that selects more puts them after these (the rowid, a count).
N_COLUMNS = 24
# What a project may read: its own namespace plus records that are global in scope (SPEC §3.4).
VISIBLE = "(project_id = ? OR (project_id = '_global' AND scope = 'global'))"
CURRENT = "superseded_at IS NULL"


def to_record(row: "sqlite3.Row | Sequence[object]") -> Record:
    (rid, project_id, type_, title, body, scope, pinned, confidence, reinforce_count, valid_from, recorded_at,
     superseded_at, superseded_by, access_count, last_accessed, score, drift, source, session_id, pending,
     questions, aliases, anchors, guard) = tuple(row)[:N_COLUMNS]
    # Positional, in schema order: keyword construction costs ~10 µs a record, and the prompt hook reads dozens.
    return Record(
        rid, project_id, type_, title, body, scope or "project", bool(pinned), confidence or "inferred",
        reinforce_count or 0, valid_from, recorded_at, superseded_at, superseded_by, access_count or 0,
        last_accessed, 1.0 if score is None else float(score), float(drift or 0.0), source, session_id, bool(pending),
        tuple(questions.split("\n")) if questions else (), tuple(aliases.split("\n")) if aliases else (),
        tuple(anchors.split("\n")) if anchors else (), guard or "",
    )


def lines(items: "Sequence[str]") -> str:
    """The stored form of `questions`, `aliases` and `anchors`: one per line (readable by any SQLite client; indexed as text)."""
    return "\n".join(items)
