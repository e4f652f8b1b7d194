"""ULIDs (sortable by creation time, monotonic within a process) and UTC timestamps."""

import os
import _thread
import time
from datetime import datetime, timezone

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = _thread.allocate_lock()  # not threading: ~2 ms of import on every hook
_last_ms = -1
_last_rand = 0


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def ulid(now_ms: int | None = None) -> str:
    """A new ULID; ids made in the same millisecond by this process still sort in creation order."""
    global _last_ms, _last_rand
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    with _lock:
        if ms <= _last_ms:
            ms = _last_ms
            rand = (_last_rand + 1) & ((1 << 80) - 1)
        else:
            rand = int.from_bytes(os.urandom(10), "big")
        _last_ms, _last_rand = ms, rand
    return _encode(ms, 10) + _encode(rand, 16)


def now_iso() -> str:
    """The current UTC time as ISO 8601 with milliseconds and a Z suffix."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (date only, naive or Z/offset) as an aware UTC datetime."""
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def to_iso(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sha256_hex(text: str) -> str:
    """SHA-256 of UTF-8 text, from the builtin module when there is one (hashlib loads OpenSSL: ~3 ms per hook)."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:
            from hashlib import sha256
    return sha256(text.encode("utf-8", "replace")).hexdigest()
