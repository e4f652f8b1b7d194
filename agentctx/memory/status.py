"""`agentctx status`: what the store holds for this project and what it has cost."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from ..base import config, extras, paths
from ..base.models import GLOBAL_PROJECT, RECORD_TYPES
from ..base.project import Project
from ..store import db, records, sessions
from . import pending


def report(conn: sqlite3.Connection, project: Project) -> dict[str, Any]:
    """Counts by type, sessions, tokens injected, extraction cost, recent injections and the retrieval rung."""
    pending.drain_pending(conn)  # ledger rows the hooks appended to a file since the last drain
    counts = records.counts_by_type(conn, project.id)
    # Only what the project can see: a `_global` row scoped "project" is invisible (SPEC §3.4).
    global_counts = records.counts_by_type(conn, GLOBAL_PROJECT, scope="global")
    settings = config.load()
    recent = sessions.injections(conn, project.id, limit=5)
    return {
        "project": {"name": project.name, "id": project.id, "root": str(project.root), "remote": project.remote},
        "database": str(paths.db_path()),
        "records": {t: counts.get(t, 0) for t in RECORD_TYPES},
        "records_total": sum(counts.values()),
        "global_records": sum(global_counts.values()),
        **sessions.stats(conn, project.id),
        "sessions_by_agent": sessions.by_agent(conn, project.id),
        "recent_injections": [
            {"session_id": i.session_id, "event": i.event, "records": list(i.record_ids), "tokens": i.tokens,
             "at": i.created_at}
            for i in recent
        ],
        "retrieval": "fts5" if db.has_fts(conn) else "like-search (degraded)",
        "llm": llm_off_reason(settings) is None,
        "llm_off_reason": llm_off_reason(settings),
        "extraction": extraction_state(conn, settings),
        "extras": (found := {name: extras.installed(name) for name in extras.REQUIREMENTS}),
        # The command that adds each missing extra to this installation (README: status names it).
        "extras_install": {name: extras.install_command(name) for name, ok in found.items() if not ok},
        "control": control_state(project),
        "trust": trust_state(conn, project.id, settings),
        "agent_memory": _agent_memory(conn, project),
        "same_repository": _same_repository(conn, project),
    }


def _same_repository(conn: sqlite3.Connection, project: Project) -> list[dict[str, Any]]:
    """The other project ids that are this repository (memory.identity), each with the line that says so."""
    from . import identity

    try:
        return [{**s._asdict(), "line": identity.describe(s)} for s in identity.observe(conn, project)]
    except (OSError, sqlite3.Error):
        return []


def trust_state(conn: sqlite3.Connection, project_id: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What can be trusted now (SPEC §3.9): records whose code changed, records waiting for review, and what expired
    unused (the last few, with why)."""
    from ..store import trust

    counts = trust.count_marked(conn, project_id)
    expired = trust.marked(conn, project_id, "expired", current=False, limit=5)
    return {**counts, "expire_after_days": settings["expireInferredDays"], "inferred": settings["inferred"],
            "recently_expired": [{"id": r.id, "title": r.title, "reason": why, "at": at} for r, why, at in expired]}


def _agent_memory(conn: sqlite3.Connection, project: Project) -> list[dict[str, Any]]:
    from ..outside import agentmem

    try:
        return agentmem.state(conn, project)
    except sqlite3.Error:  # a store that cannot answer: status still reports the rest
        return []


def llm_off_reason(settings: dict[str, Any]) -> str | None:
    """Why LLM extraction will not run (None when it will): the setting, or no backend (no key or extra for the API,
    no Claude Code CLI)."""
    from ..extract.backend import choose

    choice = choose(settings)
    if choice.on:
        return None
    if choice.reason.startswith("the [llm] extra") or "extra is not installed" in choice.reason:
        return f"{choice.reason} ({extras.describe('llm')})"
    return choice.reason


def extraction_state(conn: sqlite3.Connection, settings: dict[str, Any]) -> dict[str, Any]:
    """Which extraction backend runs and why, whether it is paused, and its calls and tokens per day."""
    from ..extract import quota
    from ..extract.backend import choose
    from ..store import extraction

    choice = choose(settings)
    return {"backend": choice.backend, "reason": choice.reason, "claude": choice.claude,
            "paused": quota.paused() if choice.backend == "claude-code" else None,
            "fix": quota.fix() if choice.backend == "claude-code" else None,
            "calls_per_hour_limit": settings["extractionCallsPerHour"] if choice.backend == "claude-code" else None,
            "per_day": extraction.per_day(conn)}


