"""`agentctx consolidate`: final extraction, session wrap-up, lifecycle, decay, duplicates, expansion, the digest."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from datetime import datetime, timezone
from pathlib import Path

from ..base import config, freshness, paths
from ..base.errors import NotFoundError
from ..base.ids import now_iso, parse_iso
from ..base.models import NewRecord
from ..base.project import Project
from ..store import db, records, sessions
from ..store import capture as capture_sql
from . import digest, pending
from . import keep_digests_fresh

keep_digests_fresh()  # this module writes records: their digests are rebuilt after each write

# Half-life in days of the derived `score` by type; None = does not decay (SPEC §3.2 lifecycle column).
HALF_LIFE_DAYS: dict[str, float | None] = {"decision": None, "convention": None, "profile": None, "preference": 180.0,
                                           "discovery": 30.0, "bugfix": 30.0, "handover": 7.0}
SCORE_FLOOR = 0.05


def _final_extraction(session_id: str, transcript: str | None, cwd: str) -> str:
    """Run the last extraction pass first, so the digest sees the newest handover (the original raced here)."""
    if not transcript:
        return "skipped (no transcript)"
    from ..extract.backend import choose

    choice = choose()
    if not choice.on:
        return f"skipped (extraction off: {choice.reason})"
    try:
        from ..extract import run as extract_run  # type: ignore[attr-defined]
    except ImportError:
        return "skipped (extraction not installed)"
    extract_run(session_id, transcript, cwd=cwd, final=True)
    return "done"


def wrap_session(conn: sqlite3.Connection, project: Project, session_id: str, transcript: str | None) -> list[str]:
    """Link the session's files to its records; write a rule-based handover when no richer one came from it."""
    from . import snapshot
    from .capture import log_path, read_log

    done = []
    log = read_log(session_id)
    linked = _link_files(conn, project.id, session_id, log)
    if linked:
        done.append(f"linked {linked} files to the session's records")
    current = records.current(conn, project.id, types=["handover"], own_only=True, limit=1)
    # A handover the developer or the extraction wrote is richer than a rule-based snapshot: keep it when it is
    # this session's own. Any current handover stays when this session has no working state of its own (no files,
    # branch, commits, tests, errors): it holds the last real working state (snapshot.handover_body).
    rich = bool(current) and current[0].source != "hook_observation"
    if not (rich and current[0].session_id == session_id):
        body = snapshot.handover_body(snapshot.recent_prompts(transcript) if transcript else [], log,
                                      when=f"at session end, {now_iso()}",
                                      current=current[0].body if current else None, current_is_snapshot=not rich,
                                      root=project.root_dir)
        if body:
            records.insert(conn, NewRecord(type="handover", title="Handover: end-of-session snapshot", body=body,
                                           project_id=project.id, source="hook_observation", session_id=session_id))
            done.append("rule-based handover written")
    try:
        Path(log_path(session_id)).unlink(missing_ok=True)
        Path(paths.compact_file(session_id)).unlink(missing_ok=True)  # a compaction no SessionStart followed
    except OSError:
        pass
    return done


def _link_files(conn: sqlite3.Connection, project_id: str, session_id: str, log: list[dict[str, object]]) -> int:
    """Files the session wrote, linked to every record it produced (extraction runs after the edits) or was shown."""
    from ..store import graph

    files = list(dict.fromkeys(str(e["path"]) for e in log if e.get("kind") == "file" and e.get("path")))
    # What the session wrote, and what was in front of the agent while it edited them (the ledger's injections).
    ids = list(dict.fromkeys(capture_sql.session_record_ids(conn, project_id, session_id)
                             + capture_sql.injected_ids(conn, project_id, session_id)))
    if not files or not ids:
        return 0
    nodes = [graph.upsert_node(conn, project_id, "file", f) for f in files]
    capture_sql.link_all(conn, ids, nodes)
    return len(nodes)


def decay(conn: sqlite3.Connection, project_id: str | None, now: datetime | None = None) -> int:
    """Recompute the derived score: max(floor, 2^(-age/half-life)); pinned and non-decaying types stay at 1."""
    now = now or datetime.now(timezone.utc)
    updates = []
    for rid, type_, recorded_at, pinned, old in capture_sql.decay_inputs(conn, project_id):
        half = HALF_LIFE_DAYS.get(type_)
        score = 1.0
        if half and not pinned:
            try:
                age = max(0.0, (now - parse_iso(recorded_at)).total_seconds() / 86400)
            except ValueError:
                age = 0.0
            score = max(SCORE_FLOOR, 0.5 ** (age / half))
        if old is None or abs(float(old) - score) > 1e-9:
            updates.append((score, rid))
    capture_sql.set_scores(conn, updates)
    return len(updates)


