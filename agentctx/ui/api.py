"""The dashboard's JSON API: one handler per route, each calling the same library functions as the CLI."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable

from ..base import __version__
from ..base.errors import AgentctxError, ConflictError, NotFoundError, UsageError, ValidationError
from ..base.models import CONFIDENCES, GLOBAL_PROJECT, RECORD_TYPES, SOURCES, Record
from ..base.project import Project
from ..memory import keep_digests_fresh
from ..store import browse, records

TEXT_MAX = 20_000
SEARCH_MAX = 50  # the deepest `agentctx search --limit` goes  # bodies are capped at BODY_MAX by the store; this bounds what we even parse

keep_digests_fresh()  # records this surface writes rebuild the digests they change


class ApiError(Exception):
    """An HTTP error with a stable code; the server answers `{"error": message, "code": code}`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass
class Request:
    """One API call: the store, the project the dashboard was opened for, query parameters and the JSON body."""

    conn: sqlite3.Connection
    project: Project
    params: dict[str, list[str]]
    body: dict[str, Any] = field(default_factory=dict)
    args: tuple[str, ...] = ()

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.params.get(name)
        return values[-1] if values else default

    def many(self, name: str, allowed: tuple[str, ...]) -> list[str]:
        out = [v for raw in self.params.get(name, []) for v in raw.split(",") if v]
        for value in out:
            if value not in allowed:
                raise ApiError(400, "invalid_field", f"{name} {value!r} is not one of {', '.join(allowed)}")
        return out

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        raw = self.param(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ApiError(400, "invalid_field", f"{name} must be an integer") from None
        if not low <= value <= high:
            raise ApiError(400, "invalid_field", f"{name} must be between {low} and {high}")
        return value

    def text(self, name: str, *, required: bool = True) -> str | None:
        value = self.body.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise ApiError(400, "blank_field", f"{name} must not be blank")
            return None
        if not isinstance(value, str):
            raise ApiError(400, "invalid_field", f"{name} must be a string")
        if len(value) > TEXT_MAX:
            raise ApiError(400, "field_too_long", f"{name} is {len(value)} characters; the limit is {TEXT_MAX}")
        return value

    @property
    def scope(self) -> str:
        """The namespace a list view reads: the dashboard's project unless the page picked another."""
        return self.param("project") or self.project.id


def record_json(record: Record) -> dict[str, Any]:
    from ..base.guards import describe

    data = record.to_dict()
    data["current"] = record.is_current
    data["guard_text"] = describe(record.guard)  # "" for every record that is not a guard
    return data


def _record(req: Request) -> Record:
    """The record named in the path, from any namespace (the dashboard is the user's own view of the whole store)."""
    try:  # a whole id, or a short form (records.resolve: the same rule as the CLI and MCP)
        return records.resolve(req.conn, req.args[0])
    except AgentctxError as exc:
        if exc.code == "ambiguous_id":  # a link names one record: several is the caller's to narrow
            raise ApiError(400, exc.code, str(exc)) from None
        raise ApiError(404, "record_not_found", f"no record {req.args[0]!r}") from None


def meta(req: Request) -> dict[str, Any]:
    from ..base.roots import names

    # The store knows projects by id only: name each from the root cache the hooks read, the opened one by its checkout.
    named = {**names(), req.project.id: req.project.name}
    return {
        "version": __version__,
        "project": {"id": req.project.id, "name": req.project.name, "root": str(req.project.root)},
        "projects": [{**p, "name": named.get(p["id"])} for p in browse.projects(req.conn)],
        "global_id": GLOBAL_PROJECT,
        "types": list(RECORD_TYPES), "confidences": list(CONFIDENCES), "sources": list(SOURCES),
    }


def list_records(req: Request) -> dict[str, Any]:
    offset = req.integer("offset", 0, 0, 10_000_000)
    limit = req.integer("limit", 50, 1, browse.MAX_PAGE)
    superseded = req.param("superseded", "exclude")
    if superseded not in ("exclude", "include", "only"):
        raise ApiError(400, "invalid_field", "superseded must be exclude, include or only")
    pinned_raw = req.param("pinned")
    pinned = None if pinned_raw in (None, "") else pinned_raw in ("1", "true", "yes")
    types = req.many("type", RECORD_TYPES)
    confidences = req.many("confidence", CONFIDENCES)
    sources = req.many("source", SOURCES)
    query = (req.param("q") or "").strip()
    if query:
        return _search(req, query, types, confidences, sources, pinned, superseded, offset, limit)
    total, rows = browse.list_records(req.conn, req.scope, types=types, confidences=confidences, sources=sources,
                                      pinned=pinned, superseded=superseded, offset=offset, limit=limit)
    return {"total": total, "offset": offset, "limit": limit, "items": [_row(r) for r in rows]}


def _row(record: Record, **extra: Any) -> dict[str, Any]:
    body = record.body
    return {"id": record.id, "project_id": record.project_id, "type": record.type, "title": record.title,
            "summary": body[:160] + ("…" if len(body) > 160 else ""), "confidence": record.confidence,
            "source": record.source, "pinned": record.pinned, "current": record.is_current,
            "recorded_at": record.recorded_at, **extra}


def _search(req: Request, query: str, types: list[str], confidences: list[str], sources: list[str],
            pinned: bool | None, superseded: str, offset: int, limit: int) -> dict[str, Any]:
    """The ranking of `agentctx search` (hybrid when the store has vectors), then the page's other filters."""
    from ..retrieval import hybrid

    if len(query) > 2000:
        raise ApiError(400, "field_too_long", "q is longer than 2000 characters")
    project_id = req.project.id if req.scope in (browse.ALL_PROJECTS,) else req.scope
    # Rank only as deep as the page asked for (as `agentctx search --limit` does, at most its 50).
    depth = min(SEARCH_MAX, offset + limit + 1)  # one more than the page: is there a next page?
    # The interactive rule of `agentctx search` (SPEC §7.6): relevant hits hide generic matches; `all=1` lifts it.
    every = req.param("all") in ("1", "true", "yes")
    result = hybrid.search(req.conn, query, project_id, types=types, limit=depth, history=superseded != "exclude",
                           relevant=0.0 if every else hybrid.INTERACTIVE_FLOOR, lazy=0 if every else hybrid.LAZY_MIN,
                           cut=0.0 if every else hybrid.CUT)
    hits = [h for h in result.hits
            if (not confidences or h.record.confidence in confidences)
            and (not sources or h.record.source in sources)
            and (pinned is None or h.record.pinned == pinned)
            and (superseded != "only" or not h.record.is_current)]
    page = hits[offset:offset + limit]
    more = len(hits) > offset + limit
    return {"total": min(len(hits), offset + limit), "more": more, "offset": offset, "limit": limit, "query": query,
            "degraded": result.degraded,
            "terms": list(result.terms),
            "items": [_row(h.record, score=round(h.score, 3), relevance=round(h.relevance, 3)) for h in page]}


def get_record(req: Request) -> dict[str, Any]:
    record = _record(req)
    from ..memory.history import chain as history_chain
    from ..store import sessions

    # Each version with its own "why" (memory.history: the team import's note, its own rationale, or none for the
    # first): the page read it out of each body, and a teammate's version showed the previous step's rationale.
    steps = history_chain(req.conn, record.id, record.project_id)
    from ..store.guardlog import changes

    guard_changes = changes(req.conn, [s.record.id for s in steps])

    return {
        "record": record_json(record),
        # which agent's session wrote it (Claude Code, Codex CLI, Gemini CLI), when its session says
        "agent": sessions.agents_of(req.conn, [record.session_id]).get(record.session_id or ""),
        "evidence": records.evidence(req.conn, record.id),
        "provenance": _provenance(req, record.id),
        # who made, changed, lifted or kept each version's guard (store/guardlog.py, SPEC §4.11)
        "history": [{**record_json(s.record), "rationale": s.rationale, "guard_changes": guard_changes.get(s.record.id, [])}
                    for s in steps],
        "entities": browse.entities(req.conn, record.id),
        "linked": [{"rel": rel, **_row(r)} for rel, r in browse.linked_records(req.conn, record.id)],
        "appearances": browse.appearances(req.conn, record.id),
        # what it earned (SPEC §4.11): injected at prompts and at actions, followed, ignored, fetched, tokens
        "uses": sessions.record_uses(req.conn, record.project_id).get(record.id),
        "marks": _marks_of(req, record),
        # marked "before": the first edit it governs in a session is stopped once with it (SPEC §4.11)
        "before": _before(req, record),
    }


def _before(req: Request, record: Record) -> bool:
    from ..store import before

    marked = before.marks(req.conn, record.project_id)
    return record.id in marked or (before.PROJECT in marked and bool(record.anchors))


def set_before(req: Request) -> dict[str, Any]:
    """Mark a record "before" ({"on": true}) or not ({"on": false}); the CLI's `agentctx before ID [--off]`."""
    from ..store import before

    record = _record(req)
    if not record.is_current:
        raise ApiError(400, "invalid_field", "a superseded record: mark its current version")
    if not isinstance(req.body.get("on"), bool):
        raise ApiError(400, "invalid_field", "on must be true or false")
    before.set_mark(req.conn, record.project_id, record.id, req.body["on"])
    return {"record": record_json(record), "before": _before(req, record)}


def _marks_of(req: Request, record: Record) -> dict[str, dict[str, str]]:
    """The record's marks (SPEC §3.9): unverified (why), waiting for review, expired (why), merged (into what)."""
    from ..store import trust

    return trust.marks_detail(req.conn, record.id)


def _provenance(req: Request, record_id: str) -> list[dict[str, Any]]:
    """The agents' own memory lines a record came from (outside.agentmem): agent, file, line, still there or not."""
    from ..agents import LABELS
    from ..store import agentmem

    return [{"agent": LABELS.get(p.agent, p.agent), "path": p.path, "line": p.line, "first_seen": p.first_seen,
             "last_seen": p.last_seen, "gone_at": p.gone_at} for p in agentmem.provenance(req.conn, record_id)]


def supersede(req: Request) -> dict[str, Any]:
    record = _record(req)
    body = req.text("body")
    rationale = req.text("rationale")
    title = req.text("title", required=False)
    old, new = records.supersede(req.conn, record.id, record.project_id, body=body or "", rationale=rationale,
                                 title=title, source="dashboard")
    return {"old": record_json(old), "new": record_json(new)}


def confirm(req: Request) -> dict[str, Any]:
    record = _record(req)
    from ..store import trust

    confirmed = records.confirm(req.conn, record.id, record.project_id)
    trust.clear_mark(req.conn, record.id, "review")  # the user's confirmation is the review (SPEC §3.9)
    return {"record": record_json(confirmed)}


def restore(req: Request) -> dict[str, Any]:
    """Bring back a record that expired unused (SPEC §3.9)."""
    from ..store import trust

    record = _record(req)
    return {"record": record_json(trust.restore(req.conn, record.id, record.project_id))}


def inbox(req: Request) -> dict[str, Any]:
    """What needs the user (SPEC §3.9): records waiting for review, unverified ones with the evidence, ones about
    to expire, and what expired; of the page's namespace."""
    from ..memory import review
    from ..store import trust

    items = [{**_row(r), "note": why} for r, why in review.inbox(req.conn, req.scope)]
    expired = [{**_row(r), "note": why, "at": at} for r, why, at in trust.marked(req.conn, req.scope, "expired",
                                                                               current=False, limit=50)]
    return {"items": items, "expired": expired}


def pin(req: Request) -> dict[str, Any]:
    record = _record(req)
    value = req.body.get("pinned", True)
    if not isinstance(value, bool):
        raise ApiError(400, "invalid_field", "pinned must be true or false")
    return {"record": record_json(records.set_pinned(req.conn, record.id, record.project_id, value))}


def asked(req: Request) -> dict[str, Any]:
    """Set how a record will be asked, in place (no new version: its fact does not change). A missing field is kept."""
    record = _record(req)
    fields: dict[str, list[str] | None] = {}
    for name in ("questions", "aliases"):
        value = req.body.get(name)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise ApiError(400, "invalid_field", f"{name} must be a list of strings")
        fields[name] = value
    if not record.is_current:
        raise ApiError(409, "already_superseded", "only the current version of a record is searched: edit that one")
    return {"record": record_json(records.set_asked(req.conn, record.id, record.project_id, **fields))}


def anchors(req: Request) -> dict[str, Any]:
    """Set what a record governs, in place (index data: no new version)."""
    record = _record(req)
    value = req.body.get("anchors")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(400, "invalid_field", "anchors must be a list of strings")
    if not record.is_current:
        raise ApiError(409, "already_superseded", "only the current version of a record governs anything")
    return {"record": record_json(records.set_anchors(req.conn, record.id, record.project_id, value,
                                                            by="dashboard"))}


def guard(req: Request) -> dict[str, Any]:
    """Make a record a guard ({"mode": "never"|"always", "patterns": [...], "decision": "ask"|"deny"}) or stop
    ({"off": true}): only the user does this, and never for an inferred record."""
    from ..base import guards

    record = _record(req)
    if req.body.get("off") is True:
        return {"record": record_json(records.set_guard(req.conn, record.id, record.project_id, "", by="dashboard"))}
    patterns = req.body.get("patterns")
    if not isinstance(patterns, list) or not all(isinstance(v, str) for v in patterns):
        raise ApiError(400, "invalid_field", "patterns must be a list of strings")
    try:
        stored = guards.make(str(req.body.get("mode") or ""), patterns, str(req.body.get("decision") or "ask"),
                             record_anchors=record.anchors)
    except guards.GuardError as exc:
        raise ApiError(400, "invalid_field", f"guard refused: {exc}") from None
    return {"record": record_json(records.set_guard(req.conn, record.id, record.project_id, stored,
                                                          by="dashboard"))}


def stats(req: Request) -> dict[str, Any]:
    """Per record: what it was injected for and what it earned (`agentctx stats`), most tokens first."""
    from ..store import sessions

    _drain(req)
    uses = sessions.record_uses(req.conn, req.scope) if req.scope != browse.ALL_PROJECTS else {}
    rows = []
    for rid, u in sorted(uses.items(), key=lambda kv: (-kv[1]["tokens"], kv[0]))[: req.integer("limit", 50, 1, 500)]:
        rec = records.get(req.conn, rid)
        followed, used = sessions.earned(u)
        rows.append({"id": rid, "title": rec.title if rec else "(deleted)", "guard": bool(rec and rec.guard), **u,
                     "followed": followed, "never_used": not used})
    arrival = sessions.arrival_by_agent(req.conn, req.scope) if req.scope != browse.ALL_PROJECTS else {}
    return {"items": rows, "arrival": arrival}


def delete(req: Request) -> dict[str, Any]:
    record = _record(req)
    if req.body.get("confirm") is not True:
        raise ApiError(400, "not_confirmed", "delete needs {\"confirm\": true}")
    gone = records.delete(req.conn, record.id, record.project_id)
    return {"deleted": gone.id}


def _drain(req: Request) -> None:
    """Bring in the ledger rows the hooks appended to a file, as `status` and `why` do."""
    from ..memory import pending
    from ..store import sessions

    pending.drain_pending(req.conn)


def list_sessions(req: Request) -> dict[str, Any]:
    _drain(req)
    offset = req.integer("offset", 0, 0, 10_000_000)
    limit = req.integer("limit", 50, 1, browse.MAX_PAGE)
    total, rows = browse.sessions(req.conn, req.scope, offset=offset, limit=limit)
    if req.scope != browse.ALL_PROJECTS:  # what each session cost, by channel and by source (`stats --sessions`)
        from ..store import sessions

        costs = {c["session_id"]: c for c in sessions.session_costs(req.conn, req.scope, offset + limit)}
        for row in rows:
            cost = costs.get(row.get("session_id"))
            if cost is not None:
                row["channels"], row["sources"] = cost["channels"], cost["sources"]
    return {"total": total, "offset": offset, "limit": limit, "items": rows}


def get_session(req: Request) -> dict[str, Any]:
    _drain(req)
    info = browse.session(req.conn, req.args[0])
    if info is None:
        raise ApiError(404, "session_not_found", f"no session {req.args[0]!r}")
    titles: dict[str, Record | None] = {}
    for inj in info["injections"]:
        for rid in inj["record_ids"]:
            if rid not in titles:
                titles[rid] = records.get(req.conn, rid)
        inj["records"] = [
            {"id": rid, "score": inj["scores"][i] if i < len(inj["scores"]) else None,
             "type": titles[rid].type if titles[rid] else None,
             "title": titles[rid].title if titles[rid] else "(deleted)"}
            for i, rid in enumerate(inj["record_ids"])]
    info["written"] = [_row(r) for r in info["written"]]
    info["timeline"] = _timeline(req, info)
    return info


def _timeline(req: Request, info: dict[str, Any]) -> list[dict[str, Any]]:
    """The session in order: each SessionStart digest with the records it carried, and each prompt, as the user
    typed it (scrubbed), with what was injected for it, its threshold and its near misses, or, when nothing was
    injected, the best candidates the prompt hook logged (`agentctx why`). A prompt, its ledger row and its
    decisions-log line share the prompt's hash; the same words asked twice pair up in order.

    Also sets the older fields: each injection's `threshold` and `near_misses`, and `uninjected_prompts`."""
    from ..retrieval import explain

    logged = explain.recent(req.conn, info.get("project_id") or req.project.id, session_id=info["session_id"],
                            limit=500)
    decisions: dict[str, list[dict[str, Any]]] = {}
    for row in reversed(logged):  # oldest first, as the prompts and the injections are
        decisions.setdefault(str(row.get("prompt_hash")), []).append(row)
    injected: dict[str, list[dict[str, Any]]] = {}
    for inj in info["injections"]:
        if inj["event"] != "SessionStart" and inj.get("prompt_hash"):
            injected.setdefault(inj["prompt_hash"], []).append(inj)

    def take(queues: dict[str, list[dict[str, Any]]], key: str | None) -> dict[str, Any] | None:
        queue = queues.get(str(key)) if key else None
        return queue.pop(0) if queue else None

    def entry(at: str | None, key: str | None, text: str | None, chars: int | None,
              inj: dict[str, Any] | None, row: dict[str, Any] | None) -> dict[str, Any]:
        cands = [_candidate(c) for c in (row.get("candidates") or ()) if isinstance(c, dict)] if row else []
        if inj is not None:
            inj["threshold"] = row.get("threshold") if row else None
            inj["near_misses"] = [c for c in cands if not c["injected"]]
        return {"kind": "prompt", "at": at or (inj or row or {}).get("at"), "prompt_hash": key, "text": text,
                "chars": chars if chars is not None else (row.get("prompt_chars") if row else None),
                "tokens": inj["tokens"] if inj else 0, "records": inj["records"] if inj else [],
                "prompt_class": row.get("prompt_class") if row else None,
                "threshold": row.get("threshold") if row else None,
                "near_misses": [c for c in cands if not c["injected"]], "logged": row is not None}

    out = [entry(p["at"], p["prompt_hash"], p["text"], p["chars"], take(injected, p["prompt_hash"]),
                 take(decisions, p["prompt_hash"])) for p in info["prompts"]]
    # Ledger rows and logged decisions of prompts whose words were not kept (a store from before they were).
    for inj in [i for queue in injected.values() for i in queue]:
        out.append(entry(None, inj["prompt_hash"], None, None, inj, take(decisions, inj["prompt_hash"])))
    for key, queue in decisions.items():
        out.extend(entry(None, key, None, None, None, row) for row in queue)
    info["uninjected_prompts"] = [
        {"at": e["at"], "prompt_hash": e["prompt_hash"], "prompt_chars": e["chars"], "text": e["text"],
         "prompt_class": e["prompt_class"], "threshold": e["threshold"], "candidates": e["near_misses"]}
        for e in out if e["logged"] and not e["records"]]
    out += [{"kind": "digest", "at": inj["at"], "tokens": inj["tokens"], "records": inj["records"]}
            for inj in info["injections"] if inj["event"] == "SessionStart"]
    for inj in info["injections"]:
        inj.setdefault("threshold", None)
        inj.setdefault("near_misses", [])
    return sorted(out, key=lambda e: str(e["at"] or ""))  # stable: pairs logged at the same instant keep their order


def _candidate(cand: dict[str, Any]) -> dict[str, Any]:
    # `passed` without `injected`: relevant, but already in front of the model this session (the dedup), no near miss.
    return {"id": cand.get("id"), "type": cand.get("type"), "title": cand.get("title"), "p": cand.get("p"),
            "injected": bool(cand.get("injected")), "passed": bool(cand.get("passed")), "reason": cand.get("reason")}


def explain_query(req: Request) -> dict[str, Any]:
    """`agentctx search --explain`: what the prompt hook would inject for `q`, each candidate against its threshold."""
    from ..hooks.prompt import select
    from ..retrieval import explain

    query = (req.param("q") or "").strip()
    if not query:
        raise ApiError(400, "blank_field", "q must not be blank")
    if len(query) > 2000:
        raise ApiError(400, "field_too_long", "q is longer than 2000 characters")
    project_id = req.project.id if req.scope == browse.ALL_PROJECTS else req.scope
    rows = explain.explain(req.conn, query, project_id, select)  # the hook's own selection, as the CLI's
    return {"query": query, "prompt_class": rows[0]["prompt_class"] if rows else None,
            "threshold": rows[0]["threshold"] if rows else None, "candidates": rows}


def overview(req: Request) -> dict[str, Any]:
    from ..base import config
    from ..memory.status import extraction_state

    _drain(req)
    # Extraction calls are the user's (a Claude Code subscription's quota is): every project's, whatever the scope.
    from ..memory.status import trust_state

    settings = config.load()
    return {**browse.overview(req.conn, req.scope), "extraction": extraction_state(req.conn, settings),
            "trust": trust_state(req.conn, req.scope, settings), "agent_memory": _agent_memory(req)}


def _agent_memory(req: Request) -> list[dict[str, Any]]:
    """Per agent, what its own memory holds for the dashboard's project and what came from it (outside.agentmem)."""
    from ..outside import agentmem

    try:
        return agentmem.state(req.conn, req.project)
    except Exception:  # the overview stands without it
        return []


def graph(req: Request) -> dict[str, Any]:
    return browse.graph(req.conn, req.scope, limit=req.integer("limit", 300, 1, 1000))


def _drift_project(req: Request) -> Project:
    scope = req.param("project") or req.body.get("project")
    if scope not in (None, "", req.project.id):
        raise ApiError(400, "invalid_field", "drift is only available for the project the dashboard was opened in")
    return req.project


def _drift_file(req: Request) -> str:
    """Which instruction file (CLAUDE.md unless `file` names AGENTS.md or GEMINI.md)."""
    from ..outside.claudemd import INSTRUCTION_FILES

    name = req.param("file") or req.body.get("file") or "CLAUDE.md"
    if name not in INSTRUCTION_FILES:
        raise ApiError(400, "invalid_field", f"file must be one of {', '.join(INSTRUCTION_FILES)}")
    return str(name)


def drift_report(req: Request) -> dict[str, Any]:
    from ..outside import drift

    project = _drift_project(req)
    report = drift.scan(req.conn, project, name=_drift_file(req))
    # the instruction files this repository has (CLAUDE.md always): the view offers one tab each, as `sync` reviews
    available = [r.name for r in drift.scan_all(req.conn, project)]
    return {**report.to_dict(), "target": report.target, "base_sha": report.base_sha, "file": report.name,
            "available": available}


def drift_apply(req: Request) -> dict[str, Any]:
    from ..outside import drift

    name = _drift_file(req)
    report = drift.scan(req.conn, _drift_project(req), name=name)
    if req.body.get("confirm") is not True:
        raise ApiError(400, "not_confirmed", f"applying the {name} change needs {{\"confirm\": true}}")
    if not report.proposed_diff:
        raise ApiError(409, "nothing_to_apply", f"{name} already reflects every current decision and convention")
    if req.body.get("base_sha", report.base_sha) != report.base_sha:
        raise ApiError(409, "stale_diff", f"{name} or the records changed since the diff was shown: reload it")
    target, backup = drift.apply(report)
    return {"target": str(target), "backup": str(backup) if backup else None}


Handler = Callable[[Request], dict[str, Any]]

# (method, path pattern) -> handler; "*" matches one path segment and is passed on as an argument.
ROUTES: dict[tuple[str, str], Handler] = {
    ("GET", "/api/meta"): meta,
    ("GET", "/api/records"): list_records,
    ("GET", "/api/explain"): explain_query,
    ("GET", "/api/records/*"): get_record,
    ("POST", "/api/records/*/supersede"): supersede,
    ("POST", "/api/records/*/confirm"): confirm,
    ("POST", "/api/records/*/pin"): pin,
    ("POST", "/api/records/*/restore"): restore,
    ("GET", "/api/inbox"): inbox,
    ("POST", "/api/records/*/asked"): asked,
    ("POST", "/api/records/*/anchors"): anchors,
    ("POST", "/api/records/*/guard"): guard,
    ("POST", "/api/records/*/before"): set_before,
    ("GET", "/api/stats"): stats,
    ("POST", "/api/records/*/delete"): delete,
    ("GET", "/api/sessions"): list_sessions,
    ("GET", "/api/sessions/*"): get_session,
    ("GET", "/api/overview"): overview,
    ("GET", "/api/graph"): graph,
    ("GET", "/api/drift"): drift_report,
    ("POST", "/api/drift/apply"): drift_apply,
}


def route(method: str, path: str) -> tuple[Handler, tuple[str, ...]] | None:
    """The handler for a request and the path segments its wildcards matched; None when nothing matches."""
    parts = path.rstrip("/").split("/")
    for (m, pattern), handler in ROUTES.items():
        pat = pattern.split("/")
        if m != method or len(pat) != len(parts):
            continue
        args = []
        for want, got in zip(pat, parts):
            if want == "*":
                if not got or len(got) > 200:
                    break
                args.append(got)
            elif want != got:
                break
        else:
            return handler, tuple(args)
    return None


def allowed_methods(path: str) -> list[str]:
    return sorted({m for m in ("GET", "POST") if route(m, path)})


def error_status(exc: AgentctxError) -> int:
    """The HTTP status for a library error."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    if isinstance(exc, (ValidationError, UsageError)):
        return 400
    return 500
