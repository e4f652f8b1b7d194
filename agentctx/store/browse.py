"""Read-side queries for the dashboard: filtered, paginated record lists, sessions, daily totals and the graph."""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Sequence

from ..base.models import GLOBAL_PROJECT, Record
from . import COLUMNS, CURRENT, VISIBLE, to_record

ALL_PROJECTS = "_all"
MAX_PAGE = 200


def _scope(project_id: str) -> tuple[str, list[object]]:
    """What one dashboard view may see: one project with the global records, `_global` alone, or everything."""
    if project_id == ALL_PROJECTS:
        return "1", []
    if project_id == GLOBAL_PROJECT:
        return "project_id = '_global'", []
    return VISIBLE, [project_id]


def projects(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every namespace that holds records, with its current and total counts, largest first."""
    rows = conn.execute(
        f"SELECT project_id, sum({CURRENT}), count(*), max(recorded_at) FROM records "
        "GROUP BY project_id ORDER BY 2 DESC, 1"
    )
    return [{"id": pid, "current": int(cur or 0), "total": int(total), "last_recorded_at": last}
            for pid, cur, total, last in rows]


def list_records(conn: sqlite3.Connection, project_id: str, *, types: Sequence[str] = (),
                 confidences: Sequence[str] = (), sources: Sequence[str] = (), pinned: bool | None = None,
                 superseded: str = "exclude", offset: int = 0, limit: int = 50) -> tuple[int, list[Record]]:
    """One page of records (newest first) and how many match in all; `superseded` is exclude | include | only."""
    where, args = _scope(project_id)
    clauses = [where]
    for column, values in (("type", types), ("confidence", confidences), ("source", sources)):
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    if pinned is not None:
        clauses.append("pinned = ?")
        args.append(int(pinned))
    if superseded == "exclude":
        clauses.append(CURRENT)
    elif superseded == "only":
        clauses.append("superseded_at IS NOT NULL")
    sql_where = " AND ".join(clauses)
    total = conn.execute(f"SELECT count(*) FROM records WHERE {sql_where}", args).fetchone()[0]
    limit = max(1, min(int(limit), MAX_PAGE))
    # Newest first is insertion order (recorded_at is stamped at insert): walking the table backwards by rowid needs
    # no sort, so the first page reads about `limit` rows however large the store is.
    rows = conn.execute(f"SELECT {COLUMNS} FROM records WHERE {sql_where} ORDER BY rowid DESC LIMIT ? OFFSET ?",
                        [*args, limit, max(0, int(offset))])
    return int(total), [to_record(r) for r in rows]


def entities(conn: sqlite3.Connection, record_id: str) -> list[dict[str, str]]:
    """The files, branches and symbols a record is linked to."""
    rows = conn.execute("SELECT n.id, n.kind, n.name FROM record_entities re JOIN nodes n ON n.id = re.entity_id "
                        "WHERE re.record_id = ? ORDER BY n.kind, n.name", (record_id,))
    return [{"id": i, "kind": k, "name": n} for i, k, n in rows]


def linked_records(conn: sqlite3.Connection, record_id: str, limit: int = 20) -> list[tuple[str, Record]]:
    """Records joined to this one by an edge (either direction) other than its own supersession chain."""
    rows = conn.execute(
        f"SELECT e.rel_type, {', '.join('r.' + c.strip() for c in COLUMNS.split(','))} FROM edges e "
        "JOIN records r ON r.id = CASE WHEN e.from_id = ? THEN e.to_id ELSE e.from_id END "
        "WHERE (e.from_id = ? OR e.to_id = ?) AND e.rel_type != 'supersedes' LIMIT ?",
        (record_id, record_id, record_id, limit))
    return [(row[0], to_record(row[1:])) for row in rows]


def appearances(conn: sqlite3.Connection, record_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The injections that carried this record (newest first). The ledger stores ids as JSON arrays."""
    rows = conn.execute("SELECT session_id, event, tokens, created_at FROM injections WHERE record_ids LIKE ? "
                        "ORDER BY id DESC LIMIT ?", (f'%"{record_id}"%', limit))
    return [{"session_id": s, "event": e, "tokens": t, "at": a} for s, e, t, a in rows]


def sessions(conn: sqlite3.Connection, project_id: str, *, offset: int = 0, limit: int = 50) -> tuple[int, list[dict[str, Any]]]:
    """Sessions of a project, newest first, with what the user asked first, what was injected into them and what
    extraction wrote."""
    where, args = ("1", []) if project_id == ALL_PROJECTS else ("s.project_id = ?", [project_id])
    total = conn.execute(f"SELECT count(*) FROM sessions s WHERE {where}", args).fetchone()[0]
    rows = conn.execute(
        f"SELECT s.session_id, s.project_id, s.started_at, s.ended_at, s.tokens_injected, s.extraction_cost_usd, "
        "(SELECT count(*) FROM injections i WHERE i.session_id = s.session_id AND instr(i.event, '/') = 0), "
        "(SELECT count(*) FROM records r WHERE r.session_id = s.session_id), "
        "(SELECT count(*) FROM prompts p WHERE p.session_id = s.session_id), "
        "(SELECT substr(p.text, 1, 200) FROM prompts p WHERE p.session_id = s.session_id ORDER BY p.id LIMIT 1), "
        "s.agent "
        f"FROM sessions s WHERE {where} ORDER BY s.started_at DESC LIMIT ? OFFSET ?",
        [*args, max(1, min(int(limit), MAX_PAGE)), max(0, int(offset))])
    return int(total), [
        {"session_id": sid, "project_id": pid, "started_at": st, "ended_at": en, "tokens_injected": tok or 0,
         "extraction_cost_usd": round(float(cost or 0), 6), "injections": n_inj, "records_written": n_rec,
         "prompts": n_asked, "first_prompt": first, "agent": agent}
        for sid, pid, st, en, tok, cost, n_inj, n_rec, n_asked, first, agent in rows]


def session(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    """One session: its row, every injection (oldest first), the records written in it and what the user asked."""
    row = conn.execute("SELECT session_id, project_id, started_at, ended_at, tokens_injected, extraction_cost_usd, "
                       "agent FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    injected = conn.execute("SELECT event, prompt_hash, record_ids, scores, tokens, created_at FROM injections "
                            "WHERE session_id = ? ORDER BY id", (session_id,)).fetchall()
    if row is None and not injected:
        return None
    written = [to_record(r) for r in conn.execute(f"SELECT {COLUMNS} FROM records WHERE session_id = ? "
                                                  "ORDER BY recorded_at, id", (session_id,))]
    info: dict[str, Any] = {"session_id": session_id}
    if row:
        info.update(project_id=row[1], started_at=row[2], ended_at=row[3], tokens_injected=row[4] or 0,
                    extraction_cost_usd=round(float(row[5] or 0), 6), agent=row[6])
    info["injections"] = [
        {"event": e, "prompt_hash": ph, "record_ids": json.loads(ids), "scores": json.loads(sc), "tokens": t, "at": at}
        for e, ph, ids, sc, t, at in injected]
    info["written"] = written
    info["prompts"] = [{"prompt_hash": ph, "text": text, "chars": chars, "at": at} for ph, text, chars, at in conn.execute(
        "SELECT prompt_hash, text, chars, created_at FROM prompts WHERE session_id = ? ORDER BY id", (session_id,))]
    return info


def overview(conn: sqlite3.Connection, project_id: str, days: int = 30) -> dict[str, Any]:
    """Current records by type, confidence and source, and per day (UTC, the newest `days` with activity): tokens
    injected, injections, extraction cost and records written. One pass over the records table."""
    where, args = _scope(project_id)
    groups: dict[str, dict[str, int]] = {"by_type": {}, "by_confidence": {}, "by_source": {}}
    out: dict[str, dict[str, Any]] = {}

    def day(d: str) -> dict[str, Any]:
        return out.setdefault(d, {"day": d, "tokens": 0, "injections": 0, "cost_usd": 0.0, "records": 0})

    for type_, conf, source, d, current, n in conn.execute(
            f"SELECT type, confidence, source, substr(recorded_at, 1, 10), {CURRENT}, count(*) FROM records "
            f"WHERE {where} GROUP BY 1, 2, 3, 4, 5", args):
        day(d)["records"] += n
        if current:
            for key, value in (("by_type", type_), ("by_confidence", conf), ("by_source", source)):
                groups[key][value] = groups[key].get(value, 0) + n
    own, own_args = ("1", []) if project_id == ALL_PROJECTS else ("project_id = ?", [project_id])
    for d, tokens, n in conn.execute(f"SELECT substr(created_at, 1, 10), sum(tokens), "
                                     f"sum(instr(event, '/') = 0) FROM injections WHERE {own} GROUP BY 1", own_args):
        day(d).update(tokens=int(tokens or 0), injections=n)
    for d, cost in conn.execute(f"SELECT substr(started_at, 1, 10), sum(extraction_cost_usd) FROM sessions "
                                f"WHERE {own} GROUP BY 1", own_args):
        if d:
            day(d)["cost_usd"] = round(float(cost or 0), 6)
    ordered = {k: dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))) for k, v in groups.items()}
    return {**ordered, "daily": sorted(out.values(), key=lambda r: r["day"])[-days:]}