def dedup(conn: sqlite3.Connection, project_id: str) -> int:
    """Fold verbatim duplicates (case and spacing aside) into the oldest copy, counting each as a sighting."""
    folded = 0
    now = now_iso()
    for group in capture_sql.duplicate_groups(conn, project_id):
        keep = group[0]
        for dup in group[1:]:
            capture_sql.fold_duplicate(conn, keep, dup, now)
            folded += 1
    return folded


def _vectors(conn: sqlite3.Connection, project_id: str) -> object:
    """Embedding backfill (time-bounded) and near-duplicates, when the [vectors] extra and a model are there."""
    cfg = config.load()
    if not cfg["embeddings"]:
        return "skipped (embeddings off)"
    try:
        from ..retrieval.vectors import Unavailable, maintain
    except ImportError:
        return "skipped (vectors not installed)"
    try:
        return maintain.run(conn, project_id, reinforce_threshold=int(cfg["reinforceThreshold"]))
    except Unavailable as exc:
        return f"skipped ({exc.reason}; fix: {exc.fix})"


def run(project: Project, *, session_id: str | None = None, transcript: str | None = None,
        rebuild: bool = False, close_stale: bool = True) -> dict[str, object]:
    """One consolidation pass for `project` (with `rebuild`: every project, from scratch). Needs the network only for
    the final extraction and the expansion pass, and only when an LLM backend is on.

    With `close_stale`, sessions that ended without SessionEnd are closed first (`close_stale_sessions`)."""
    report: dict[str, object] = {"project_id": project.id}
    if close_stale:
        closed = close_stale_sessions(exclude=session_id or "")
        if closed:
            report["stale_sessions_closed"] = closed
    try:
        conn = db.connect(paths.db_path())
    except NotFoundError:
        conn = None
    early = 0
    try:
        if session_id:
            if conn is not None:  # the session's end and its rows first: recorded whatever the extraction does
                early = pending.drain_pending(conn)
            report["extraction"] = _final_extraction(session_id, transcript, str(project.root))
        if conn is None:
            report["skipped"] = "no store: run `agentctx init`"
            return report
        with freshness.deferred(conn):  # one digest rebuild per touched project, at the end
            _steps(conn, project, report, session_id=session_id, transcript=transcript, rebuild=rebuild)
        report["ledger_rows_drained"] = early + int(report.get("ledger_rows_drained") or 0)  # type: ignore[call-overload]
    finally:
        if conn is not None:
            conn.close()
    return report


def close_stale_sessions(*, exclude: str = "", now: "float | None" = None) -> "list[dict[str, object]]":
    """Run the end-of-session work of every stale session: ended_at (its last activity), the ledger drain, the
    handover and the rest of consolidation (`run` with the session and its transcript). One report each."""
    from ..base.ids import to_iso
    from ..base.project import Project, detect
    from . import pending
    from .open_sessions import claim, expired_claims, last_activity, stale_markers

    now = time.time() if now is None else now
    if not os.path.exists(paths.db_file()):
        return []
    done: list[dict[str, object]] = []
    for marker in stale_markers(now, exclude=exclude) + expired_claims(now):
        ended = to_iso(datetime.fromtimestamp(last_activity(marker), timezone.utc))  # before the claim touches it
        claimed = claim(marker)
        if claimed is None:
            continue  # another process is closing it, or its SessionEnd came after all
        sid, cwd = marker["session_id"], str(marker.get("cwd") or "")
        transcript = marker.get("transcript_path") if isinstance(marker.get("transcript_path"), str) else ""
        report: dict[str, object] = {"session_id": sid, "ended_at": ended}
        try:
            project = detect(cwd) if cwd and os.path.isdir(cwd) else None
            if project is None or project.id != marker.get("project_id"):
                project = Project(id=str(marker.get("project_id")), name=os.path.basename(cwd) or "?",
                                  root_dir=cwd or os.getcwd(), remote=None)
            conn = db.connect(paths.db_file())
            try:
                pending.drain_pending(conn)  # its SessionStart row first: started_at stays the real one
                sessions.end(conn, sid, project.id, at=ended)
            finally:
                conn.close()
            report.update(run(project, session_id=sid, transcript=transcript or None,
                                          close_stale=False))
            os.unlink(claimed)
        except Exception as exc:  # one session's failure must not keep the others open; its claim is retried later
            report["error"] = f"{type(exc).__name__}: {exc}"
        done.append(report)
    return done


