"""Reading files agentctx does not control: regular files only, never blocking on a FIFO, never more than a cap."""

import os
import stat

# O_NONBLOCK: opening a FIFO nobody writes returns at once (then fstat refuses it) instead of hanging the hook.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_regular(path: str, *, follow: bool = True) -> int:
    """A read descriptor on `path` if it is a regular file; OSError for a FIFO, device, directory or socket
    (and, with follow=False, a symlink: for files in shared places that agentctx creates itself)."""
    fd = os.open(path, _READ_FLAGS | (0 if follow else NOFOLLOW))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(22, "not a regular file", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def jsonl_tail(path: str, limit: int) -> "list[dict]":  # type: ignore[type-arg]
    """The JSON objects of the last `limit` bytes of a JSON-lines file of ours (a regular file, not followed through a
    symlink); lines that are not objects are skipped; a file that cannot be read gives none."""
    from . import jsonfast

    try:
        raw, _ = read_tail(path, limit, follow=False)
    except OSError:
        return []
    out = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            row = jsonfast.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            out.append(row)
    return out


def append_bytes(path: str, data: bytes) -> bool:
    """One O_APPEND write through `open_append` (0600; no symlink, FIFO, device or another user's file): rows from
    parallel hooks do not interleave. False when it failed; never raises."""
    try:
        fd = open_append(path)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def _read(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_head(path: str, limit: int, *, start: int = 0, follow: bool = True) -> bytes:
    """At most `limit` bytes of the regular file `path` from byte `start`."""
    fd = open_regular(path, follow=follow)
    try:
        if start:
            os.lseek(fd, start, os.SEEK_SET)
        return _read(fd, limit)
    finally:
        os.close(fd)


def read_tail(path: str, limit: int, *, follow: bool = True) -> "tuple[bytes, int]":
    """The last `limit` bytes of the regular file `path`, and the file's size when it was opened."""
    fd = open_regular(path, follow=follow)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            os.lseek(fd, size - limit, os.SEEK_SET)
        return _read(fd, limit), size
    finally:
        os.close(fd)


def read_ids(path: str, limit: int) -> "set[str]":
    """The whitespace-separated ids in the last `limit` bytes of a file of ours in a shared place (the per-session
    dedup files in the temp dir): never through a symlink; a missing or unreadable file holds none."""
    try:
        raw, _ = read_tail(path, limit, follow=False)
    except OSError:
        return set()
    return set(raw.decode("ascii", "replace").split())


def append_ids(path: str, ids: "list[str]") -> bool:
    """One O_APPEND write of `ids`, one per line (parallel writers cannot drop each other's, nothing is rewritten);
    through `open_append`, so never a symlink, FIFO, device or another user's file. False when it failed."""
    try:
        fd = open_append(path)
        try:
            os.write(fd, ("\n".join(ids) + "\n").encode("ascii", "replace"))
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def size_of(path: str, *, follow: bool = True) -> int:
    """The size of a regular file (OSError for anything else), without opening it."""
    st = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(22, "not a regular file", path)
    return st.st_size


def create_private(path: str) -> int:
    """A write descriptor on `path`, created or truncated, 0600 whatever the umask, never through a symlink: for the
    files agentctx writes in its own directories (state, flags, temporary files renamed over their target)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)


def open_append(path: str, *, mode: int = 0o600) -> int:
    """An append descriptor on `path`, created if missing: never through a symlink, never a FIFO or device, and
    never a file another user planted (the dedup files live in the shared temp dir)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, mode)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            raise OSError(22, "not a regular file of ours", path)
    except BaseException:
        os.close(fd)
        raise
    return fd
