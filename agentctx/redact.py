"""The core's name for the one secret rule set: `agentctx.stash.redact` (stdlib-only, shared with the stash library)."""

from __future__ import annotations

from .stash.redact import MARKER_PREFIX, default_redactor, is_sensitive_key, scrub_text, scrub_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

__all__ = ["MARKER_PREFIX", "default_redactor", "is_sensitive_key", "rescrub_store", "rules_id", "scrub_text",
           "scrub_value"]


def rules_id() -> str:
    """A fingerprint of the rules (the source of the scrubber and of its formats): it changes whenever a rule does."""
    import hashlib
    import inspect

    from .stash import redact as rules
    from .stash import secret_formats

    try:
        source = inspect.getsource(rules) + inspect.getsource(secret_formats)
    except (OSError, TypeError):  # no source (a zipped or frozen install): the compiled pattern still says a lot
        source = rules._PATTERN.pattern
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def rescrub_store(conn: "sqlite3.Connection") -> int | None:
    """Once per rule change: scrub every stored record again (records written before a rule existed keep no
    secret it now catches). Returns how many records changed, or None when the rules have not changed."""
    import os

    from . import db, paths
    from .store import redaction

    stamp = os.path.join(paths.state_dir_str(), "redaction-rules")
    current = rules_id()
    try:
        with open(stamp, encoding="utf-8") as fh:
            if fh.read().strip() == current:
                return None
    except OSError:
        pass
    changed = redaction.rescrub(conn, scrub_text, fts=db.has_fts(conn))
    from .userfiles import atomic_write

    paths.ensure_private_dir(paths.state_dir())
    atomic_write(stamp, current + "\n", mode=0o600)
    return changed
