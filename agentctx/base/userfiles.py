"""JSON files we edit in place (settings.json, ~/.claude.json, config.json): strict parsing, atomic writes, one writer.

- Strict: `NaN`, `Infinity`, numbers that overflow a float (`1e400`) and duplicate keys are refused. Python's json
  accepts all four and would write back `Infinity`/`NaN` (invalid JSON) or silently keep only the last duplicate.
- Atomic: a unique temporary file beside the target (`tempfile.mkstemp`), fsync, `os.replace`; the target's
  permissions are kept. A symlink is resolved first, so the file it points to is edited and the link stays a link.
- One writer: read-modify-write runs under an exclusive `flock` on a lock file in the agentctx home.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

__all__ = ["StrictJSONError", "atomic_write", "dumps", "loads", "locked", "real_path", "owned", "own", "disown",
           "leaves_kept"]


class StrictJSONError(ValueError):
    """Text that is not strict JSON; the message says what, in one line."""


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise StrictJSONError(f"the number {text[:40]} is too large to keep exactly")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJSONError(f"duplicate key {json.dumps(key)[:80]}")
        out[key] = value
    return out


def loads(text: str) -> Any:
    """Parse `text` as strict JSON; raises StrictJSONError (a ValueError) or json.JSONDecodeError."""
    return json.loads(text, parse_constant=_constant, parse_float=_float, object_pairs_hook=_object)


def describe(exc: ValueError) -> str:
    """A one-line reason for a parse failure."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg}, line {exc.lineno}"
    return " ".join(str(exc).split())


def dumps(data: Any, *, indent: int | str | None = 2, sort_keys: bool = False) -> str:
    """Serialise `data`; refuses (ValueError) anything the strict parser would refuse to read back."""
    text = json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False, sort_keys=sort_keys) + "\n"
    loads(text)
    return text


def real_path(path: str | os.PathLike[str]) -> Path:
    """The file a (possibly symlinked, possibly dangling) path designates."""
    return Path(os.path.realpath(path))


def atomic_write(path: str | os.PathLike[str], text: str, *, mode: int = 0o600) -> Path:
    """Replace the file at `path` (through any symlink) with `text`; keeps its permissions (`mode` when new)."""
    target = real_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(target.parent)
    return target


# Beside a file of the user's we change: its bytes before our first change, or a marker that it did not exist.
BACKUP_SUFFIX = ".agentctx-backup"
ABSENT_SUFFIX = ".agentctx-absent"


