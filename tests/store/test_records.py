"""Records: validated inserts, namespace rules, supersession (SPEC §3.5), keyed types, pins, reinforcement, deletes."""

from __future__ import annotations

import re

import pytest

from agentctx.base import ids
from agentctx.base.errors import ConflictError, NotFoundError, ValidationError
from agentctx.base.models import GLOBAL_PROJECT, NewRecord
from agentctx.store import graph, records, sessions

P = "p" * 64
Q = "q" * 64


def count(conn, where="1"):
    return conn.execute(f"SELECT count(*) FROM records WHERE {where}").fetchone()[0]


def current_ids(conn, project_id=P, **kw):
    return [r.id for r in records.current(conn, project_id, **kw)]


# --- insert and validation -------------------------------------------------------------------------------------

def test_new_record_defaults(conn, new):
    record, superseded = records.insert(conn, new())
    assert superseded == []
    assert re.match(r"^[0-9A-Z]{26}$", record.id)
    assert record.valid_from == record.recorded_at
    assert record.confidence == "inferred" and record.scope == "project" and record.source == "cli"
    assert record.pending_embedding is True
    assert record.is_current and record.superseded_by is None
    assert record.reinforce_count == 0 and record.access_count == 0 and not record.pinned
    assert record.project_id == P
    assert records.get(conn, record.id) == record


@pytest.mark.parametrize("change, code", [
    ({"type_": "memo"}, "invalid_type"),
    ({"scope": "team"}, "invalid_scope"),
    ({"confidence": "high"}, "invalid_confidence"),
    ({"source": "manual"}, "invalid_source"),
    ({"title": ""}, "blank_field"),
    ({"title": "   \n\t"}, "blank_field"),
    ({"body": ""}, "blank_field"),
    ({"body": "  \n "}, "blank_field"),
    ({"title": "x" * 121}, "field_too_long"),
    ({"body": "y" * 2001}, "field_too_long"),
    ({"project_id": ""}, "blank_field"),
    ({"valid_from": "last tuesday"}, "invalid_field"),
])
def test_invalid_records_are_rejected_with_nothing_written(conn, new, change, code):
    with pytest.raises(ValidationError) as info:
        records.insert(conn, new(**change))
    assert info.value.code == code
    assert info.value.exit_code == 65
    assert count(conn) == 0
    assert conn.execute("SELECT count(*) FROM records_fts_docsize").fetchone()[0] == 0


def test_limits_are_inclusive(conn, new):
    record, _ = records.insert(conn, new(title="t" * 120, body="b" * 2000))
    assert len(record.title) == 120 and len(record.body) == 2000


def test_limits_apply_after_normalising_whitespace(conn, new):
    record, _ = records.insert(conn, new(title="  spaced   out\ttitle \n", body="\n  body  \n"))
    assert record.title == "spaced out title"
    assert record.body == "body"
    records.insert(conn, new(title=" " * 50 + "t" * 120 + " " * 50, body=" " * 100 + "b" * 2000 + "\n" * 10))


@pytest.mark.parametrize("type_", ["decision", "convention", "preference", "discovery", "bugfix", "handover", "profile"])
def test_all_seven_types_are_accepted(conn, new, type_):
    assert records.insert(conn, new(type_=type_))[0].type == type_


def test_valid_from_is_kept_when_given(conn, new):
    record, _ = records.insert(conn, new(valid_from="2023-01-01T00:00:00Z"))
    assert record.valid_from == "2023-01-01T00:00:00Z"
    assert record.recorded_at > record.valid_from


def test_global_scope_lives_in_the_global_namespace(conn, new):
    record, _ = records.insert(conn, new(type_="preference", scope="global"))
    assert record.project_id == GLOBAL_PROJECT and record.scope == "global"


def test_unicode_and_quotes_round_trip(conn, new):
    record, _ = records.insert(conn, new(title='Ünïcødé "quoted" \'it\'s\' 数据库', body="emoji 🚀; DROP TABLE records; --"))
    assert records.get(conn, record.id).title == 'Ünïcødé "quoted" \'it\'s\' 数据库'
    assert count(conn) == 1


# --- namespacing ------------------------------------------------------------------------------------------------

def test_a_project_sees_its_own_and_global_records_only(conn, new, invisible):
    mine, _ = records.insert(conn, new(title="Mine"))
    theirs, _ = records.insert(conn, new(title="Theirs", project_id=Q))
    shared, _ = records.insert(conn, new(type_="preference", title="Shared", scope="global"))
    hidden = invisible(conn, "Global but project-scoped", "nobody sees this")
    assert hidden.project_id == GLOBAL_PROJECT and hidden.scope == "project"
    assert set(current_ids(conn, P)) == {mine.id, shared.id}
    assert set(current_ids(conn, Q)) == {theirs.id, shared.id}
    assert records.get(conn, theirs.id, P) is None
    assert records.get(conn, hidden.id, P) is None
    assert records.get(conn, shared.id, P) == shared
    with pytest.raises(NotFoundError) as info:
        records.require(conn, theirs.id, P)
    assert info.value.code == "record_not_found" and info.value.exit_code == 66
    assert records.counts_by_type(conn, P) == {"decision": 1}


