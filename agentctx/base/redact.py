"""The core's name for the one secret rule set: `agentctx.stash.redact` (stdlib-only, shared with the stash library)."""

from __future__ import annotations

from ..stash.redact import MARKER_PREFIX, default_redactor, is_sensitive_key, scrub_text, scrub_value

__all__ = ["MARKER_PREFIX", "default_redactor", "is_sensitive_key", "rules_id", "scrub_text", "scrub_value"]


def rules_id() -> str:
    """A fingerprint of the rules (the source of the scrubber and of its formats): it changes whenever a rule does."""
    import hashlib
    import inspect

    from ..stash import redact as rules
    from ..stash import secret_formats

    try:
        source = inspect.getsource(rules) + inspect.getsource(secret_formats)
    except (OSError, TypeError):  # no source (a zipped or frozen install): the compiled pattern still says a lot
        source = rules._PATTERN.pattern
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