def backup_once(path: Path, raw: str | None) -> None:
    """Before the first change only: the original bytes (`raw` is its text, None when there is no file), or a
    marker that there was no file; `uninstall` restores from it. Later changes keep the first backup."""
    import shutil

    backup, absent = path.with_name(path.name + BACKUP_SUFFIX), path.with_name(path.name + ABSENT_SUFFIX)
    if backup.exists() or absent.exists():
        return
    note_new_dirs(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if raw is None:
        absent.touch(mode=0o600)
        return
    shutil.copy2(path, backup)  # the exact bytes (line endings included)
    fd = os.open(backup, os.O_RDONLY)
    try:
        os.fsync(fd)  # on disk before the file it backs up is replaced
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def locked(name: str = "user-files") -> Iterator[None]:
    """Hold an exclusive lock on `<agentctx home>/locks/<name>.lock` (blocking) for a read-modify-write."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): atomic replace still keeps every file whole
        yield
        return
    from . import paths

    paths.ensure_private_dir(paths.home())
    directory = paths.ensure_private_dir(paths.home() / "locks")
    fd = os.open(directory / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# --- what we wrote ---------------------------------------------------------------------------------------------
# An entry under a name we use (`mcpServers.agentctx`) may be the user's own (`claude mcp add agentctx …`): it is
# ours only when we wrote it, and `uninstall` removes it only while it still holds what we wrote. What we wrote is
# kept in <state>/owned.json, file (its real path) -> key -> the value. Callers hold `locked()`.

def _owned_file() -> Path:
    from . import paths

    return paths.state_dir() / "owned.json"


def _owned_all() -> dict[str, Any]:
    try:
        data = json.loads(_owned_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def owned(path: Path, key: str) -> tuple[bool, Any]:
    """(True, the value we wrote) when we wrote `key` in the file at `path`; (False, None) otherwise."""
    entries = _owned_all().get(str(real_path(path)))
    if isinstance(entries, dict) and key in entries:
        return True, entries[key]
    return False, None


def own(path: Path, key: str, value: Any) -> None:
    """Remember that we wrote `value` under `key` in the file at `path`."""
    from . import paths

    data = _owned_all()
    data.setdefault(str(real_path(path)), {})[key] = value
    paths.ensure_private_dir(paths.state_dir())
    atomic_write(_owned_file(), json.dumps(data, indent=1, sort_keys=True) + "\n")


def disown(path: Path, key: str) -> None:
    data = _owned_all()
    entries = data.get(str(real_path(path)))
    if not isinstance(entries, dict) or key not in entries:
        return
    del entries[key]
    if not entries:
        del data[str(real_path(path))]
    if data:
        atomic_write(_owned_file(), json.dumps(data, indent=1, sort_keys=True) + "\n")
    else:
        _owned_file().unlink(missing_ok=True)


def original(path: Path) -> tuple[bool, str | None]:
    """What the file held before our first change: (False, None) when we never changed it, (True, None) when it did
    not exist, (True, its text) otherwise."""
    path = real_path(path)
    backup, absent = path.with_name(path.name + BACKUP_SUFFIX), path.with_name(path.name + ABSENT_SUFFIX)
    if absent.exists():
        return True, None
    try:
        return True, backup.read_text(encoding="utf-8")
    except OSError:
        return False, None


def entry_is_ours(path: Path, key: str, entry: Any, *, our_shape: Callable[[Any], bool],
                  had_entry: Callable[[str], bool]) -> bool:
    """An entry under our name is ours when we wrote it and it still holds what we wrote. Written before agentctx
    remembered: `our_shape(entry)` (what we write and the agent's own `mcp add` does not) in a file we changed
    whose original had no such entry (`had_entry(original text)`)."""
    if entry is None:
        return False
    wrote, value = owned(path, key)
    if wrote:
        return bool(entry == value)
    changed, before = original(path)
    if not changed or not our_shape(entry):
        return False
    try:
        return before is None or not had_entry(before)
    except ValueError:
        return False


_DIRS = "(directories we created)"  # a key of owned.json that no file path can be


def note_new_dirs(path: Path) -> None:
    """Before writing `path`: remember the directories above it that do not exist yet (we are about to create
    them), so `uninstall` can remove those it leaves empty. Callers hold `locked()`."""
    new, parent = [], real_path(path).parent
    while not parent.exists() and parent != parent.parent:
        new.append(str(parent))
        parent = parent.parent
    if new:
        from . import paths

        data = _owned_all()
        data[_DIRS] = sorted(set(data.get(_DIRS) or []) | set(new))
        paths.ensure_private_dir(paths.state_dir())
        atomic_write(_owned_file(), json.dumps(data, indent=1, sort_keys=True) + "\n")


def created_by_us(directory: Path) -> bool:
    """Whether we created this directory (an agent's user directory we made only to write our entries into)."""
    return str(real_path(directory)) in (_owned_all().get(_DIRS) or [])


def remove_new_dirs() -> list[str]:
    """Remove the directories we created that are now empty (deepest first); the ones removed."""
    with locked():
        data = _owned_all()
        created = [d for d in data.get(_DIRS) or [] if isinstance(d, str)]
        removed = []
        for directory in sorted(created, key=len, reverse=True):
            try:
                os.rmdir(directory)  # only an empty directory goes
                removed.append(directory)
            except OSError:
                pass
        left = [d for d in created if os.path.isdir(d)]
        if left != created:
            if left:
                data[_DIRS] = left
            else:
                data.pop(_DIRS, None)
            if data:
                atomic_write(_owned_file(), json.dumps(data, indent=1, sort_keys=True) + "\n")
            else:
                _owned_file().unlink(missing_ok=True)
        return removed


def _leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)))
    else:
        yield path, json.dumps(value, sort_keys=True, default=str)


def leaves_kept(original: Any, now: Any) -> bool:
    """Every key and value of `original` (a parsed document) is still in `now`: a backup of `original` holds nothing
    the file lost, so it may go."""
    kept = set(_leaves(now))
    return all(leaf in kept for leaf in _leaves(original))
