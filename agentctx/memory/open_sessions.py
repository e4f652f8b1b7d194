"""Sessions that never got their SessionEnd: an open marker per session, staleness, and closing them later."""

import os
import time

from ..base import jsonfast, paths

# This module is on SessionStart's hot path (mark_open, stale_markers): os, jsonfast and paths only at import time.
# A marker is `state/open/<sid>.json`: written at SessionStart (and by PostToolUse when missing), removed at
# SessionEnd. One left behind belongs to a session that ended without SessionEnd: headless runs that exit while an
# async hook runs, crashes, closed terminals (vendor-notes/claude-code-hooks.md, facts 21-22; docs/hooks.md).

# With no way to tell whether Claude Code still runs (no /proc), a session is closed after this long without activity,
IDLE_SECONDS = 2 * 3600.0
# or after this long when a newer session of the same project started after its last activity.
NEWER_SESSION_IDLE_SECONDS = 15 * 60.0
# A claim (a marker renamed by the process closing it) older than this belongs to a closer that died: retried.
CLAIM_EXPIRY_SECONDS = 3600.0
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ash", "ksh", "busybox"))


def open_dir() -> str:
    return os.path.join(paths.state_dir_str(), "open")


def marker_file(session_id: str) -> str:
    return paths.open_marker_file(session_id)


def _proc_stat(pid: int) -> "tuple[str, int, str] | None":
    """(command name, parent pid, start time in clock ticks) from /proc (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    name = raw[raw.find("(") + 1: raw.rfind(")")]
    fields = raw[raw.rfind(")") + 2:].split()
    if len(fields) < 20:
        return None
    return name, int(fields[1]), fields[19]


def client_process() -> "tuple[int, str] | None":
    """The process that ran this hook (Claude Code: the parent, past the `sh -c` it runs commands through) and its
    start time, so a recycled pid is not taken for it. None without /proc."""
    pid = os.getppid()
    for _ in range(3):
        stat = _proc_stat(pid)
        if stat is None:
            return None
        name, parent, started = stat
        if name not in _SHELLS or parent <= 1:
            return pid, started
        pid = parent
    return None


def mark_open(session_id: str, project_id: str, cwd: str, transcript: str) -> None:
    """Remember a started session until its SessionEnd (one small file; errors are swallowed: a hook must not fail)."""
    if not session_id:
        return
    client = client_process()
    data = {"session_id": session_id, "project_id": project_id, "cwd": cwd, "transcript_path": transcript,
            "started": time.time(), "pid": client[0] if client else None, "pid_start": client[1] if client else None}
    path = marker_file(session_id)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileNotFoundError:
            paths.ensure_private_dir_str(paths.state_dir_str())
            paths.ensure_private_dir_str(open_dir())
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, jsonfast.dumps(data).encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        pass


def ensure_open(session_id: str, project_id: str, cwd: str, transcript: str) -> None:
    """PostToolUse: a session with activity but no marker (closed too early, or started before agentctx) gets one."""
    if session_id and not os.path.exists(marker_file(session_id)):
        mark_open(session_id, project_id, cwd, transcript)


def mark_closed(session_id: str) -> bool:
    """SessionEnd: the session ended normally. True when this call removed the marker."""
    try:
        os.unlink(marker_file(session_id))
        return True
    except OSError:
        return False


def _load(path: str) -> "dict | None":
    try:
        with open(path, "rb") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("session_id"), str):
        return None
    data["_path"] = path
    return data


def _mtime(path: object) -> float:
    try:
        return os.stat(path).st_mtime if isinstance(path, str) and path else 0.0
    except OSError:
        return 0.0


def last_activity(marker: dict) -> float:
    """The newest of the marker, the transcript (Claude Code appends to it all session long) and the capture log."""
    started = marker.get("started")
    return max(float(started) if isinstance(started, (int, float)) else 0.0, _mtime(marker.get("_path")),
               _mtime(marker.get("transcript_path")),
               _mtime(os.path.join(paths.state_dir_str(), f"session-{paths.session_token(marker['session_id'])}.jsonl")))


def client_alive(marker: dict) -> "bool | None":
    """Whether the recorded client process still runs (same pid and start time); None when nothing can tell."""
    pid, started = marker.get("pid"), marker.get("pid_start")
    if not isinstance(pid, int) or not isinstance(started, str) or not os.path.isdir("/proc"):
        return None
    stat = _proc_stat(pid)
    return stat is not None and stat[2] == started


def is_stale(marker: dict, markers: "list[dict]", now: float) -> bool:
    """Ended without SessionEnd: its client process is gone; or a newer session took its place in the same client;
    or (no process information) it has been idle long enough, less long when a newer session of its project
    started after its last activity."""
    last = last_activity(marker)
    newer = [m for m in markers if m is not marker and isinstance(m.get("started"), (int, float))
             and float(m["started"]) > last]
    alive = client_alive(marker)
    if alive is False:
        return True
    if alive is True:
        return any(m.get("pid") == marker.get("pid") and m.get("pid_start") == marker.get("pid_start") for m in newer)
    idle = now - last
    if idle >= IDLE_SECONDS:
        return True
    return idle >= NEWER_SESSION_IDLE_SECONDS and any(m.get("project_id") == marker.get("project_id") for m in newer)


def markers() -> "list[dict]":
    try:
        names = os.listdir(open_dir())
    except OSError:
        return []
    found = []
    for name in names:
        if name.endswith(".json"):
            data = _load(os.path.join(open_dir(), name))
            if data is not None:
                found.append(data)
    return found


def stale_markers(now: "float | None" = None, *, exclude: str = "") -> "list[dict]":
    """The open markers of sessions that ended without SessionEnd (never `exclude`, the caller's own session)."""
    now = time.time() if now is None else now
    every = markers()
    return [m for m in every if m["session_id"] != exclude and is_stale(m, every, now)]


def session_of_client(project_id: str) -> "str | None":
    """The open session of `project_id` whose agent process also started this process (an MCP server that was not
    told its session: Codex and Gemini CLI give it no session id, Claude Code does): the newest marker with the
    same client pid and start time, else None."""
    client = client_process()
    if client is None:
        return None
    mine = [m for m in markers() if m.get("pid") == client[0] and m.get("pid_start") == client[1]
            and m.get("project_id") == project_id]
    mine.sort(key=lambda m: m.get("started") if isinstance(m.get("started"), (int, float)) else 0)
    return str(mine[-1]["session_id"]) if mine else None


def spawn_closer(cwd: str) -> None:
    """Close them out of band: SessionStart has a latency budget, closing runs consolidation."""
    from ..base.spawn import agentctx_argv, detached

    detached(agentctx_argv("consolidate", "--close-stale"), cwd=cwd)


def claim(marker: dict) -> "str | None":
    """Rename the marker so one closer wins when several notice the same session; the claimed path, or None."""
    claimed = f"{marker['_path'].split('.closing.')[0]}.closing.{os.getpid()}"
    try:
        os.rename(marker["_path"], claimed)
    except OSError:
        return None
    try:
        os.utime(claimed)  # the claim's age, for expired_claims (a rename keeps the marker's mtime)
    except OSError:
        pass
    return claimed


def expired_claims(now: float) -> "list[dict]":
    """Claims left by a closer that died: their markers are stale again."""
    try:
        names = os.listdir(open_dir())
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(open_dir(), name)
        if ".json.closing." in name and now - _mtime(path) >= CLAIM_EXPIRY_SECONDS:
            data = _load(path)
            if data is not None:
                found.append(data)
    return found
