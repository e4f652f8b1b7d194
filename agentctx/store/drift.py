"""Drift queries: the records a CLAUDE.md should reflect, recently superseded ones, and the derived drift score."""

from __future__ import annotations

import sqlite3
from typing import Mapping, Sequence

from ..base.models import Record
from . import COLUMNS, to_record
from .db import atomic

# What CLAUDE.md is for: rules an agent must keep following. Inferred records are hypotheses (SPEC §3.3).
DRIFT_TYPES = ("decision", "convention")


def candidates(conn: sqlite3.Connection, project_id: str, *, types: Sequence[str] = DRIFT_TYPES,
               limit: int = 500) -> list[Record]:
    """Current explicit, reinforced or team records of the project's own namespace, oldest first; not the records
    read from the repository's rule files (SPEC §4.12): those files already say them, CLAUDE.md need not."""
    marks = ",".join("?" * len(types))
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND superseded_at IS NULL AND type IN ({marks}) "
        f"AND confidence IN ('explicit', 'reinforced', 'team') AND source != 'rule_file' ORDER BY recorded_at, id LIMIT ?",
        (project_id, *types, limit),
    )
    return [to_record(r) for r in rows]


def superseded(conn: sqlite3.Connection, project_id: str, *, types: Sequence[str] = DRIFT_TYPES,
               limit: int = 50) -> list[Record]:
    """The most recently superseded records of the project's own namespace, newest first."""
    marks = ",".join("?" * len(types))
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM records WHERE project_id = ? AND superseded_at IS NOT NULL AND type IN ({marks}) "
        f"ORDER BY superseded_at DESC, id DESC LIMIT ?",
        (project_id, *types, limit),
    )
    return [to_record(r) for r in rows]


def set_scores(conn: sqlite3.Connection, project_id: str, scores: Mapping[str, float]) -> None:
    """Write claudemd_drift_score (derived, 0 = reflected, 1 = absent) for the project; others reset to 0."""
    with atomic(conn):
        conn.execute("UPDATE records SET claudemd_drift_score = 0.0 WHERE project_id = ? AND claudemd_drift_score != 0",
                     (project_id,))
        conn.executemany("UPDATE records SET claudemd_drift_score = ? WHERE id = ? AND project_id = ?",
                         [(round(s, 4), rid, project_id) for rid, s in scores.items() if s])


def predecessor(conn: sqlite3.Connection, record_id: str) -> Record | None:
    """The record `record_id` directly superseded, if any."""
    row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE superseded_by = ? LIMIT 1", (record_id,)).fetchone()
    return to_record(row) if row else None
