"""agentctx.stash: stdlib-only record/replay of every source of non-determinism in an agent run.

Imports nothing from the rest of agentctx and nothing outside the standard library. Names load on first use
(PEP 562): `from agentctx.stash.redact import scrub_text` in a hook must not pay for the whole library.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .anthropic_adapter import wrap_anthropic
    from .blobs import BlobStore
    from .diff import DiffResult, EventChange, EventOnly, diff_recordings
    from .errors import ErrorCode, StashError, is_stash_error
    from .facade import RecordMode, Stash, create_stash, load_stash
    from .forking import fork
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

# public name -> the submodule that defines it
_SOURCES: dict[str, str] = {
    "BlobStore": "blobs",
    "DROP": "model",
    "DeterministicClock": "interceptors",
    "DiffResult": "diff",
    "Divergence": "model",
    "DivergenceKind": "model",
    "DivergenceReport": "model",
    "ErrorCode": "errors",
    "EventChange": "diff",
    "EventOnly": "diff",
    "Outcome": "model",
    "RecordMode": "facade",
    "RecordedEvent": "model",
    "Recorder": "recorder",
    "Recording": "model",
    "RecordingSeal": "seal",
    "RecordingStats": "storage",
    "RedactContext": "model",
    "RedactFn": "model",
    "Replayer": "replayer",
    "SeededRandom": "interceptors",
    "Stash": "facade",
    "StashError": "errors",
    "StashMode": "model",
    "VerifyResult": "seal",
    "create_deterministic_clock": "interceptors",
    "create_recorder": "recorder",
    "create_replayer": "replayer",
    "create_seeded_random": "interceptors",
    "create_stash": "facade",
    "decode_recording": "storage",
    "default_redactor": "redact",
    "diff_recordings": "diff",
    "encode_jsonl": "storage",
    "encode_recording": "storage",
    "fork": "forking",
    "intercept_mcp_client": "interceptors",
    "is_stash_error": "errors",
    "load_stash": "facade",
    "read_recording": "storage",
    "record_mcp_tool": "interceptors",
    "recording_stats": "storage",
    "scrub_text": "redact",
    "scrub_value": "redact",
    "seal_recording": "seal",
    "verify_recording": "seal",
    "wrap": "interceptors",
    "wrap_anthropic": "anthropic_adapter",
    "wrap_sync": "interceptors",
    "write_recording": "storage",
}


def __getattr__(name: str) -> object:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
