"""Ingest (SPEC §6): dedup verbatim and near-verbatim, reinforcement, supersession, handover, _global, flush."""

from __future__ import annotations

from agentctx.extract import validate
from agentctx.extract.ingest import ingest
from agentctx.base.models import NewRecord
from agentctx.store import records
from extract_support import answer

SAID = ("We store everything in SQLite, no server. Always use pytest for tests. "
        "Actually switch to Postgres for the server build. I prefer short commit messages everywhere.")


def _dec(what, evidence="We store everything in SQLite", confidence="explicit", supersedes=None):
    return {"what": what, "rationale": "", "supersedes": supersedes, "confidence": confidence, "evidence": evidence}


def _run(conn, pid, data, sid="s1", seen=None):
    return ingest(conn, validate.check(data, SAID), project_id=pid, session_id=sid, threshold=3,
                  reinforced=set() if seen is None else seen)


def test_writes_llm_records_with_session(conn, pid):
    out = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage")],
                                 active_work={"current_task": "Export", "blockers": [], "next_steps": ["tests"],
                                              "open_questions": []}))
    assert {r.type for r in out.written} == {"decision", "handover"}
    assert all(r.source == "llm_extraction" and r.session_id == "s1" for r in out.written)


def test_flush_writes_nothing(conn, pid):
    out = _run(conn, pid, {"flush_ok": True, "decisions": [_dec("Use SQLite for storage")]})
    assert out.written == [] and records.current(conn, pid) == []


def test_duplicates_dropped_in_session_reinforced_across_sessions(conn, pid):
    _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage", confidence="inferred")]))
    same = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage.", confidence="inferred")]))
    assert same.written == [] and same.dropped == [("decision", "duplicate")]
    seen: set[str] = set()
    other = _run(conn, pid, answer(decisions=[_dec("use sqlite for  storage", confidence="inferred")]), "s2", seen)
    again = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage", confidence="inferred")]), "s2", seen)
    (rec,) = records.current(conn, pid, types=["decision"])
    assert other.reinforced == [rec.id] and again.reinforced == [] and rec.reinforce_count == 1


def test_explicit_confirmation_reinforces_an_inferred_record(conn, pid):
    _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage", confidence="inferred")]))
    _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage")]))
    (rec,) = records.current(conn, pid, types=["decision"])
    assert rec.confidence == "reinforced"


def test_near_verbatim_against_existing_cli_record(conn, pid):
    records.insert(conn, NewRecord("decision", "Use SQLite for storage", "Use SQLite for storage", pid,
                                   confidence="explicit"))
    out = _run(conn, pid, answer(decisions=[_dec("Use SQLite for the storage")]))
    assert out.written == [] and len(records.current(conn, pid)) == 1


def test_supersedes_a_real_id_and_ignores_a_bogus_one(conn, pid):
    old, _ = records.insert(conn, NewRecord("decision", "Use SQLite everywhere", "Use SQLite everywhere", pid))
    out = _run(conn, pid, answer(decisions=[
        _dec("Use Postgres for the server build", "switch to Postgres for the server build", supersedes=old.id),
        _dec("Keep everything in one SQLite file", supersedes="01NOTAREALID0000000000000")]))
    assert len(out.written) == 2
    assert records.get(conn, old.id).superseded_by == out.written[0].id
    assert out.written[1].is_current


def test_supersedes_of_another_type_is_not_honoured(conn, pid):
    conv, _ = records.insert(conn, NewRecord("convention", "Use SQLite", "Use SQLite", pid))
    _run(conn, pid, answer(decisions=[_dec("Use Postgres for the server", "switch to Postgres for the server build",
                                           supersedes=conv.id)]))
    assert records.get(conn, conv.id).is_current


def test_global_preference_goes_to_global_and_is_visible(conn, pid):
    _run(conn, pid, answer(preferences=[{"category": "process", "rule": "Short commit messages", "scope": "global",
                                         "confidence": "explicit", "supersedes": None,
                                         "evidence": "I prefer short commit messages everywhere"}]))
    (rec,) = records.current(conn, pid, types=["preference"])
    assert rec.project_id == "_global" and rec.scope == "global"


def test_handover_replaced_by_the_next_session(conn, pid):
    work = {"current_task": "A", "blockers": [], "next_steps": ["x"], "open_questions": []}
    first = _run(conn, pid, answer(active_work=work)).written[0]
    second = _run(conn, pid, answer(active_work={**work, "current_task": "B"}), "s2").written[0]
    assert records.get(conn, first.id).superseded_by == second.id
    assert [r.title for r in records.current(conn, pid, types=["handover"])] == ["Handover: B"]
    assert _run(conn, pid, answer(active_work={**work, "current_task": "B"}), "s2").written == []


