"""One fact, one record: consolidation merges near-duplicates by supersession, keeping both histories, and never
merges two records that say different things."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.memory import consolidate
from agentctx.trust import merge
from agentctx.store import records, trust


def test_restated_duplicates_merge_into_the_stronger_record_with_both_histories(conn, add, repo):
    pid = detect(repo).id
    kept = add("Use pnpm", "Install with pnpm; never run npm install.", type_="convention",
               source="claude_memory", confidence="explicit")
    dup = add("Use pnpm", "- install with pnpm; never run npm install", type_="convention", confidence="inferred",
              session_id="s2", anchors=("path:package.json",))
    older = add("Prefer pnpm", "Old wording.", type_="convention", confidence="inferred")
    newer_dup, _ = records.supersede(conn, older.id, pid, body="Install with pnpm; never run npm install.",
                                     title="Installs use pnpm", source="cli")
    conn.execute("UPDATE records SET confidence = 'inferred' WHERE id = ?", (_.id,))
    report = consolidate.run(detect(repo))
    assert report["merged"]["merged"] == 2
    assert records.get(conn, kept.id).is_current
    gone = records.get(conn, dup.id)
    assert gone.superseded_by == kept.id
    assert trust.marks_for(conn, [dup.id])[dup.id]["merged"].startswith(f"near-duplicate of {kept.id}")
    assert records.get(conn, kept.id).anchors == ("path:package.json",)  # the anchors follow the fact
    assert records.get(conn, kept.id).reinforce_count >= 1  # another session's sighting
    # both histories lead to the kept record
    chain = [r.id for r in records.history(conn, older.id, pid)]
    assert chain[:2] == [older.id, _.id] and records.head(conn, records.get(conn, older.id)).id == kept.id


def test_records_that_say_different_things_are_never_merged(conn, add, repo):
    pid = detect(repo).id
    pairs = [("Retries stop after 3 attempts", "Retries stop after 5 attempts"),
             ("Cache entries expire after 15 minutes", "Cache entries do not expire after 15 minutes"),
             ("Format Python code with `black`", "Format Python code with `ruff`")]
    for a, b in pairs:
        add(a, a + ".", type_="convention", confidence="inferred", session_id="s1")
        add(b, b + ".", type_="convention", confidence="inferred", session_id="s2")
    assert merge.run(conn, pid)["merged"] == 0
    assert len(records.current(conn, pid)) == 6


def test_different_types_pinned_copies_and_disjoint_anchors_stay_apart(conn, add, repo):
    pid = detect(repo).id
    add("Use pnpm", "Install with pnpm.", type_="convention", confidence="inferred")
    add("Use pnpm", "Install with pnpm.", type_="decision", confidence="inferred")
    a = add("Amounts are integer cents", "All amounts are integer cents.", type_="convention",
            anchors=("path:src/payments/**",), confidence="inferred")
    add("Amounts are integer cents", "All amounts are integer cents.", type_="convention",
        anchors=("path:src/ledger/**",), confidence="inferred")
    p = add("Logs are JSON", "Every log line is JSON.", type_="convention", confidence="inferred", pinned=True)
    add("Logs are JSON", "- every log line is json", type_="convention", confidence="explicit", session_id="x")
    report = merge.run(conn, pid)
    assert report["merged"] == 1  # only the log pair: the pinned copy is kept over the explicit one
    assert records.get(conn, p.id).is_current and records.get(conn, a.id).is_current


def test_a_record_waiting_for_review_is_left_to_the_user(conn, add, repo):
    pid = detect(repo).id
    add("Use pnpm", "Install with pnpm.", type_="convention", confidence="explicit")
    w = add("Use pnpm", "- install with pnpm", type_="convention", confidence="inferred")
    trust.set_mark(conn, w.id, "review", "waiting")
    assert merge.run(conn, pid)["merged"] == 0


def test_cosine_pairs_from_the_vector_step_merge_only_when_nothing_sets_them_apart(conn, add, repo):
    pid = detect(repo).id
    a = add("Payments retry with backoff", "The payments client retries timeouts with exponential backoff.",
            type_="discovery", confidence="inferred")
    b = add("Backoff on payment timeouts", "Payment calls that time out are retried, backing off exponentially.",
            type_="discovery", confidence="inferred")
    c = add("Payments retry 3 times", "The payments client retries 3 times.", type_="discovery", confidence="inferred")
    d = add("Payments retry 5 times", "The payments client retries 5 times.", type_="discovery", confidence="inferred")
    report = merge.run(conn, pid, cosine_pairs=[(b.id, a.id, 0.95), (d.id, c.id, 0.97)])
    assert [p["merged"] for p in report["pairs"]] == [b.id]
