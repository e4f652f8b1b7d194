"""The entity graph: per-project nodes, typed edges, record links and cycle-safe related walks."""

from __future__ import annotations

import pytest

from agentctx.base.errors import ValidationError
from agentctx.store import graph, records

P = "p" * 64
Q = "q" * 64


def test_upsert_node_is_idempotent_and_per_project(conn):
    a = graph.upsert_node(conn, P, "branch", "main")
    assert graph.upsert_node(conn, P, "branch", "main") == a
    b = graph.upsert_node(conn, Q, "branch", "main")
    c = graph.upsert_node(conn, P, "file", "main")
    assert len({a, b, c}) == 3
    assert graph.find_node(conn, P, "branch", "main") == a
    assert graph.find_node(conn, P, "branch", "dev") is None


def test_unknown_kinds_and_relations_are_rejected(conn):
    with pytest.raises(ValidationError):
        graph.upsert_node(conn, P, "galaxy", "x")
    a = graph.upsert_node(conn, P, "file", "a.py")
    with pytest.raises(ValidationError):
        graph.add_edge(conn, a, a, "loves")
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 0


def test_edges_and_links_are_deduplicated(conn, new):
    r, _ = records.insert(conn, new())
    a = graph.upsert_node(conn, P, "file", "a.py")
    b = graph.upsert_node(conn, P, "module", "pkg")
    graph.add_edge(conn, a, b, "applies_to")
    graph.add_edge(conn, a, b, "applies_to")
    graph.link(conn, r.id, [a, a, b])
    graph.link(conn, r.id, [a])
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM record_entities").fetchone()[0] == 2
    assert graph.record_ids_for_node(conn, a) == {r.id}


def test_related_follows_links_and_edges_nearest_first(conn, new):
    near, _ = records.insert(conn, new(title="Near"))
    far, _ = records.insert(conn, new(title="Far"))
    f1 = graph.upsert_node(conn, P, "file", "src/app.py")
    f2 = graph.upsert_node(conn, P, "module", "src")
    graph.link(conn, near.id, [f1])
    graph.add_edge(conn, f2, f1, "applies_to")  # walked against its direction too
    graph.link(conn, far.id, [f2])
    found = graph.related(conn, P, f1)
    assert [r.id for r in found] == [near.id, far.id]
    assert [r.id for r in graph.related(conn, P, f1, depth=1)] == [near.id]
    assert [r.id for r in graph.related(conn, P, f1, limit=1)] == [near.id]


def test_related_survives_cycles(conn, new):
    r, _ = records.insert(conn, new())
    nodes = [graph.upsert_node(conn, P, "file", f"f{i}") for i in range(4)]
    for x, y in zip(nodes, nodes[1:] + nodes[:1]):
        graph.add_edge(conn, x, y, "derives_from")
    graph.add_edge(conn, nodes[0], nodes[0], "derives_from")
    graph.link(conn, r.id, [nodes[2]])
    assert [x.id for x in graph.related(conn, P, nodes[0], depth=100)] == [r.id]


def test_related_hides_superseded_and_foreign_records(conn, new):
    old, _ = records.insert(conn, new(title="Old"))
    _, replacement = records.supersede(conn, old.id, P, body="new")
    foreign, _ = records.insert(conn, new(title="Foreign", project_id=Q))
    shared, _ = records.insert(conn, new(type_="preference", title="Global", scope="global"))
    node = graph.upsert_node(conn, P, "file", "x.py")
    graph.link(conn, old.id, [node])
    graph.link(conn, foreign.id, [node])
    graph.link(conn, shared.id, [node])
    found = {r.id for r in graph.related(conn, P, node)}
    # The old record's successor is reachable through the supersedes edge; the foreign record never is.
    assert found == {replacement.id, shared.id}


def test_related_of_an_unknown_node_is_empty(conn):
    assert graph.related(conn, P, "nope") == []