def test_extracted_records_reach_the_digest_in_one_rebuild(conn, pid, monkeypatch):
    from agentctx.memory import digest, keep_digests_fresh

    keep_digests_fresh()  # what the surfaces that run extraction register (alone, this file imports none of them)
    calls = []
    real = digest.refresh_after_write
    monkeypatch.setattr(digest, "refresh_after_write", lambda c, p: calls.append(p) or real(c, p))
    _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage"), _dec("Always use pytest for tests",
                                                                         evidence="Always use pytest for tests")],
                           active_work={"current_task": "Export", "blockers": [], "next_steps": ["tests"],
                                        "open_questions": []}))
    assert calls.count(pid) == 1  # (projects earlier tests changed may be rebuilt here too: none registered then)
    text = digest.read_text(pid)
    assert "Use SQLite for storage" in text and "Export" in text


def test_the_grounding_quote_is_kept_with_the_record(conn, pid):
    out = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage")]))
    rec = next(r for r in out.written if r.type == "decision")
    assert records.evidence(conn, rec.id) == "We store everything in SQLite"
    records.delete(conn, rec.id, pid)
    assert records.evidence(conn, rec.id) is None  # goes with its record


# How each record will be asked (issue 25): the extraction model writes questions and aliases in the same call.
# The answers below are written by hand in the shape the schema asks for.

def test_extracted_records_carry_their_questions_and_aliases(conn, pid):
    dec = {**_dec("Use SQLite for storage"), "questions": ["which database do we use?", "  ", 7, "why no server?"],
           "aliases": ["rdbms", "persistence", "x" * 81, "RDBMS"]}
    out = _run(conn, pid, answer(decisions=[dec]))
    (rec,) = [r for r in out.written if r.type == "decision"]
    assert rec.questions == ("which database do we use?", "why no server?")  # blanks, non-text dropped
    assert rec.aliases == ("rdbms", "persistence")  # too long and repeated dropped, never the entry
    assert records.get(conn, rec.id).questions == rec.questions


def test_an_answer_without_them_still_stores_the_entry(conn, pid):
    out = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage")]))
    (rec,) = [r for r in out.written if r.type == "decision"]
    assert rec.questions == () and rec.aliases == ()


def test_a_fact_seen_again_with_questions_gives_them_to_its_record(conn, pid):
    first = _run(conn, pid, answer(decisions=[_dec("Use SQLite for storage")]))
    (rec,) = [r for r in first.written if r.type == "decision"]
    again = {**_dec("Use SQLite for storage"), "questions": ["which database do we use?"], "aliases": ["rdbms"]}
    _run(conn, pid, answer(decisions=[again]), sid="s2")
    got = records.get(conn, rec.id)
    assert got.is_current and got.questions == ("which database do we use?",) and got.aliases == ("rdbms",)


def test_the_schema_asks_for_them_on_every_entry_kind():
    from agentctx.extract.prompt import SCHEMA, SYSTEM

    for kind in ("decisions", "preferences", "conventions", "gotchas"):
        item = SCHEMA["properties"][kind]["items"]
        assert item["properties"]["questions"]["items"] == {"type": "string"}
        assert {"questions", "aliases"} <= set(item["required"])
    assert '"questions"' in SYSTEM and '"aliases"' in SYSTEM


def test_an_extraction_superseding_a_guard_keeps_it_with_its_scope(conn, pid):
    from agentctx.base import guards
    from agentctx.store import guardlog

    old, _ = records.insert(conn, NewRecord(type="decision", title="Use SQLite for storage", body="SQLite, no server.",
                                            project_id=pid, confidence="explicit", source="cli",
                                            anchors=("command:git push",)))
    stored = guards.make("always", ["command:make test"], record_anchors=old.anchors)
    records.set_guard(conn, old.id, pid, stored)
    out = _run(conn, pid, answer(decisions=[
        _dec("Use Postgres for the server build", "switch to Postgres for the server build", supersedes=old.id)]))
    new = [r for r in out.written if r.type == "decision"][0]
    assert records.get(conn, old.id).superseded_by == new.id
    assert new.guard == stored and new.anchors == ("command:git push",)
    assert guardlog.changes(conn, [new.id])[new.id][0]["by"] == "llm_extraction"
