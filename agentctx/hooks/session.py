"""SessionStart: emit the pre-computed digest (never computed here), else the project profile, under 1,500 tokens."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import Payload

PROFILE_FALLBACK_BUDGET = 200
SNAPSHOT_BUDGET = 550  # a snapshot body is <= 2,000 characters (~500 tokens) plus its header


def session_start(payload: "Payload") -> dict[str, object] | None:
    """The hot path opens no database: the digest file, the root cache and a pending ledger line are enough."""
    from ..memory import digest
    from ..base.roots import cached_project_id

    project_id = cached_project_id(payload.cwd)
    if project_id is None:
        from ..base.project import detect

        project_id = detect(payload.cwd).id
    from ..base import control
    from ..memory import notice

    off, notify = control.check(project_id, payload.cwd)  # off: nothing loaded, nothing recorded (SPEC §4.8)
    if off is not None:
        line = notice.off_line(off, notify=notify, source=payload.source)
        return {"systemMessage": line} if line else None
    try:
        _team_check(payload.cwd, project_id)
    except Exception as exc:  # the team file is a side errand: it must never cost the digest
        from . import log

        log("SessionStart", f"team file check: {type(exc).__name__}: {exc}")
    try:
        _rules_check(payload.cwd, project_id)
    except Exception as exc:  # as the team file: a side errand
        from . import log

        log("SessionStart", f"rule files check: {type(exc).__name__}: {exc}")
    plugin = bool(os.environ.get("CLAUDE_PLUGIN_ROOT") and os.environ.get("AGENTCTX_PLUGIN_ROOT"))
    setting_up = plugin and _set_up(payload.cwd, project_id)
    if payload.source in ("compact", "clear") and payload.session_id:
        _forget_injected(payload.session_id)
    # The digest as this agent gets it: without what it loads itself (its memory, its rule files, §3.10, §4.12).
    view = digest.for_agent(digest.read(project_id), payload.agent)
    text = _after_compaction(view, payload.session_id) if payload.source == "compact" else ""
    ids: list[str] = list(view["ids"])  # type: ignore[call-overload]
    if not text:  # else the digest's sections follow the snapshot: its records are in front of the model again
        text = str(view["text"])
    if not text:
        text, ids = _profile_fallback(project_id)
    if text and plugin:
        text = _plugin_tool_names(text, payload.cwd)
    if text and digest.estimate(text) > digest.SESSION_START_BUDGET:  # a hand-edited or foreign digest file
        from ..base import tokens

        text = tokens.truncate(text, tokens.SESSION_START_BUDGET)
    if ids and payload.session_id:
        text, ids = _dedup_carried(payload, text, ids, view)
    if payload.session_id and payload.source != "resume":
        _leave_later(payload.session_id, view.get("later"))
    from . import record_pending

    record_pending({"event": "SessionStart", "session_id": payload.session_id, "project_id": project_id,
                    "tokens": digest.estimate(text) if text else 0, "record_ids": ids, "agent": payload.agent})
    _track(payload, project_id)
    output: dict[str, object] = {}
    line = SETTING_UP if setting_up and notify != "off" else notice.session_line(
        project_id, notify=notify, source=payload.source, tokens=digest.estimate(text) if text else 0)
    if line:
        output["systemMessage"] = line  # shown to the user; the model-facing context below is unchanged
    if text:
        output["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": text}
    return output or None


SETTING_UP = ("agentctx: setting up this project (the store in ~/.agentctx, the project profile, a digest for the next "
              "session) · `agentctx doctor`")
SETUP_RETRY_S = 120.0


def _set_up(cwd: str, project_id: str) -> bool:
    """The plugin has no `agentctx init` step: for a project with no digest yet (and on first use, no store), start
    what `init` does, detached: store and config, Claude Code's CLI for extraction, the profile, the first digest.
    Registers nothing (it runs from the plugin). At most once in SETUP_RETRY_S per project; True when started."""
    import time

    from ..base import paths

    if os.path.exists(paths.digest_file(project_id)):
        return False
    stamp = paths.setup_stamp_file(project_id)
    try:
        if time.time() - os.stat(stamp).st_mtime < SETUP_RETRY_S:
            return False  # started moments ago (parallel sessions): it is still running
    except OSError:
        pass
    try:
        paths.ensure_private_dir_str(os.path.dirname(stamp))
        os.close(os.open(stamp, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))  # private, as all
        os.utime(stamp)  # its age is the retry clock
    except OSError:
        return False
    from ..base.spawn import agentctx_argv, detached

    return detached(agentctx_argv("init"), cwd=cwd) is not None


def _plugin_tool_names(text: str, cwd: str) -> str:
    """The digest names our MCP tools as a server registered as `agentctx` offers them (mcp__agentctx__ctx_search);
    Claude Code offers the plugin's server under another prefix (claude/aside.py), unless it stands aside for a
    server `agentctx init` registered."""
    from ..claude import aside

    if aside.USER_TOOL_PREFIX not in text or aside.mcp_registered(cwd) is not None:
        return text
    return text.replace(aside.USER_TOOL_PREFIX, aside.PLUGIN_TOOL_PREFIX)


RESUMED_HEADER = "New in this project's memory since this session started (agentctx):"


def _dedup_carried(payload: "Payload", text: str, ids: "list[str]",
                   data: "dict[str, object] | None" = None) -> "tuple[str, list[str]]":
    """Per source: `startup` and `clear` (an empty conversation) and `compact` (a summary that dropped it) get the
    whole digest; `resume` (`--resume`, `--continue`: the conversation comes back whole, the digest its session
    started with in it) gets only the lines of records the conversation has not had, never the handover this very
    session wrote at its end, and nothing when there are none. The ids each SessionStart of a session put in front
    of the model are kept beside its dedup file; compaction and /clear, which drop them, start it over."""
    from ..base import paths, safeio

    shown = paths.dedup_file(payload.session_id) + ".digest"  # in the shared temp dir: no symlinks, capped
    if payload.source in ("compact", "clear"):
        try:
            os.unlink(shown)
        except OSError:
            pass
    seen = safeio.read_ids(shown, 256 * 1024)
    fresh = [i for i in ids if i not in seen]
    if payload.source == "resume" and seen:
        lines = data.get("lines") if isinstance(data, dict) else None
        if not isinstance(lines, dict):  # a digest written before it said which lines are whose: all or nothing
            return ("", []) if not fresh else (text, ids)
        own_handover = data.get("handoverSession") == payload.session_id  # type: ignore[union-attr]
        fresh = [i for i in fresh if isinstance(lines.get(i), list) and lines[i]
                 and not (own_handover and str(lines[i][0]).startswith("Last session handover"))]
        if not fresh:
            return "", []
        text = "\n".join([RESUMED_HEADER, *(str(ln) for i in fresh for ln in lines[i])])
        ids = fresh
    if fresh:
        safeio.append_ids(shown, fresh)  # a failure only costs a second copy of the digest on a later resume
    return text, ids


def _forget_injected(session_id: str) -> None:
    """Compaction replaces the conversation with a summary, and /clear empties it: what the prompt hook injected
    before is no longer in front of the model, so its per-session dedup starts over (SPEC §4.4)."""
    from ..base import paths

    for seen in (paths.dedup_file(session_id), paths.actions_file(session_id)):  # the pre-action hook's too (§4.11)
        try:
            os.unlink(seen)
        except OSError:
            pass  # nothing injected yet in this session


def later_file(session_id: str) -> str:
    """The always-apply rules a session's digest had no room for, left for its first prompt or action."""
    from ..base import paths

    return paths.dedup_file(session_id) + LATER