def describe(report: dict[str, object]) -> list[str]:
    """A consolidation report for a person: what changed, in words; steps that did nothing are left out (the
    whole report, zeros and Nones included, is `--json`)."""
    plural = lambda n, one, many: f"{n} {one if n == 1 else many}"  # noqa: E731
    counts = {"ledger_rows_drained": ("ledger row brought in", "ledger rows brought in"),
              "records_rescrubbed": ("record scrubbed again under new secret rules",
                                     "records scrubbed again under new secret rules"),
              "reinforced": ("inferred record now reinforced", "inferred records now reinforced"),
              "scores_updated": ("record score updated", "record scores updated"),
              "duplicates_folded": ("duplicate folded", "duplicates folded"),
              "term_stats": ("common search term counted", "common search terms counted"),
              "digests_rebuilt": ("digest rebuilt", "digests rebuilt"),
              "own_errors_retired": ("error stub of agentctx's own command retired",
                                     "error stubs of agentctx's own commands retired")}
    lines = []
    for key, value in report.items():
        if key == "project_id" or value is None or value is False or value == 0 or value == [] or value == {}:
            continue
        if key in counts and isinstance(value, int) and not isinstance(value, bool):
            lines.append(plural(value, *counts[key]))
        elif key == "digest_tokens":
            lines.append(f"the next SessionStart digest: {value} tokens")
        elif key == "stale_sessions_closed" and isinstance(value, list):
            lines.append(plural(len(value), "session left open closed", "sessions left open closed"))
        elif key == "rule_files" and isinstance(value, dict):
            from ..outside.rulefiles import describe as describe_rules

            lines.extend(describe_rules(value))
        elif key == "merged" and isinstance(value, dict):
            if value.get("merged"):
                lines.append(plural(int(value["merged"]), "near-duplicate merged", "near-duplicates merged"))  # type: ignore[arg-type]
        elif key == "verification" and isinstance(value, dict):
            from ..trust.verify import describe as describe_verification

            if value.get("checked") or value.get("fingerprinted"):
                lines.append(describe_verification(value))
        elif key == "expiry" and isinstance(value, dict):
            if value.get("expired"):
                lines.append(plural(int(value["expired"]), "unused inferred record expired (restorable)",  # type: ignore[arg-type]
                                    "unused inferred records expired (restorable)"))
        elif key == "expansion" and isinstance(value, dict):
            lines.append(f"expansion: {value['summary']}")
        elif key == "decisions_log_trimmed":
            lines.append("the prompt decisions log trimmed")
        elif isinstance(value, str) and value.startswith("skipped"):
            lines.append(f"{key.replace('_', ' ')}: {value}")
        elif key == "same_repository" and isinstance(value, list):
            lines.extend(str(v) for v in value)
        elif key == "session" and isinstance(value, list):
            lines.extend(str(v) for v in value)
        else:
            lines.append(f"{key.replace('_', ' ')}: {value}")
    return lines or ["nothing to do"]


def _rescrub(conn: sqlite3.Connection) -> int | str | None:
    """Records stored before the secret rules last changed are scrubbed again (once per change, whole store)."""
    from ..store.redaction import rescrub_store

    try:
        return rescrub_store(conn)
    except (sqlite3.Error, OSError) as exc:  # retried at the next consolidation: the stamp is written last
        return f"skipped ({exc})"


def _steps(conn: sqlite3.Connection, project: Project, report: dict[str, object], *, session_id: str | None,
           transcript: str | None, rebuild: bool) -> None:
    report["ledger_rows_drained"] = pending.drain_pending(conn)
    report["records_rescrubbed"] = _rescrub(conn)
    if session_id:
        report["session"] = wrap_session(conn, project, session_id, transcript)
    report["agent_memory"] = _agent_memory(conn, project)  # before dedup and the digest: they see what it brought
    report["reinforced"] = capture_sql.promote_reinforced(conn, int(config.load()["reinforceThreshold"]))
    report["scores_updated"] = decay(conn, None if rebuild else project.id)
    report["duplicates_folded"] = dedup(conn, project.id)
    from .capture.stubs import retire_own_errors

    report["own_errors_retired"] = retire_own_errors(conn, project.id)
    report["rule_files"] = _rule_files(conn, project)
    report["same_repository"] = _same_repository(conn, project)
    report["expansion"] = _expansion(conn, project)  # before the term statistics: it adds words to the index
    report["term_stats"] = _term_stats(conn)
    report["vectors"] = _vectors(conn, project.id)
    report["merged"] = _merge(conn, project.id, report["vectors"])
    report["verification"] = _verify(conn, project)
    report["expiry"] = _expire(conn, project.id)
    report["decisions_log_trimmed"] = _trim_decisions_log()
    if rebuild:
        shutil.rmtree(paths.digests_dir(), ignore_errors=True)
        if db.has_fts(conn):
            capture_sql.rebuild_fts(conn)
        others = [pid for pid in capture_sql.project_ids(conn) if pid != project.id]
        for pid in others:
            digest.refresh(conn, pid)
        report["digests_rebuilt"] = len(others) + 1
    data = digest.refresh(conn, project.id, project=project)
    report["digest_tokens"] = data["tokens"]


