"""agentctx.stash: stdlib-only record/replay of every source of non-determinism in an agent run.

Imports nothing from the rest of agentctx and nothing outside the standard library.
"""

from __future__ import annotations

from .anthropic_adapter import wrap_anthropic
from .blobs import BlobStore
from .diff import DiffResult, EventChange, EventOnly, diff_recordings
from .errors import ErrorCode, StashError, is_stash_error
from .facade import RecordMode, Stash, create_stash, load_stash
from .fork import fork
from .interceptors import (
    DeterministicClock,
    SeededRandom,
    create_deterministic_clock,
    create_seeded_random,
    intercept_mcp_client,
    record_mcp_tool,
    wrap,
    wrap_sync,
)
from .model import (
    DROP,
    Divergence,
    DivergenceKind,
    DivergenceReport,
    Outcome,
    RecordedEvent,
    Recording,
    RedactContext,
    RedactFn,
    StashMode,
)
from .recorder import Recorder, create_recorder
from .redact import default_redactor, scrub_text, scrub_value
from .replayer import Replayer, create_replayer
from .seal import RecordingSeal, VerifyResult, seal_recording, verify_recording
from .storage import (
    RecordingStats,
    decode_recording,
    encode_jsonl,
    encode_recording,
    read_recording,
    recording_stats,
    write_recording,
)

__all__ = [
    "DROP",
    "BlobStore",
    "DeterministicClock",
    "DiffResult",
    "Divergence",
    "DivergenceKind",
    "DivergenceReport",
    "ErrorCode",
    "EventChange",
    "EventOnly",
    "Outcome",
    "RecordMode",
    "RecordedEvent",
    "Recorder",
    "Recording",
    "RecordingSeal",
    "RecordingStats",
    "RedactContext",
    "RedactFn",
    "Replayer",
    "SeededRandom",
    "Stash",
    "StashError",
    "StashMode",
    "VerifyResult",
    "create_deterministic_clock",
    "create_recorder",
    "create_replayer",
    "create_seeded_random",
    "create_stash",
    "decode_recording",
    "default_redactor",
    "diff_recordings",
    "encode_jsonl",
    "encode_recording",
    "fork",
    "intercept_mcp_client",
    "is_stash_error",
    "load_stash",
    "read_recording",
    "record_mcp_tool",
    "recording_stats",
    "scrub_text",
    "scrub_value",
    "seal_recording",
    "verify_recording",
    "wrap",
    "wrap_anthropic",
    "wrap_sync",
    "write_recording",
]
