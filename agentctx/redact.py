"""The core's name for the one secret rule set: `agentctx.stash.redact` (stdlib-only, shared with the stash library)."""

from __future__ import annotations

from .stash.redact import MARKER_PREFIX, default_redactor, is_sensitive_key, scrub_text, scrub_value

__all__ = ["MARKER_PREFIX", "default_redactor", "is_sensitive_key", "scrub_text", "scrub_value"]