def test_current_orders_newest_first_and_filters(conn, new):
    a, _ = records.insert(conn, new(title="A"))
    b, _ = records.insert(conn, new(type_="bugfix", title="B"))
    g, _ = records.insert(conn, new(type_="preference", title="G", scope="global"))
    assert current_ids(conn) == [g.id, b.id, a.id]
    assert current_ids(conn, types=["decision"]) == [a.id]
    assert current_ids(conn, own_only=True) == [b.id, a.id]
    assert current_ids(conn, limit=1) == [g.id]


# --- supersession -------------------------------------------------------------------------------------------------

def test_supersede_marks_the_old_record_and_copies_type_and_scope(conn, new):
    a, _ = records.insert(conn, new(type_="convention", title="Tabs", body="Use tabs."))
    old, b = records.supersede(conn, a.id, P, body="Use four spaces.", rationale="PEP 8")
    assert old.id == a.id
    assert old.superseded_by == b.id and old.superseded_at == b.recorded_at
    assert b.type == "convention" and b.scope == "project" and b.confidence == "explicit"
    assert b.title == "Tabs"
    assert b.body == "Use four spaces.\n\nRationale: PEP 8"
    assert b.valid_from == b.recorded_at
    assert current_ids(conn) == [b.id]
    assert [r.id for r in records.history(conn, a.id, P)] == [a.id, b.id]
    assert [r.id for r in records.history(conn, b.id, P)] == [a.id, b.id]
    assert records.head(conn, records.get(conn, a.id)).id == b.id
    edge = conn.execute("SELECT from_id, to_id FROM edges WHERE rel_type = 'supersedes'").fetchone()
    assert tuple(edge) == (b.id, a.id)
    assert count(conn) == 2  # nothing is deleted by supersession


def test_supersede_can_retitle(conn, new):
    a, _ = records.insert(conn, new())
    _, b = records.supersede(conn, a.id, P, body="Postgres now.", title="Use Postgres")
    assert b.title == "Use Postgres"


def test_superseding_a_non_head_fails_and_names_the_head(conn, new):
    a, _ = records.insert(conn, new())
    _, b = records.supersede(conn, a.id, P, body="second")
    for attempt in (lambda: records.supersede(conn, a.id, P, body="third"),
                    lambda: records.insert(conn, new(body="third"), supersedes=a.id)):
        with pytest.raises(ConflictError) as info:
            attempt()
        assert info.value.code == "already_superseded"
        assert info.value.details["head"] == b.id
        assert b.id in str(info.value)
    assert count(conn) == 2
    assert current_ids(conn) == [b.id]


def test_superseding_an_unknown_id_fails(conn, new):
    records.insert(conn, new())
    with pytest.raises(NotFoundError) as info:
        records.supersede(conn, "01NOPE", P, body="x")
    assert info.value.code == "record_not_found"
    with pytest.raises(NotFoundError):
        records.insert(conn, new(title="New"), supersedes="01NOPE")
    assert count(conn) == 1


def test_an_invalid_replacement_leaves_the_old_record_current(conn, new):
    a, _ = records.insert(conn, new())
    with pytest.raises(ValidationError):
        records.supersede(conn, a.id, P, body="   ")
    with pytest.raises(ValidationError):
        records.supersede(conn, a.id, P, body="z" * 2001)
    with pytest.raises(ValidationError):
        records.insert(conn, new(type_="memo"), supersedes=a.id)
    assert records.get(conn, a.id).is_current
    assert count(conn) == 1


def test_supersession_is_atomic(conn, new, monkeypatch):
    a, _ = records.insert(conn, new())

    def boom(*args, **kwargs):
        raise RuntimeError("crash between the insert and the update")

    monkeypatch.setattr(records, "_mark_superseded", boom)
    with pytest.raises(RuntimeError):
        records.supersede(conn, a.id, P, body="replacement")
    assert count(conn) == 1
    assert records.get(conn, a.id).is_current
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 0


def test_another_project_cannot_supersede_my_record(conn, new):
    a, _ = records.insert(conn, new())
    with pytest.raises(NotFoundError):
        records.supersede(conn, a.id, Q, body="hijack")
    with pytest.raises(NotFoundError):
        records.insert(conn, new(project_id=Q), supersedes=a.id)
    assert records.get(conn, a.id).is_current