LATER = ".later"
LATER_READ_LIMIT = 64 * 1024


def _leave_later(session_id: str, later: object) -> None:
    """Write (or, with none, remove) the session's rules for later: one small file beside its dedup file."""
    from ..base import jsonfast, safeio

    path = later_file(session_id)
    text = later.get("text") if isinstance(later, dict) else None
    ids = later.get("ids") if isinstance(later, dict) else None
    try:
        os.unlink(path)  # a fresh start (or a compaction) leaves what this SessionStart says, nothing older
    except OSError:
        pass
    if isinstance(text, str) and text and isinstance(ids, list):
        safeio.append_bytes(path, jsonfast.dumps({"text": text, "ids": [i for i in ids if isinstance(i, str)]})
                            .encode("utf-8"))


def take_later(session_id: str) -> "tuple[str, list[str]]":
    """(text, ids) of the rules SessionStart left for later, claimed by the first hook that renames the file (a
    prompt and an action at once: one of them delivers); ("", []) when there are none. No store."""
    from ..base import jsonfast, safeio

    path = later_file(session_id)
    taken = f"{path}.{os.getpid()}"
    try:
        os.rename(path, taken)
    except OSError:
        return "", []  # none, or another hook took them: the common case, one failed rename
    try:
        raw = safeio.read_head(taken, LATER_READ_LIMIT, follow=False)  # the temp dir is shared: no links
        data = jsonfast.loads(raw)
    except (OSError, ValueError):
        data = None
    finally:
        try:
            os.unlink(taken)
        except OSError:
            pass
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return "", []
    ids = data.get("ids")
    return data["text"], [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _after_compaction(view: "dict[str, object]", session_id: str) -> str:
    """The snapshot PreCompact just wrote, then the digest's sections (its handover unless it is that very snapshot),
    composed under the same SessionStart budget; "" when PreCompact left nothing for this session."""
    from ..base import paths, tokens

    if not session_id:
        return ""
    path = paths.compact_file(session_id)
    try:
        with open(path, encoding="utf-8") as fh:
            snapshot = fh.read().strip()
        os.unlink(path)  # delivered once: a later SessionStart of this session gets the plain digest
    except OSError:
        return ""
    if not snapshot:
        return ""
    sections = view.get("sections") if isinstance(view.get("sections"), dict) else {}
    parts = [tokens.truncate(f"Working state before compaction (agentctx):\n{snapshot}", SNAPSHOT_BUDGET)]
    first_line = snapshot.split("\n", 1)[0]
    for name in sections:  # type: ignore[union-attr]
        section = sections.get(name)  # type: ignore[union-attr]
        if not isinstance(section, str) or not section:
            continue
        if name == "handover" and first_line in section:
            continue  # the digest's handover is this snapshot, already first
        parts.append(section)
    return tokens.compose(parts, tokens.SESSION_START_BUDGET)


def _team_check(cwd: str, project_id: str) -> None:
    """A changed `.agentctx/context.md` (a pull, a merge, a hand edit) starts a detached `team import`: here only a
    stat and a small read (SPEC §3.8); the import and its digest refresh happen outside the hook's budget."""
    from ..base import paths
    from ..team import stamp as team_stamp
    from ..base.roots import git_root

    root = git_root(cwd)
    if root is None:  # a worktree (or no repository): the slow walk
        from ..base.project import find_git_root

        found = find_git_root(cwd)
        if found is None:
            return
        root = found[0]
    if not team_stamp.changed(root, project_id) or not os.path.exists(paths.db_file()):
        return
    from ..base.spawn import agentctx_argv, detached

    detached(agentctx_argv("-C", root, "team", "import", "--auto"), cwd=root)


def _rules_check(cwd: str, project_id: str) -> None:
    """A rule file changed since it was last read (one `stat` per file of the cached list, `outside.rulestamp`):
    a detached `agentctx rules sync` reads it again, outside the hook's budget (SPEC §4.12)."""
    from ..base import paths
    from ..base.roots import git_root
    from ..outside import rulestamp

    root = git_root(cwd)
    if root is None or not os.path.exists(paths.db_file()):
        return
    root = os.path.realpath(root)
    if rulestamp.changed(root, project_id):
        rulestamp.start_sync(root, project_id)


def _track(payload: "Payload", project_id: str) -> None:
    """Mark this session open until its SessionEnd; when earlier sessions ended without one, close them out of band.
    Only a directory listing and a few small files here (the latency budget is 1.15x the interpreter floor)."""
    from ..memory import open_sessions
    from ..base import paths

    if not payload.session_id or not os.path.exists(paths.db_file()):
        return
    open_sessions.mark_open(payload.session_id, project_id, payload.cwd, payload.transcript_path)
    if open_sessions.stale_markers(exclude=payload.session_id):
        open_sessions.spawn_closer(payload.cwd)


def _profile_fallback(project_id: str) -> "tuple[str, list[str]]":
    """No digest yet: the profile records, if there is a store (hooks never create one), and their ids (the prompt
    hook does not inject them again in this session)."""
    from ..store import db, records
    from ..memory import digest
    from ..base import paths

    if not os.path.exists(paths.db_file()):
        return "", []
    from .budget import lock_wait

    try:
        conn = db.connect(paths.db_file(), timeout=lock_wait("session-start"))
    except Exception as exc:  # locked or unusable: the session starts without a profile
        from . import log

        log("session-start", f"no profile injected: {exc}")
        return "", []
    try:
        text = digest.profile_section(conn, project_id, PROFILE_FALLBACK_BUDGET)
        ids = [r.id for r in records.current(conn, project_id, types=["profile"], own_only=True)] if text else []
        return text, ids
    finally:
        conn.close()