def control_state(project: Project) -> dict[str, Any]:
    """Whether agentctx is on for this project, and why not (docs/control.md)."""
    from ..base import control

    reason, notify = control.check(project.id, str(project.root))
    return {"enabled": reason is None, "reason": reason, "detail": control.describe(reason),
            "mode": control.settings()[0], "notify": notify}


def _extraction_line(e: dict[str, Any], off_reason: str | None = None) -> str:
    if e["backend"] == "off":
        return f"extraction off: {off_reason or e['reason']}"
    line = f"extraction  {e['backend']}: {e['reason']}"
    if e.get("calls_per_hour_limit"):
        line += f"; at most {e['calls_per_hour_limit']} calls an hour"
    if e.get("paused"):
        line += f"; {e['paused']}" + (f"; fix: {e['fix']}" if e.get("fix") else "")
    return line


def render(data: dict[str, Any]) -> str:
    p = data["project"]
    lines = [f"project   {p['name']}  ({p['remote'] or p['root']})", f"id        {p['id'][:16]}…",
             *(f"          {s['line']}" for s in data.get("same_repository") or ()),
             f"agentctx  {data['control']['detail']}",
             *([f"claude    {data['claude_code']['line']}"] if data.get("claude_code") else []),
             f"database  {data['database']}", f"retrieval {data['retrieval']}", "", "records"]
    for type_, n in data["records"].items():
        lines.append(f"  {type_:<12} {n}")
    lines.append(f"  {'total':<12} {data['records_total']}  (+{data['global_records']} global)")
    lines += [
        "",
        f"sessions  {data['sessions']}" + (f", last {data['last_session_at']}" if data["last_session_at"] else "")
        + (" (" + ", ".join(f"{agent} {n}" for agent, n in data["sessions_by_agent"].items()) + ")"
           if data.get("sessions_by_agent") else ""),
        *([f"agents    wired: " + ", ".join(a + (" (not installed here)" if a in data.get("agents_not_installed", ())
                                               else "") for a in data["agents"])] if data.get("agents") else []),
        f"injected  {data['tokens_injected']} tokens injected in {data['injections']} injections",
        f"extraction cost  ${data['extraction_cost_usd']:.4f}",
        _extraction_line(data["extraction"], data.get("llm_off_reason")),  # the off reason, once
        *(f"  {d['day']}  {d['backend']:<12} " + ("expansion: " if d.get("purpose") == "expand" else "")
          + f"{d['calls']} call(s), {d['input_tokens']:,} tokens in, "
          f"{d['output_tokens']:,} out, ${d['cost_usd']:.4f}" + (f", {d['failed_runs']} failed" if d["failed_runs"] else "")
          for d in data["extraction"]["per_day"]),
        "extras    " + "  ".join(f"[{name}] {'yes' if ok else 'no'}" for name, ok in data["extras"].items()),
        *(f"  add [{name}]: {command}" for name, command in data.get("extras_install", {}).items()),
    ]
    t = data.get("trust")
    if t:
        days = t["expire_after_days"]
        lines += ["", f"trust     {t['unverified']} unverified (code changed), {t['review']} waiting for review "
                      f"(inferred: {t['inferred']}), {t['expired']} expired unused"
                      + (f" (after {days} days)" if days else " (expiry off)")
                  + ("; agentctx review" if t["unverified"] or t["review"] else "")]
        for e in t["recently_expired"]:
            lines.append(f"  expired {e['at'][:10]}  {e['title'][:60]}  ({e['reason']}; restore: agentctx review "
                         f"--yes --restore {e['id'][-8:]})")
    if data.get("agent_memory"):
        from ..outside import agentmem

        lines += agentmem.render(data["agent_memory"])
    if data["recent_injections"]:
        lines += ["", "recent injections (agentctx why for details)"]
        for inj in data["recent_injections"]:
            lines.append(f"  {inj['at']}  {inj['event']:<16} {len(inj['records'])} records, {inj['tokens']} tokens")
    return "\n".join(lines)
