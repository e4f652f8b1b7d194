"""The record model: closed sets, limits, and the frozen dataclasses every layer passes around."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

RecordType = Literal["decision", "convention", "preference", "discovery", "bugfix", "handover", "profile"]
Scope = Literal["project", "global"]
Confidence = Literal["explicit", "inferred", "reinforced"]
Source = Literal["llm_extraction", "hook_observation", "mcp_tool", "cli", "import"]
NodeKind = Literal["file", "symbol", "package", "module", "branch"]
RelType = Literal["supersedes", "applies_to", "observed_in", "derives_from", "scoped_to"]

RECORD_TYPES: tuple[str, ...] = get_args(RecordType)
SCOPES: tuple[str, ...] = get_args(Scope)
CONFIDENCES: tuple[str, ...] = get_args(Confidence)
SOURCES: tuple[str, ...] = get_args(Source)
NODE_KINDS: tuple[str, ...] = get_args(NodeKind)
REL_TYPES: tuple[str, ...] = get_args(RelType)

GLOBAL_PROJECT = "_global"
TITLE_MAX = 120
BODY_MAX = 2000


@dataclass(frozen=True)
class NewRecord:
    """What a caller asks to store; validated by the store before anything is written."""

    type: str
    title: str
    body: str
    project_id: str
    scope: str = "project"
    confidence: str = "inferred"
    source: str = "cli"
    session_id: str | None = None
    pinned: bool = False
    valid_from: str | None = None  # defaults to recorded_at


@dataclass(frozen=True)
class Record:
    """A stored record, as read back (SPEC §3.1 columns)."""

    id: str
    project_id: str
    type: str
    title: str
    body: str
    scope: str
    pinned: bool
    confidence: str
    reinforce_count: int
    valid_from: str
    recorded_at: str
    superseded_at: str | None
    superseded_by: str | None
    access_count: int
    last_accessed: str | None
    score: float
    claudemd_drift_score: float
    source: str
    session_id: str | None
    pending_embedding: bool

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchHit:
    """One ranked search result: the record, its final score, and the parts the score came from."""

    record: Record
    score: float
    relevance: float  # query-dependent part, normalised to 0..1 (the relevance floor applies to this)
    degraded: str | None = None

    def to_index(self) -> dict[str, Any]:
        """The compact index form (no body) used by search output and MCP."""
        r = self.record
        return {
            "id": r.id,
            "type": r.type,
            "title": r.title,
            "confidence": r.confidence,
            "score": round(self.score, 3),
            "relevance": round(self.relevance, 3),
            "recorded_at": r.recorded_at,
            "pinned": r.pinned,
            "superseded_by": r.superseded_by,
        }


@dataclass(frozen=True)
class SearchResult:
    """Hits plus the rung of the degradation ladder that produced them (None = full FTS5)."""

    hits: tuple[SearchHit, ...] = ()
    degraded: str | None = None
    terms: tuple[str, ...] = field(default=())
