"""Where agentctx keeps its files; the only module that reads the environment for locations.

Each location has a string form (`*_file`, `*_dir_str`) that the hooks use, because importing pathlib costs a
hook about 3 ms on every prompt, and a `Path` form for everything else.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DB_NAME = "agentctx.db"


def _path(text: str) -> "Path":
    from pathlib import Path

    return Path(text)


def home_dir() -> str:
    """The data directory: `AGENTCTX_HOME`, else `~/.agentctx`."""
    override = os.environ.get("AGENTCTX_HOME")
    if override:
        return os.path.expanduser(override)
    return os.path.join(os.path.expanduser("~"), ".agentctx")


def db_file() -> str:
    return os.path.join(home_dir(), DB_NAME)


def logs_dir_str() -> str:
    return os.path.join(home_dir(), "logs")


def digests_dir_str() -> str:
    return os.path.join(home_dir(), "digests")


def state_dir_str() -> str:
    """Small per-session state files (debounce stamps, pending ledger rows)."""
    return os.path.join(home_dir(), "state")


def pending_ledger_file() -> str:
    """Ledger rows the hooks append instead of writing to the store; drained by `memory.pending.drain_pending`."""
    return os.path.join(state_dir_str(), "pending-ledger.jsonl")


def decisions_log_file() -> str:
    """The prompt hook's recent injection decisions (candidates, probabilities, features), read by `agentctx why`."""
    return os.path.join(state_dir_str(), "prompt-decisions.jsonl")


_SAFE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"


def _safe(name: str) -> str:
    # Session and project ids come from outside (hook payloads): keep them from escaping the directory.
    if name and len(name) <= 128 and not name.strip(_SAFE_CHARS):
        return name  # the usual UUID
    return "".join(c if c in _SAFE_CHARS else "_" for c in name[:128]) or "_"


def digest_file(project_id: str) -> str:
    return os.path.join(digests_dir_str(), f"{_safe(project_id)}.json")


def compact_file(session_id: str) -> str:
    """The working-state snapshot PreCompact leaves for the SessionStart that follows the compaction."""
    return os.path.join(state_dir_str(), f"compact-{_safe(session_id)}.txt")


def setup_stamp_file(project_id: str) -> str:
    """When the plugin's SessionStart last started setting a project up (`agentctx init`, detached)."""
    return os.path.join(state_dir_str(), f"setup-{_safe(project_id)}")


def open_marker_file(session_id: str) -> str:
    """The marker of a session Claude Code has open (SessionStart writes it, SessionEnd removes it)."""
    return os.path.join(state_dir_str(), "open", f"{_safe(session_id)}.json")


def dedup_file(session_id: str) -> str:
    """Per-session injection dedup file (derived, disposable) in the temp dir."""
    return os.path.join(temp_dir(), f"agentctx-{_safe(session_id)}.seen")


def anchor_map_file(project_id: str) -> str:
    """The project's anchor map (`memory.anchormap`): its anchored and guarded records, rewritten when records
    change, read by the pre-action hook in one syscall. Absent: the project has none."""
    return os.path.join(state_dir_str(), f"anchors-{_safe(project_id)}.json")


def action_decisions_file() -> str:
    """The pre-action hook's recent deliveries (target, matching anchor, decision), read by `agentctx why`."""
    return os.path.join(state_dir_str(), "action-decisions.jsonl")


def actions_file(session_id: str) -> str:
    """Per-session notes of the pre-action hook (what it delivered, for which action), read by the post-action
    hook and for once-per-session delivery; derived, disposable, in the temp dir."""
    return os.path.join(temp_dir(), f"agentctx-{_safe(session_id)}.actions")


def temp_dir() -> str:
    """The temp directory as `tempfile.gettempdir()` would choose it, without importing tempfile (~4 ms)."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name)
        if value and os.path.isdir(value):
            return value
    return "/tmp" if os.name == "posix" else os.path.join(os.environ.get("LOCALAPPDATA", "."), "Temp")


def home() -> "Path":
    return _path(home_dir())


def db_path() -> "Path":
    return _path(db_file())


def config_path() -> "Path":
    return _path(os.path.join(home_dir(), "config.json"))


def logs_dir() -> "Path":
    return _path(logs_dir_str())


def digests_dir() -> "Path":
    return _path(digests_dir_str())


def state_dir() -> "Path":
    return _path(state_dir_str())


def models_dir() -> "Path":
    return _path(os.path.join(home_dir(), "models"))


def profile_dir() -> "Path":
    return _path(os.path.join(home_dir(), "profile"))


def digest_path(project_id: str) -> "Path":
    return _path(digest_file(project_id))


def dedup_path(session_id: str) -> "Path":
    return _path(dedup_file(session_id))


def ensure_private_dir(path: "str | os.PathLike[str]") -> "Path":
    """Create `path` (and parents) and make it private to the user (0700)."""
    return _path(ensure_private_dir_str(os.fspath(path)))


def ensure_private_dir_str(path: str) -> str:
    """`ensure_private_dir` for the hooks: no pathlib. Every directory it creates is 0700, parents included
    (os.makedirs gives the parents it creates the umask's mode: `control/` of `control/on/` was 0755)."""
    missing = []
    head = path
    while head and not os.path.isdir(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            if not os.path.isdir(directory):  # a file where a directory belongs: as os.makedirs, refuse
                raise
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def claude_home() -> "Path":
    """Claude Code's user directory (`~/.claude`)."""
    return _path(os.path.join(os.path.expanduser("~"), ".claude"))


def claude_json() -> "Path":
    """Claude Code's user state file, where MCP servers are registered at user scope."""
    return _path(os.path.join(os.path.expanduser("~"), ".claude.json"))


def codex_home() -> "Path":
    """Codex CLI's user directory: `$CODEX_HOME`, else `~/.codex` (vendor-notes/codex-cli.md fact 20)."""
    return _path(os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex"))


def gemini_home() -> "Path":
    """Gemini CLI's user directory (`~/.gemini`): settings.json, trustedFolders.json, chat files (vendor-notes)."""
    return _path(os.path.join(os.path.expanduser("~"), ".gemini"))


def claude_project_dir() -> str | None:
    """The project directory Claude Code gives the processes it starts (hooks, MCP servers), if any."""
    return os.environ.get("CLAUDE_PROJECT_DIR") or None
