"""The seven ctx_* tool handlers: each takes validated arguments and returns the structured result."""

from __future__ import annotations

import json
import sqlite3
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ..base import paths
from ..base.errors import AgentctxError
from ..base.ids import parse_iso
from ..base.models import NewRecord, Record
from ..base.project import Project
from ..base.tokens import SEARCH_LIMIT_MAX, SEARCH_RESULT_BUDGET, estimate
from ..memory import keep_digests_fresh
from ..store import db, graph, records, sessions

DEFAULT_LIMIT = 10
# ctx_search with `file`: rank this many candidates, then keep those linked to the file.
FILE_POOL = 60
RELATED_DEPTH = 3
PROFILE_TITLES = {"stack": "Stack", "commands": "Commands", "entry_points": "Entry points"}

keep_digests_fresh()  # records this surface writes rebuild the digests they change


@dataclass
class ToolContext:
    """What every handler shares for the life of one server: the project and one lazily opened connection."""

    project: Project
    session_id: str | None = None
    find_session: bool = False  # look the session up from the open-session markers (`session`)
    db_path: Path | None = None
    now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)
    _conn: sqlite3.Connection | None = field(default=None, repr=False)

    @property
    def conn(self) -> sqlite3.Connection:
        """The store, opened on first use (raises NotFoundError "run agentctx init" when it does not exist)."""
        if self._conn is None:
            self._conn = db.connect(self.db_path or paths.db_path())
        return self._conn

    def session(self) -> str | None:
        """The session this server serves: Claude Code names it; for another agent it is the open session its own
        agent process started (the SessionStart hook's marker), looked up when a record is written."""
        if self.session_id is None and self.find_session:
            from ..memory.open_sessions import session_of_client

            self.session_id = session_of_client(self.project.id)
        return self.session_id

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def age(recorded_at: str, now: datetime) -> str:
    """"5m", "3h", "2d", "1mo": the coarsest unit that is at least one, floored."""
    try:
        minutes = max(0, int((now - parse_iso(recorded_at)).total_seconds() // 60))
    except ValueError:
        return "?"
    if minutes < 60:
        return f"{minutes}m"
    if minutes < 24 * 60:
        return f"{minutes // 60}h"
    days = minutes // (24 * 60)
    return f"{days}d" if days < 30 else f"{days // 30}mo"


def index_entry(record: Record, score: float, now: datetime) -> dict[str, Any]:
    """The compact index form (SPEC §5), its title shortened until the entry fits SEARCH_RESULT_BUDGET tokens."""
    entry = {"id": record.id, "type": record.type, "title": record.title, "age": age(record.recorded_at, now),
             "confidence": record.confidence, "score": round(score, 3)}
    overhead = len(json.dumps({**entry, "title": ""}, separators=(",", ":"), ensure_ascii=False))
    room = SEARCH_RESULT_BUDGET * 4 - overhead
    if estimate(json.dumps(entry, separators=(",", ":"), ensure_ascii=False)) > SEARCH_RESULT_BUDGET:
        entry["title"] = record.title[: max(room - 1, 1)].rstrip() + "…"
    return entry


def resolve_file(project: Project, file: str) -> Path:
    """A file argument as the absolute path file nodes are named by (relative paths are from the project root)."""
    if "\0" in file:  # no file name holds one; os calls would raise ValueError
        from ..base.errors import ValidationError

        raise ValidationError("invalid_field", field="file", problem="contains a NUL character")
    path = Path(file).expanduser()
    if not path.is_absolute():
        path = project.root / path
    try:
        return path.resolve()
    except OSError:
        return path


def _file_node(ctx: ToolContext, file: str) -> tuple[Path, str | None]:
    resolved = resolve_file(ctx.project, file)
    node = graph.find_node(ctx.conn, ctx.project.id, "file", str(resolved))
    if node is None and not Path(file).is_absolute():  # a path recorded without resolving symlinks
        node = graph.find_node(ctx.conn, ctx.project.id, "file", str(ctx.project.root / file))
    return resolved, node


def _linked_ids(ctx: ToolContext, node: str) -> set[str]:
    linked = graph.related(ctx.conn, ctx.project.id, node, depth=RELATED_DEPTH, limit=FILE_POOL * 4)
    return {r.id for r in linked}


def ctx_search(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..retrieval import hybrid  # the embedder loads on the first search, once per server process

    limit = min(int(args.get("limit", DEFAULT_LIMIT)), SEARCH_LIMIT_MAX)
    types = (args["type"],) if args.get("type") else ()
    # "project" = this project's namespace only; absent = project + global (SPEC §5); "global" = `_global` only.
    scope = args.get("scope")
    linked: set[str] | None = None
    if args.get("file"):
        _, node = _file_node(ctx, args["file"])
        linked = _linked_ids(ctx, node) if node else set()
        if not linked:
            return {"results": [], "degraded": None}
    if args.get("as_of"):  # history (SPEC §3.5): what was current at that moment
        from ..memory.history import parse_as_of, search_as_of

        result = search_as_of(hybrid.search, ctx.conn, args["query"], ctx.project.id,
                              parse_as_of(args["as_of"], ctx.project.root_dir), types=types,
                              limit=FILE_POOL if linked is not None else limit, scope=scope)
    else:
        result = hybrid.search(ctx.conn, args["query"], ctx.project.id, types=types,
                               limit=FILE_POOL if linked is not None else limit, scope=scope)
    hits = [h for h in result.hits if linked is None or h.record.id in linked][:limit]
    now = ctx.now()
    from ..store import trust

    marks = trust.marks_for(ctx.conn, [h.record.id for h in hits])
    try:  # a search that returns a record uses it: it does not expire (SPEC §3.9)
        records.touch(ctx.conn, [h.record.id for h in hits])
    except Exception as exc:  # derived counters only: a busy store must not fail the read
        sys.stderr.write(f"agentctx mcp: access counters not updated: {exc}\n")
    from ..outside.native import loaded_by

    try:  # what an agent loads itself (its rule files, its memory): said, so it need not fetch it again
        loaders = loaded_by(ctx.conn, ctx.project.id, [h.record for h in hits])
    except Exception as exc:  # derived: a failure only leaves the entries unmarked
        sys.stderr.write(f"agentctx mcp: loaded-by marks skipped: {exc}\n")
        loaders = {}
    # The rank score (keyword, or fused with vectors), so entries read in the order they are listed.
    results = []
    for h in hits:
        entry = index_entry(_flagged(h.record, marks), h.score, now)
        if h.record.id in loaders:
            entry["loaded_by"] = loaders[h.record.id]
            entry["note"] = f"loaded by {', '.join(loaders[h.record.id])} itself"
        results.append(entry)
    return {"results": results, "degraded": result.degraded}


def _flagged(record: Record, marks: dict[str, dict[str, str]]) -> Record:
    """The record with what its marks say after its title: its code changed, or it waits for the user's review."""
    from ..store.trust import flag

    mark = marks.get(record.id, {})
    extra = (flag(mark["unverified"]) if "unverified" in mark else "") + \
        (" (waiting for review)" if "review" in mark else "")
    return record.replace(title=record.title + extra) if extra else record


def ctx_get(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    found: list[Record] = []
    missing: list[str] = []
    heads: dict[str, str] = {}
    for rid in dict.fromkeys(args["ids"]):
        try:  # a whole id, or the short forms people use (records.resolve)
            record: Record | None = records.resolve(ctx.conn, rid, ctx.project.id)
        except AgentctxError:
            record = None
        if record is None:
            missing.append(rid)
        elif not record.is_current:  # superseded facts never surface by default (SPEC §1.3); point at the head
            missing.append(rid)
            heads[rid] = records.head(ctx.conn, record).id
        else:
            found.append(record)
    try:
        records.touch(ctx.conn, [r.id for r in found])
    except Exception as exc:  # derived counters only: a busy store must not fail the read
        sys.stderr.write(f"agentctx mcp: access counters not updated: {exc}\n")
    out = []
    from ..store import trust

    marks = trust.marks_for(ctx.conn, [r.id for r in found])
    for r in found:
        item = r.to_dict()
        item["access_count"] += 1
        mark = {k: v for k, v in marks.get(r.id, {}).items() if k in ("unverified", "review")}
        if mark:
            item["marks"] = mark
        out.append(item)
    result: dict[str, Any] = {"records": out, "missing": missing, "heads": heads}
    if args.get("history"):  # every requested id the project can see, current or not, with its whole chain
        from ..memory.history import chain

        result["chains"] = {rid: [s.to_dict() for s in chain(ctx.conn, rid, ctx.project.id)]
                            for rid in dict.fromkeys(args["ids"]) if records.get(ctx.conn, rid, ctx.project.id)}
    return result


def _scrub(text: str) -> str:
    from ..base.redact import scrub_text

    return scrub_text(text)


def _root(ctx: ToolContext) -> str | None:
    """The repository an absolute anchor may point into (made relative to it)."""
    return getattr(ctx.project, "root_dir", None) or None


def ctx_record(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    body = records.with_rationale(_scrub(args["body"]), _scrub(args["rationale"]) if args.get("rationale") else None)
    new = NewRecord(type=args["type"], title=_scrub(args["title"]), body=body,
                    project_id=ctx.project.id, scope=args.get("scope", "project"), confidence="explicit",
                    source="mcp_tool", session_id=ctx.session(), questions=tuple(args.get("questions") or ()),
                    aliases=tuple(args.get("aliases") or ()),
                    anchors=records.anchor_items(args.get("anchors"), _root(ctx)))
    record, superseded = records.insert(ctx.conn, new, supersedes=args.get("supersedes"))
    from ..extract.later import expand_soon

    # Without questions and aliases: the expansion pass writes them in the background when a backend is on.
    expansion = expand_soon(record, _root(ctx))
    out = {"id": record.id, "type": record.type, "title": record.title, "scope": record.scope,
           "recorded_at": record.recorded_at, "superseded": [s.id for s in superseded]}
    if expansion == "off":
        out["note"] = ("found only by its own words: no LLM backend writes its questions and aliases; pass "
                       "`questions` and `aliases` to be found when someone asks in other words")
    return {**out, **_guard_kept(record)}


def _guard_kept(record: Any) -> dict[str, str]:
    """What the agent is told when it superseded a guarded record: the guard (and its anchors, the guard's scope)
    stayed on the new head, and only the user lifts it (SPEC §4.11)."""
    if not record.guard:
        return {}
    from ..base.guards import describe

    return {"guard": f"kept: {describe(record.guard)}, anchors {', '.join(record.anchors) or 'none'} unchanged; "
                     f"only the user lifts a guard (agentctx guard {record.id} --off, or the dashboard)"}


def ctx_supersede(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    title = _scrub(args["title"]) if args.get("title") else None
    old, new = records.supersede(ctx.conn, args["old_id"], ctx.project.id, body=_scrub(args["new_body"]),
                                 rationale=_scrub(args["rationale"]), source="mcp_tool", session_id=ctx.session(),
                                 questions=args.get("questions"), aliases=args.get("aliases"), title=title,
                                 refuse_outdated_title=True,
                                 anchors=None if args.get("anchors") is None
                                 else records.anchor_items(args["anchors"], _root(ctx)))
    return {"old_id": old.id, "new_id": new.id, "type": new.type, "title": new.title, **_guard_kept(new)}


def _bullets(body: str) -> list[str]:
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    return [line[2:].strip() if line.startswith("- ") else line for line in lines]


def ctx_project(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    profile = {r.title: r for r in records.current(ctx.conn, ctx.project.id, types=("profile",), own_only=True)}
    out: dict[str, Any] = {"name": ctx.project.name, "project_id": ctx.project.id, "root": str(ctx.project.root)}
    for key, title in PROFILE_TITLES.items():
        out[key] = _bullets(profile[title].body) if title in profile else None
    out["record_counts_by_type"] = records.counts_by_type(ctx.conn, ctx.project.id)
    out["last_session_at"] = sessions.stats(ctx.conn, ctx.project.id)["last_session_at"]
    return out


def ctx_related(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..retrieval import related

    resolved, node = _file_node(ctx, args["file"])
    try:
        root = Path(ctx.project.root).resolve()
    except OSError:
        root = Path(ctx.project.root)
    limit = min(int(args.get("limit", related.DEFAULT_LIMIT)), SEARCH_LIMIT_MAX)
    # Ranked by how each record is tied to the file (retrieval/related.py), not every record a walk reaches.
    ties = related.related(ctx.conn, ctx.project.id, resolved, root, node, limit=limit)
    now = ctx.now()
    return {"file": str(resolved), "results": [index_entry(t.record, t.score, now) for t in ties]}


def ctx_sync_claudemd(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..outside import drift

    # Read-only: no derived scores written, no file touched (SPEC §5).
    return drift.scan(ctx.conn, ctx.project, update_scores=False).to_dict()
