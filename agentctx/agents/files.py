"""Editing files an agent owns (its settings JSON, Codex's config.toml): our entries only, a backup of the user's bytes
before the first change, and an undo that puts those exact bytes back when nothing else changed since."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable

from ..base import userfiles
from ..base.errors import ConfigError

# One convention for every file of the user's we touch (base/userfiles.py), Claude Code's settings included.
BACKUP_SUFFIX, ABSENT_SUFFIX = userfiles.BACKUP_SUFFIX, userfiles.ABSENT_SUFFIX  # beside the file: the bytes before us


def read(path: Path) -> str | None:
    """The file's text, None when it does not exist; any other failure is a ConfigError (`file_unreadable`)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError("file_unreadable", path=str(path), detail=exc.strerror or str(exc)) from None


def ensure_backup(path: Path) -> None:
    """Back the file up now (before a program other than us writes our entries into it: Codex's trust)."""
    with userfiles.locked():
        path = userfiles.real_path(path)
        userfiles.backup_once(path, read(path))


def edit(path: Path, change: Callable[[str | None], str]) -> bool:
    """Replace the file's text with `change(old text or None)`, backed up first; True when it changed. Under the
    user-files lock, through any symlink (the file it points to is edited, the link stays)."""
    with userfiles.locked():
        path = userfiles.real_path(path)
        raw = read(path)
        text = change(raw)
        if text == raw:
            return False
        userfiles.backup_once(path, raw)
        userfiles.atomic_write(path, text)
        return True


def restore(path: Path, remove: Callable[[str], str], same: Callable[[str, str], bool],
            kept: Callable[[str, str], bool]) -> bool:
    """Undo our entries: `remove(text)` is the text without them. When the rest says what the user's original said
    (`same`), the original bytes come back (or no file, if there was none); else the rest is written, and the backup
    stays unless the rest still holds everything the original held (`kept(original, rest)`). True when the file
    changed."""
    with userfiles.locked():
        path = userfiles.real_path(path)
        backup, absent = path.with_name(path.name + BACKUP_SUFFIX), path.with_name(path.name + ABSENT_SUFFIX)
        raw = read(path)
        if raw is None:
            backup.unlink(missing_ok=True)
            absent.unlink(missing_ok=True)
            return False
        rest = remove(raw)
        if absent.exists() and same(rest, ""):
            path.unlink()
            absent.unlink()
            return True
        original = None
        if backup.exists():
            try:
                original = backup.read_text(encoding="utf-8")
            except OSError:
                original = None
            if original is not None and same(rest, original):
                os.replace(backup, path)  # byte for byte what the user had
                return True
        if rest != raw:
            userfiles.atomic_write(path, rest)
        if backup.exists() and original is not None and kept(original, rest):
            backup.unlink()
        absent.unlink(missing_ok=True)
        return rest != raw


def backup_left(path: Path) -> Path | None:
    """The backup of the user's original file when `restore` kept it (the file no longer holds all it held)."""
    backup = userfiles.real_path(path).with_name(userfiles.real_path(path).name + BACKUP_SUFFIX)
    return backup if backup.exists() else None


original = userfiles.original  # what the file held before our first change


# --- JSON ------------------------------------------------------------------------------------------------------

def load_json(text: str | None, path: Path, kind: str) -> dict[str, Any]:
    """The JSON object in `text` ({} for no file or an empty one); a malformed file is refused, never rewritten."""
    if text is None or not text.strip():
        return {}
    try:
        data = userfiles.loads(text)
    except ValueError as exc:
        raise ConfigError("file_invalid", path=str(path), kind=kind, detail=userfiles.describe(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError("file_invalid", path=str(path), kind=kind, detail="not an object")
    return data


def dump_json(data: dict[str, Any], like: str | None) -> str:
    """`data` as JSON indented the way the user's file was (our edit must not reformat their file)."""
    indent: int | str = 2
    found = re.search(r"\n([ \t]+)\S", like or "")
    if found:
        indent = "\t" if found.group(1).startswith("\t") else len(found.group(1))
    return userfiles.dumps(data, indent=indent)


def json_edit(path: Path, kind: str, change: Callable[[dict[str, Any]], None]) -> bool:
    """Apply `change` to the JSON object in `path`; written (and backed up) only when the data changed."""
    def text_change(raw: str | None) -> str:
        data = load_json(raw, path, kind)
        before = userfiles.dumps(data)
        change(data)
        if raw is not None and userfiles.dumps(data) == before:
            return raw
        return dump_json(data, raw)
    load_json(read(userfiles.real_path(path)), path, kind)  # refuse a malformed file before anything else
    return edit(path, text_change)


def pruned(data: Any, keys: tuple[str, ...]) -> Any:
    """`data` without empty containers under `keys`: `{"hooks": {}}` and `{}` say the same."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for key in keys:
        value = out.get(key)
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if v not in ([], {})}
            if value:
                out[key] = value
            else:
                del out[key]
    return out


def json_restore(path: Path, kind: str, change: Callable[[dict[str, Any]], None], keys: tuple[str, ...]) -> bool:
    """Undo our JSON entries (`change` removes them); the original bytes come back when the rest equals them."""
    def remove(raw: str) -> str:
        data = load_json(raw, path, kind)
        before = userfiles.dumps(data)
        change(data)
        return raw if userfiles.dumps(data) == before else dump_json(data, raw)

    def same(rest: str, original: str) -> bool:
        try:
            return pruned(load_json(rest, path, kind), keys) == pruned(load_json(original, path, kind), keys)
        except ConfigError:
            return False

    def kept(original: str, rest: str) -> bool:
        try:
            return userfiles.leaves_kept(load_json(original, path, kind), load_json(rest, path, kind))
        except ConfigError:
            return False
    load_json(read(userfiles.real_path(path)), path, kind)  # refuse a malformed file before anything else
    return restore(path, remove, same, kept)