def graph(conn: sqlite3.Connection, project_id: str, *, limit: int = 300) -> dict[str, list[dict[str, Any]]]:
    """Current records (newest `limit`), the entities they link to, and the edges between all of them."""
    where, args = _scope(project_id)
    recs = conn.execute(f"SELECT id, type, title FROM records WHERE {where} AND {CURRENT} "
                        "ORDER BY rowid DESC LIMIT ?", [*args, max(1, min(int(limit), 1000))]).fetchall()
    ids = [r[0] for r in recs]
    nodes: list[dict[str, Any]] = [{"id": i, "kind": "record", "type": t, "label": title} for i, t, title in recs]
    links: list[dict[str, Any]] = []
    if not ids:
        return {"nodes": nodes, "links": links}
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS _ui_ids (id TEXT PRIMARY KEY)")
    try:
        conn.execute("DELETE FROM temp._ui_ids")
        conn.executemany("INSERT OR IGNORE INTO temp._ui_ids VALUES (?)", [(i,) for i in ids])
        seen: set[str] = set(ids)
        for rid, nid, kind, name in conn.execute(
                "SELECT re.record_id, n.id, n.kind, n.name FROM record_entities re JOIN nodes n ON n.id = re.entity_id "
                "WHERE re.record_id IN (SELECT id FROM temp._ui_ids)"):
            if nid not in seen:
                seen.add(nid)
                nodes.append({"id": nid, "kind": kind, "label": name})
            links.append({"source": rid, "target": nid, "rel": "applies_to"})
        for src, dst, rel in conn.execute(
                "SELECT from_id, to_id, rel_type FROM edges WHERE from_id IN (SELECT id FROM temp._ui_ids) "
                "AND to_id IN (SELECT id FROM temp._ui_ids)"):
            links.append({"source": src, "target": dst, "rel": rel})
    finally:
        conn.execute("DROP TABLE IF EXISTS temp._ui_ids")
    return {"nodes": nodes, "links": links}