def _merge(conn: sqlite3.Connection, project_id: str, vectors: object) -> dict[str, object]:
    """Near-duplicates merged by supersession (trust/merge.py), with the vector step's cosine pairs when it ran."""
    from ..trust import merge

    pairs = vectors.get("near_duplicates", []) if isinstance(vectors, dict) else []
    cosine = [(p["newer"], p["older"], float(p["similarity"])) for p in pairs if isinstance(p, dict)]  # type: ignore[union-attr]
    return merge.run(conn, project_id, cosine_pairs=cosine)


def _same_repository(conn: sqlite3.Connection, project: Project) -> "list[str] | str | None":
    """How this checkout is seen (memory.identity), and the other project ids that are this repository, in words;
    never fails consolidation."""
    from . import identity

    try:
        return [identity.describe(s) for s in identity.observe(conn, project)] or None
    except (OSError, sqlite3.Error) as exc:
        return f"skipped ({type(exc).__name__}: {exc})"


def _verify(conn: sqlite3.Connection, project: Project) -> object:
    """Records checked against the code (trust/verify.py); never fails consolidation."""
    from ..trust import verify

    try:
        return verify.run(conn, project)
    except (OSError, sqlite3.Error) as exc:
        return f"skipped ({type(exc).__name__}: {exc})"


def _expire(conn: sqlite3.Connection, project_id: str) -> object:
    from ..trust import expiry

    return expiry.run(conn, project_id)


def _expansion(conn: sqlite3.Connection, project: Project) -> dict[str, object] | str | None:
    """Questions and aliases for a few batches of the project's records stored without them, when an LLM backend is
    on (extract/expand.py); None when there is no backend or nothing was due. Never raises: the records wait."""
    from dataclasses import asdict

    from ..extract.backend import choose

    settings = config.load()
    if not choose(settings).on or not settings["expansionRecordsPerDay"]:
        return None  # `status` says why no backend runs; nothing to add here
    try:
        from ..extract import expand

        result = expand.run(conn, project.id, max_batches=expand.CONSOLIDATE_BATCHES, settings=settings)
    except Exception as exc:  # consolidation goes on; the next pass sends these records again
        from ..extract.log import log

        log(f"expand: failed in consolidation: {type(exc).__name__}: {exc}")
        return f"skipped ({type(exc).__name__}: {exc})"
    if result.skipped == "nothing_due":
        return None
    return {**asdict(result), "summary": expand.describe(result)}


def _rule_files(conn: sqlite3.Connection, project: Project) -> dict[str, object] | str | None:
    """The repository's own rules for agents read as anchored records (outside/rulefiles.py); None when the project
    has none. Never raises: a failure waits for the next pass."""
    from ..outside.rulefiles import sync

    try:
        report = sync(conn, project)
    except (OSError, sqlite3.Error) as exc:
        return f"skipped ({type(exc).__name__}: {exc})"
    return report if report["files"] or report["retired"] else None


def _agent_memory(conn: sqlite3.Connection, project: Project) -> str | None:
    """What changed in the agents' own memory files since the last pass (outside.agentmem); None when nothing did.
    A file that could not be read whole is one line in the extraction log; never raises."""
    from ..extract.log import log
    from ..outside import agentmem

    try:
        result = agentmem.sync(conn, project)
    except Exception as exc:  # consolidation goes on; the next pass reads the files again
        log(f"agent memory: failed: {type(exc).__name__}: {exc}")
        return f"skipped ({type(exc).__name__}: {exc})"
    for problem in result.problems:
        log(f"agent memory: {problem}")
    return agentmem.describe(result) if result.changed() else None


def _trim_decisions_log() -> bool:
    """Keep the prompt hook's decisions log (`agentctx why`) bounded: it is appended to on every prompt."""
    from ..retrieval.explain import trim_log

    return trim_log()


def _term_stats(conn: sqlite3.Connection) -> int | str:
    """Refresh the common terms' document counts that search reads instead of counting (derived)."""
    from ..retrieval.search import TERM_STATS_MIN
    from ..store import retrieval

    try:
        return retrieval.refresh_term_stats(conn, TERM_STATS_MIN)
    except sqlite3.OperationalError as exc:  # no FTS5: search runs on LIKE and needs no statistics
        return f"skipped ({exc})"
