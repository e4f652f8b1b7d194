"""Brute-force cosine search over the stored vectors: sqlite-vec in SQL when it loads, else NumPy; same ranking."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Sequence

from ...store import vectors as store

if TYPE_CHECKING:
    import numpy as np

Backend = str  # "sqlite-vec" | "numpy"

# Connections sqlite-vec was loaded into (by id: sqlite3.Connection takes no weak references). A reused id whose
# connection lacks the function is caught at query time and falls back to NumPy.
_loaded: dict[int, bool] = {}
# NumPy path: (ids, matrix) per connection and filter, valid while the database is unchanged.
_cache: dict[tuple[object, ...], tuple[tuple[int, int], list[str], "np.ndarray"]] = {}
CACHE_MAX = 8


def load_extension(conn: sqlite3.Connection) -> tuple[bool, str]:
    """Try to load sqlite-vec into `conn`: (loaded, why not). Extension loading is switched off again afterwards."""
    if id(conn) in _loaded:
        return _loaded[id(conn)], "" if _loaded[id(conn)] else "tried before on this connection"
    reason = ""
    if not hasattr(conn, "enable_load_extension"):
        reason = "this Python's sqlite3 cannot load extensions (built without --enable-loadable-sqlite-extensions)"
    else:
        try:
            import sqlite_vec

            conn.enable_load_extension(True)
            try:
                sqlite_vec.load(conn)
            finally:
                conn.enable_load_extension(False)
        except ImportError:
            reason = "sqlite-vec is not installed"
        except sqlite3.Error as exc:
            reason = f"sqlite-vec did not load: {exc}"
        except Exception as exc:  # pysqlite3 and other DB-API bindings raise their own classes
            reason = f"sqlite-vec did not load: {exc}"
    _loaded[id(conn)] = not reason
    return not reason, reason


# A long-lived process (the MCP server) sets "numpy": its cached matrix answers in ~0.3 ms at 10K records where
# sqlite-vec scans the table on every query (~25 ms); a one-shot CLI search is cheaper through sqlite-vec.
PREFER: Backend | None = None


def backend(conn: sqlite3.Connection, prefer: Backend | None = None) -> Backend:
    if (prefer or PREFER) == "numpy":
        return "numpy"
    return "sqlite-vec" if load_extension(conn)[0] else "numpy"


def to_blob(vector: "np.ndarray") -> bytes:
    """The storage format: packed little-endian float32, no header (what sqlite-vec reads)."""
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def nearest(conn: sqlite3.Connection, model: str, dims: int, query: "np.ndarray", project_id: str, *,
            types: Sequence[str] = (), history: bool = False, scope: str | None = None, limit: int = 50,
            prefer: Backend | None = None) -> list[tuple[str, float]]:
    """(record id, cosine similarity) of the `limit` nearest visible records, best first, ties by id."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32)
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or len(q) != dims:
        return []
    q = q / norm
    if backend(conn, prefer) == "sqlite-vec":
        try:
            return store.nearest(conn, model, dims, to_blob(q), project_id, types=types, history=history,
                                 scope=scope, limit=limit)
        except Exception:  # "no such function" on a connection id reused after close: the NumPy scan still works
            _loaded[id(conn)] = False
    ids, matrix = _matrix(conn, model, dims, project_id, tuple(types), history, scope)
    if not ids:
        return []
    # Rows were unit length when stored; dividing by their norms again costs little and forgives any that are not.
    sims = matrix @ q
    k = min(limit, len(ids))
    top = np.argpartition(-sims, k - 1)[:k] if k < len(ids) else np.arange(len(ids))
    ranked = sorted(((-float(sims[i]), ids[i]) for i in top))
    return [(rid, -neg) for neg, rid in ranked]


def _stamp(conn: sqlite3.Connection) -> tuple[int, int]:
    # data_version moves when another connection commits; total_changes when this one writes.
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes


def _matrix(conn: sqlite3.Connection, model: str, dims: int, project_id: str, types: tuple[str, ...],
            history: bool, scope: str | None) -> tuple[list[str], "np.ndarray"]:
    import numpy as np

    key = (id(conn), model, dims, project_id, types, history, scope)
    stamp = _stamp(conn)
    hit = _cache.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1], hit[2]
    rows = store.visible(conn, model, dims, project_id, types=types, history=history, scope=scope)
    ids = [rid for rid, _ in rows]
    matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4").reshape(len(rows), dims)
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    matrix = (matrix / norms[:, None]).astype(np.float32)
    if len(_cache) >= CACHE_MAX:
        _cache.pop(next(iter(_cache)))
    _cache[key] = (stamp, ids, matrix)
    return ids, matrix