def test_global_records_are_superseded_by_global_records_only(conn, new):
    g, _ = records.insert(conn, new(type_="preference", title="Terse answers", scope="global"))
    with pytest.raises(ConflictError) as info:
        records.insert(conn, new(type_="preference"), supersedes=g.id)  # a project record
    assert info.value.code == "cross_namespace"
    assert 'scope: "global"' in str(info.value)
    assert records.get(conn, g.id).is_current
    old, g2 = records.supersede(conn, g.id, P, body="Very terse answers.")  # global -> global from any project
    assert g2.project_id == GLOBAL_PROJECT and g2.scope == "global"
    assert current_ids(conn, Q) == [g2.id]


def test_a_long_chain_has_full_history_from_any_point(conn, new):
    first, _ = records.insert(conn, new(body="v0"))
    chain = [first.id]
    for i in range(1, 6):
        _, nxt = records.supersede(conn, chain[-1], P, body=f"v{i}")
        chain.append(nxt.id)
    for rid in chain:
        assert [r.id for r in records.history(conn, rid, P)] == chain
    assert current_ids(conn) == [chain[-1]]


def test_history_of_a_foreign_record_is_not_found(conn, new):
    a, _ = records.insert(conn, new(project_id=Q))
    with pytest.raises(NotFoundError):
        records.history(conn, a.id, P)


# --- keyed supersession ---------------------------------------------------------------------------------------------

def test_one_current_handover_per_project(conn, new):
    h1, _ = records.insert(conn, new(type_="handover", title="Session 1", body="Next: tests"))
    hq, _ = records.insert(conn, new(type_="handover", title="Q work", body="Next: docs", project_id=Q))
    h2, superseded = records.insert(conn, new(type_="handover", title="Session 2", body="Next: release"))
    assert [s.id for s in superseded] == [h1.id]
    assert records.get(conn, h1.id).superseded_by == h2.id
    assert current_ids(conn, types=["handover"]) == [h2.id]
    assert records.get(conn, hq.id).is_current


def test_profile_records_are_keyed_by_title(conn, new):
    records.insert(conn, new(type_="profile", title="test_command", body="- pytest"))
    records.insert(conn, new(type_="profile", title="build_command", body="- make"))
    t2, superseded = records.insert(conn, new(type_="profile", title="test_command", body="- pytest -q"))
    assert len(superseded) == 1
    current = records.current(conn, P, types=["profile"])
    assert sorted(r.title for r in current) == ["build_command", "test_command"]
    assert t2.id in [r.id for r in current]
    assert records.counts_by_type(conn, P) == {"profile": 2}


def test_explicit_supersedes_and_keyed_predecessor_together(conn, new):
    h1, _ = records.insert(conn, new(type_="handover", title="old"))
    d, _ = records.insert(conn, new(title="stale decision"))
    h2, superseded = records.insert(conn, new(type_="handover", title="new"), supersedes=d.id)
    assert {s.id for s in superseded} == {h1.id, d.id}
    assert current_ids(conn) == [h2.id]


def test_keyed_supersession_twice_in_a_row_keeps_one_current(conn, new):
    for i in range(5):
        records.insert(conn, new(type_="handover", title=f"h{i}"))
    assert len(records.current(conn, P, types=["handover"])) == 1
    assert count(conn, "type = 'handover'") == 5


# --- pins, reinforcement, access ---------------------------------------------------------------------------------------

def test_pin_and_unpin(conn, new):
    a, _ = records.insert(conn, new())
    assert records.set_pinned(conn, a.id, P, True).pinned is True
    assert records.get(conn, a.id).pinned is True
    assert records.set_pinned(conn, a.id, P, False).pinned is False
    assert records.get(conn, a.id).pinned is False
    with pytest.raises(NotFoundError):
        records.set_pinned(conn, a.id, Q, True)


def test_supersede_carries_the_pin(conn, new):
    a, _ = records.insert(conn, new(pinned=True))
    _, b = records.supersede(conn, a.id, P, body="new text")
    assert b.pinned


def test_reinforce_counts_sessions_not_extra_sightings(conn, new):
    # Seen in its own session and then in two more: 3 sessions (count 2) reach the default threshold of 3.
    a, _ = records.insert(conn, new())
    assert records.reinforce(conn, a.id, threshold=3).confidence == "inferred"
    third_session = records.reinforce(conn, a.id, threshold=3)
    assert third_session.confidence == "reinforced" and third_session.reinforce_count == 2


def test_threshold_one_means_its_own_session_is_enough(conn, new):
    from agentctx.store import capture

    a, _ = records.insert(conn, new())
    assert capture.promote_reinforced(conn, 2) == 0
    assert capture.promote_reinforced(conn, 1) == 1 and records.get(conn, a.id).confidence == "reinforced"


