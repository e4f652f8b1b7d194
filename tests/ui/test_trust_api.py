"""The dashboard's view of trust (SPEC §3.9): the inbox, marks on the record page, restore, the overview's counts."""

from __future__ import annotations

from agentctx.trust import expiry
from agentctx.store import records, trust


def test_inbox_marks_restore_and_overview(live, seeded, conn):
    pid = seeded["project"].id
    inferred = next(r for r in records.current(conn, pid) if r.confidence == "inferred")
    pinned = next(r for r in records.current(conn, pid) if r.pinned)
    trust.set_mark(conn, inferred.id, "review", "inferred by extraction: waiting for your review")
    trust.set_mark(conn, pinned.id, "unverified", "src/x.py: deleted")
    status, _, box = live.call("GET", "/api/inbox")
    assert status == 200
    notes = {i["id"]: i["note"] for i in box["items"]}
    assert notes[inferred.id].startswith("waiting for review") and "src/x.py: deleted" in notes[pinned.id]
    _, _, page = live.call("GET", f"/api/records/{pinned.id}")
    assert page["marks"]["unverified"]["reason"] == "src/x.py: deleted"
    status, _, _ = live.call("POST", f"/api/records/{inferred.id}/confirm", {})
    assert status == 200 and "review" not in trust.marks_for(conn, [inferred.id]).get(inferred.id, {})
    other = inferred  # confirmed just now; made an old unused guess again to watch it expire and come back
    conn.execute("UPDATE records SET confidence = 'inferred', pinned = 0, recorded_at = '2025-01-01T00:00:00.000Z', "
                 "last_accessed = NULL WHERE id = ?", (other.id,))
    assert expiry.run(conn, pid, days=30)["ids"] == [other.id]
    _, _, over = live.call("GET", "/api/overview")
    assert over["trust"]["expired"] == 1 and over["trust"]["unverified"] == 1
    assert over["trust"]["recently_expired"][0]["reason"].startswith("expired: unused for 30 days")
    _, _, box = live.call("GET", "/api/inbox")
    assert [e["id"] for e in box["expired"]] == [other.id]
    status, _, data = live.call("POST", f"/api/records/{other.id}/restore", {})
    assert status == 200 and data["record"]["current"] and records.get(conn, other.id).is_current
