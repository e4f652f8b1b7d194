"""Why the store cannot be used, in the user's terms: permissions, a read-only file system, space, a lock holder."""

from __future__ import annotations

import os

# SQLite primary result codes (sqlite3 exceptions carry them as `sqlite_errorcode` from Python 3.11).
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26
# Below this much free space a failed write is taken to be the disk filling up (a WAL frame plus -shm growth).
LOW_SPACE_BYTES = 1024 * 1024


def primary_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def free_bytes(path: str) -> int | None:
    """Bytes free to us on the file system holding `path`'s directory, or None if it cannot be known."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)) or ".")
    except (OSError, AttributeError):
        return None
    return int(st.f_bavail) * int(st.f_frsize)


def human(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def unwritable(path: str) -> tuple[str, str] | None:
    """(what is wrong, what to do) when the store's directory or files cannot be written; None if they can."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    try:
        if os.statvfs(directory).f_flag & getattr(os, "ST_RDONLY", 1):
            return (f"the file system holding {directory} is mounted read-only",
                    "remount it read-write, or point AGENTCTX_HOME at a writable directory")
    except (OSError, AttributeError):
        pass
    for target in (directory, path, path + "-wal", path + "-shm"):
        if os.path.exists(target) and not os.access(target, os.W_OK):
            kind = "directory" if target == directory else "file"
            return (f"permission denied: the {kind} {target} is not writable by this user",
                    f"give your user write access (ls -l to see the owner; chmod u+w {target})")
    if not os.access(directory, os.X_OK | os.R_OK):
        return (f"permission denied: the directory {directory} cannot be read by this user",
                f"give your user access to it (chmod u+rwx {directory})")
    return None


def lock_holder(path: str) -> str | None:
    """"process N (name)" holding a write lock on the store or its -shm file, from /proc/locks; None if unknown
    (another OS, OFD locks, a holder in another PID namespace). One read of one small file: cheap enough for
    an error path."""
    if not os.path.exists("/proc/locks"):  # Linux only
        return None
    inodes: set[tuple[int, int, int]] = set()
    for target in (path, path + "-shm"):
        try:
            st = os.stat(target)
        except OSError:
            continue
        inodes.add((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
    if not inodes:
        return None
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read(1 << 20).splitlines()
    except OSError:
        return None
    me = os.getpid()
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, not a holder
            continue
        try:
            i = parts.index("WRITE")
            pid = int(parts[i + 1])
            major, minor, inode = parts[i + 2].split(":")
            key = (int(major, 16), int(minor, 16), int(inode))
        except (ValueError, IndexError):
            continue
        if key in inodes and pid > 0 and pid != me:
            try:
                with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
                    name = fh.read(64).strip()
            except OSError:
                name = ""
            return f"process {pid}" + (f" ({name})" if name else "")
    return None