def test_reinforce_on_explicit_confirmation(conn, new):
    a, _ = records.insert(conn, new())
    assert records.reinforce(conn, a.id, threshold=3, confirmed=True).confidence == "reinforced"


def test_reinforce_never_downgrades_explicit(conn, new):
    a, _ = records.insert(conn, new(confidence="explicit"))
    for _ in range(4):
        out = records.reinforce(conn, a.id, threshold=2)
    assert out.confidence == "explicit" and out.reinforce_count == 4


def test_reinforce_unknown_record(conn):
    with pytest.raises(NotFoundError):
        records.reinforce(conn, "01NOPE", threshold=3)


def test_touch_counts_reads(conn, new):
    a, _ = records.insert(conn, new())
    records.touch(conn, [a.id, a.id])
    records.touch(conn, [])
    got = records.get(conn, a.id)
    assert got.access_count == 2
    assert ids.parse_iso(got.last_accessed)


def test_find_same_matches_verbatim_current_duplicates(conn, new):
    a, _ = records.insert(conn, new())
    assert records.find_same(conn, new(title="  Use   SQLite ")) == a
    assert records.find_same(conn, new(body="Other body")) is None
    assert records.find_same(conn, new(project_id=Q)) is None
    records.supersede(conn, a.id, P, body="changed")
    assert records.find_same(conn, new()) is None


# --- deletion ----------------------------------------------------------------------------------------------------------

def test_deleting_the_head_makes_the_predecessor_current_again(conn, new):
    a, _ = records.insert(conn, new(body="v1"))
    _, b = records.supersede(conn, a.id, P, body="v2")
    records.delete(conn, b.id, P)
    back = records.get(conn, a.id)
    assert back.is_current and back.superseded_by is None
    assert current_ids(conn) == [a.id]
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 0


def test_deleting_a_middle_record_relinks_the_chain(conn, new):
    a, _ = records.insert(conn, new(body="v1"))
    _, b = records.supersede(conn, a.id, P, body="v2")
    _, c = records.supersede(conn, b.id, P, body="v3")
    records.delete(conn, b.id, P)
    assert records.get(conn, a.id).superseded_by == c.id
    assert not records.get(conn, a.id).is_current
    assert [r.id for r in records.history(conn, c.id, P)] == [a.id, c.id]


def test_delete_removes_links_and_index_rows(conn, new):
    a, _ = records.insert(conn, new(title="Zebra crossing"))
    node = graph.upsert_node(conn, P, "file", "src/app.py")
    graph.link(conn, a.id, [node])
    records.delete(conn, a.id, P)
    assert count(conn) == 0
    assert conn.execute("SELECT count(*) FROM record_entities").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'zebra'").fetchone()[0] == 0


def test_delete_needs_the_owning_project(conn, new):
    a, _ = records.insert(conn, new())
    with pytest.raises(NotFoundError):
        records.delete(conn, a.id, Q)
    assert count(conn) == 1


def test_delete_project_removes_only_that_project(conn, new):
    a, _ = records.insert(conn, new())
    records.supersede(conn, a.id, P, body="v2")
    q, _ = records.insert(conn, new(project_id=Q))
    g, _ = records.insert(conn, new(type_="preference", scope="global"))
    graph.link(conn, a.id, [graph.upsert_node(conn, P, "branch", "main")])
    graph.upsert_node(conn, Q, "branch", "main")
    sessions.touch(conn, "s-p", P)
    sessions.log_injection(conn, session_id="s-p", project_id=P, event="SessionStart", prompt_hash=None,
                           record_ids=[a.id], scores=[1.0], tokens=10)
    sessions.touch(conn, "s-q", Q)
    assert records.delete_project(conn, P) == 2
    assert [r[0] for r in conn.execute("SELECT id FROM records ORDER BY id")] == sorted([q.id, g.id])
    assert [r[0] for r in conn.execute("SELECT project_id FROM nodes")] == [Q]
    assert [r[0] for r in conn.execute("SELECT session_id FROM sessions")] == ["s-q"]
    assert conn.execute("SELECT count(*) FROM injections").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 0
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_global_namespace_record_must_be_global_in_scope(conn):
    with pytest.raises(ValidationError):
        records.insert(conn, NewRecord("decision", "Hidden", "nobody could see this", "_global", scope="project"))
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0


def test_ids_are_found_whatever_their_case(conn):
    rec, _ = records.insert(conn, NewRecord("decision", "Case", "ULIDs are case-insensitive", "p" * 64))
    assert records.get(conn, rec.id.lower(), "p" * 64) == rec

