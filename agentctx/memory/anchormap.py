"""The anchor map: a project's anchored and guarded records as one small file the pre-action hook reads in one syscall.

Written after every committed record write (`base.freshness`, registered by `memory.keep_digests_fresh`) and by a
full digest refresh; removed when the project has no anchored record, so the hook on a project without any costs
one failed `open`. Derived data (SPEC §8): a lost or stale map only means a record is not delivered before an action.
"""

from __future__ import annotations

import os
import sqlite3

from ..base import jsonfast, paths
from ..base.models import Record

VERSION = 1
# Characters of a record's body the map keeps to deliver before an action: what it says, not all of it (the
# whole record is one ctx_get away). 120 was fitted by bench/action.py on five real repositories' rules and held on
# five others (hit 0.966 Codex / 1.000 Claude Code against 0.946 / 0.990 with 240): a file several rules govern gets
# more of them within the 400-token budget (docs/benchmarks.md).
TEXT_CHARS = 120


def _skips(record: Record) -> "tuple[list[str], list[str], dict[str, str]]":
    """(agents that load this record themselves in every session, those of them that have it from the session's
    start (the others load it at their own read or edit tools, never for a shell line), agent -> the folder a
    session must start in or below for that agent to load it): the hook does not repeat it to them. Decided in one
    place, `outside.native`."""
    from ..outside.native import at_start, of_record

    try:
        n = of_record(record)
        start = at_start(record, n)
    except Exception:  # derived data: a failure only means the record is delivered to every agent
        return [], [], {}
    return sorted(n.always), sorted(start), dict(sorted(n.below.items()))


def _flag(conn: sqlite3.Connection, record: Record, marks: "dict[str, dict[str, str]] | None" = None) -> str:
    """A short note shown after the title: "(code changed since: src/x.py)" for a record whose code changed since it
    was recorded (SPEC §3.9, `store.trust.flag`); the one place it is computed. `marks`: read once for a whole map."""
    from ..store import trust

    if marks is None:
        marks = trust.marks_for(conn, [record.id])
    reason = marks.get(record.id, {}).get("unverified")
    return trust.flag(reason).strip() if reason is not None else ""


def short_text(body: str, limit: int = TEXT_CHARS) -> str:
    body = " ".join(body.split())
    if len(body) <= limit:
        return body
    cut = body.rfind(" ", 0, limit)
    return body[: cut if cut > limit // 2 else limit].rstrip() + " …"


def entry(conn: sqlite3.Connection, record: Record,
          marks: "dict[str, dict[str, str]] | None" = None) -> dict[str, object]:
    """One record as the hook reads it (SPEC §4.11); `origin`, for a rule file's record, says which file."""
    from ..outside.native import provenance

    skip, start, below = _skips(record)
    title, origin = provenance(record)
    out = {"id": record.id, "type": record.type, "title": title, "text": short_text(record.body),
           "anchors": list(record.anchors), "guard": record.guard, "confidence": record.confidence,
           "skip_agents": skip, "skip_start": start, "flag": _flag(conn, record, marks)}
    if below:
        out["skip_below"] = below
    if origin:
        out["origin"] = origin.strip()[1:-1]  # "rule file: <path>", without its parentheses
    return out


def build(conn: sqlite3.Connection, project_id: str) -> dict[str, object]:
    from ..store import before, records, trust

    anchored = records.anchored(conn, project_id)
    marks = trust.marks_for(conn, [r.id for r in anchored])
    # A record waiting for the user's review is never delivered (SPEC §3.9).
    entries = [entry(conn, r, marks) for r in anchored if "review" not in marks.get(r.id, {})]
    first = before.marks(conn, project_id)
    for e in entries:  # "before": the first edit it governs in a session is stopped once with it (SPEC §4.11)
        if e["id"] in first or (before.PROJECT in first and e["anchors"]):
            e["before"] = True
    return {"v": VERSION, "project_id": project_id, "entries": entries, "index": index(entries)}


def index(entries: "list[dict[str, object]]") -> dict[str, list[int]]:
    """Bucket (`anchors.index_key`) -> the positions of the entries with an anchor or a guard pattern in it: the
    hook matches a tool call against the few entries its own keys name, not every anchored record."""
    from ..base import guards
    from ..base.anchors import index_key

    out: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        parsed = guards.parse(str(e.get("guard") or ""))
        keys = {index_key(a) for a in e["anchors"]}  # type: ignore[union-attr]
        if parsed is not None and parsed[0] == "never":
            keys |= {index_key(p) for p in parsed[2]}
        for key in sorted(keys):
            out.setdefault(key, []).append(i)
    return out


def write(conn: sqlite3.Connection, project_id: str) -> str | None:
    """Rewrite the project's map (atomically: a hook never reads half of one); remove it when there is nothing in
    it. Returns the path written, or None."""
    from ..base.models import GLOBAL_PROJECT

    if project_id == GLOBAL_PROJECT:
        return None  # global records reach each project's own map (freshness expands `_global`)
    data = build(conn, project_id)
    path = paths.anchor_map_file(project_id)
    if not data["entries"]:
        try:
            os.unlink(path)
        except OSError:
            pass
        return None
    from ..base.safeio import create_private

    paths.ensure_private_dir_str(os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = create_private(tmp)
    try:
        os.write(fd, jsonfast.dumps(data, ensure_ascii=False).encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


def read(project_id: str) -> list[dict[str, object]]:
    """The entries of a project's map; [] when it has none (or it cannot be read)."""
    try:
        with open(paths.anchor_map_file(project_id), "rb") as fh:
            data = jsonfast.loads(fh.read())
    except (OSError, ValueError):
        return []
    entries = data.get("entries") if isinstance(data, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


DECISIONS_READ_LIMIT = 2 * 1024 * 1024


def action_decisions() -> "dict[tuple[str, str], dict[str, object]]":
    """(session id, action key) -> what the pre-action hook delivered and why (its tool, the repository-relative
    files, and per record the anchor that matched or the guard's decision), from its recent log."""
    from ..base.safeio import read_tail

    try:
        raw, _ = read_tail(paths.action_decisions_file(), DECISIONS_READ_LIMIT)
    except OSError:
        return {}
    out: dict[tuple[str, str], dict[str, object]] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            row = jsonfast.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("key"), str):
            out[(str(row.get("session_id") or ""), row["key"])] = row
    return out
