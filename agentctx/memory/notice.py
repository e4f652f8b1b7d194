"""The one-line notices the user sees in Claude Code (`systemMessage`), next to the model-facing context.

SessionStart: "agentctx: 14 records for this project · 2 new since your last session · `agentctx why`", from the
counts consolidation stores in the digest (no database on that path). UserPromptSubmit with `notify: full`: the
titles it injected. Config `notify` (off | brief | full) decides; `additionalContext` never changes with it.
"""

import os

from ..base import jsonfast, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

    from ..base.models import SearchHit

RECENT_KEPT = 100  # recorded_at of the newest records kept in the digest: "new since" counts up to this
LINE_CHARS = 200   # a notice is one short line
TITLE_CHARS = 60


def stats(conn: "sqlite3.Connection", project_id: str, total: "int | None" = None) -> "dict[str, object]":
    """What SessionStart's notice needs, stored in the digest by consolidation: the count of the project's current
    records and the recorded_at of the newest of them (newest first)."""
    from ..store import records

    if total is None:
        total = sum(records.counts_by_type(conn, project_id).values())
    recent = [r.recorded_at for r in records.current(conn, project_id, own_only=True, limit=RECENT_KEPT)]
    return {"records": total, "recent": recent, "extraction_off": _extraction_off(),
            "same_repository": _same_repository(conn, project_id)}


def _same_repository(conn: "sqlite3.Connection", project_id: str) -> "str | None":
    """This checkout's records under another project id (its origin URL changed: memory.identity), in a few words;
    only for the same checkout or another of its remotes (a fork elsewhere on disk is said by `status`)."""
    try:
        from ..store import projects
        from .identity import short

        same = [s for s in projects.same_repository(conn, project_id) if s.why in ("checkout", "remote")]
    except Exception:  # a notice never fails the digest (a store older than the table: nothing to say)
        return None
    return short(same[0]) if same else None


def _extraction_off() -> "str | None":
    """Why nothing extracts records from the transcripts (no API key and no Claude Code CLI), or None. Not when
    the user turned it off: that needs no saying."""
    try:
        from ..base import config
        from ..extract.backend import choose

        settings = config.load()
        choice = choose(settings)
    except Exception:  # a notice never fails the digest
        return None
    if choice.on or not settings["llm"] or settings["extraction"] == "off":
        return None
    return choice.reason


def _paused() -> "str | None":
    """Extraction through the Claude Code CLI paused after a failure (not logged in, a usage limit), with its fix;
    said at every SessionStart while it lasts: it is what the user can act on."""
    try:
        from ..extract import quota

        return quota.short()
    except Exception:  # a notice never fails the session
        return None


def _said_once(what: str) -> bool:
    """True the first time `what` is said (remembered in the state directory); False after that."""
    path = os.path.join(paths.state_dir_str(), "said-extraction-off")
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == what:
                return False
    except OSError:
        pass
    try:
        paths.ensure_private_dir_str(os.path.dirname(path))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(what)
    except OSError:
        pass
    return True


def _digest_stats(project_id: str) -> "dict[str, object] | None":
    try:
        with open(paths.digest_file(project_id), encoding="utf-8") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return None
    found = data.get("stats") if isinstance(data, dict) else None
    return found if isinstance(found, dict) else None


def seen_file(project_id: str) -> str:
    """When the user last saw a SessionStart notice for this project: the file's modification time."""
    return os.path.join(paths.state_dir_str(), f"seen-{paths._safe(project_id)}")


def _iso(seconds: float) -> str:
    import time  # built in, and already loaded by agentctx.base.ids

    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}Z"


def _swap_seen(project_id: str) -> "str | None":
    """The previous stamp (ISO, like recorded_at), moved to now. The stamp is the file's mtime: `utime` costs
    microseconds where rewriting a file costs milliseconds on ext4 (a truncate or rename-over flushes the data:
    auto_da_alloc). A lost stamp only means no "new since" figure once."""
    path = seen_file(project_id)
    try:
        previous = _iso(os.stat(path).st_mtime)
        os.utime(path)
        return previous
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        paths.ensure_private_dir_str(os.path.dirname(path))
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
    except OSError:
        pass
    return None


def session_line(project_id: str, *, notify: str, source: str, tokens: int) -> "str | None":
    """The SessionStart notice, or None (notify off; or a compaction, which is not a new session for the user)."""
    if notify == "off" or source == "compact" or not os.path.exists(paths.db_file()):
        return None
    previous = _swap_seen(project_id)
    found = _digest_stats(project_id)
    parts = []
    if found is None or not isinstance(found.get("records"), int):
        parts.append("on for this project" + (f", {tokens} tokens loaded" if tokens else ""))
    else:
        total = found["records"]
        parts.append(f"{total} record{'' if total == 1 else 's'} for this project" if total
                     else "no records for this project yet")
        recent = found.get("recent")
        if previous and isinstance(recent, list):
            new = sum(1 for at in recent if isinstance(at, str) and at > previous)
            more = "+" if new == len(recent) and len(recent) >= RECENT_KEPT else ""
            if new:  # "0 new" is not news
                parts.append(f"{new}{more} new since your last session")
        if notify == "full" and tokens:
            parts.append(f"{tokens} tokens loaded")
        same = found.get("same_repository")
        if isinstance(same, str) and same:
            parts.insert(1, same)  # right after the count: "no records yet" is explained by it
        off = found.get("extraction_off")
        if isinstance(off, str) and _said_once(off):
            parts.append(f"nothing extracted from sessions: {off} (`agentctx doctor`)")
    paused = _paused()
    if paused:
        parts.insert(0, paused)  # first: the notice is clipped at LINE_CHARS, and this is what to act on
    parts.append("`agentctx why`")
    return _clip("agentctx: " + " · ".join(parts))


def prompt_line(hits: "list[SearchHit]", *, notify: str) -> "str | None":
    """With notify full: the titles the prompt hook injected, on one line."""
    if notify != "full" or not hits:
        return None
    titles = [_clip(h.record.title, TITLE_CHARS) for h in hits]
    return _clip(f"agentctx: {len(hits)} record{'' if len(hits) == 1 else 's'} added to context: " + " · ".join(titles))


def off_line(reason: str, *, notify: str, source: str) -> "str | None":
    """SessionStart in a project the user turned off: say so, so nothing is hidden (not for opt-in or excluded
    projects, which the user never turned on)."""
    if notify == "off" or source == "compact" or reason not in ("off", "off-all"):
        return None
    from ..base.control import describe

    return _clip(f"agentctx: {describe(reason)}; nothing is loaded or captured")


def _clip(text: str, limit: int = LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
