"""Forgetting that fires, tested with a clock: what expires, what never does, and that every expiry comes back."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from agentctx.base.ids import to_iso
from agentctx.base.project import detect
from agentctx.cli import main
from agentctx.memory import review
from agentctx.trust import expiry
from agentctx.store import records, trust

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)


def _aged(conn, record, days, used_days=None):
    conn.execute("UPDATE records SET recorded_at = ?, last_accessed = ? WHERE id = ?",
                 (to_iso(NOW - timedelta(days=days)),
                  None if used_days is None else to_iso(NOW - timedelta(days=used_days)), record.id))
    return records.get(conn, record.id)


def test_only_unused_inferred_records_expire(conn, add, repo):
    pid = detect(repo).id
    old = _aged(conn, add("Flaky test in CI", "test_sync flakes on CI.", type_="discovery", confidence="inferred"), 40)
    used = _aged(conn, add("Slow fixture", "the db fixture is slow.", type_="discovery", confidence="inferred"), 40, 3)
    seen = _aged(conn, add("Prefers tabs", "tabs.", type_="preference", confidence="reinforced"), 45)
    young = _aged(conn, add("Cache gotcha", "cache key misses the locale.", type_="discovery",
                            confidence="inferred"), 10)
    never = [_aged(conn, add("Use SQLite", "One file.", confidence="explicit"), 400),
             _aged(conn, add("Pinned gotcha", "pinned.", type_="discovery", confidence="inferred", pinned=True), 400),
             _aged(conn, add("Team rule", "from the team file.", confidence="team"), 400)]
    waiting = _aged(conn, add("Waiting", "under review.", type_="discovery", confidence="inferred"), 400)
    trust.set_mark(conn, waiting.id, "review", "waiting")
    report = expiry.run(conn, pid, days=30, now=NOW)
    assert sorted(report["ids"]) == sorted([old.id, seen.id])
    for r in [used, young, waiting, *never]:
        assert records.get(conn, r.id).is_current
    gone = records.get(conn, old.id)
    assert gone.superseded_at and gone.superseded_by is None  # retired, nothing deleted
    assert trust.marks_for(conn, [old.id])[old.id]["expired"] == "expired: unused for 30 days (last used 2026-10-24)"
    assert expiry.run(conn, pid, days=30, now=NOW)["expired"] == 0  # once


def test_a_record_is_in_review_a_week_before_it_expires(conn, add, repo):
    pid = detect(repo).id
    soon = _aged(conn, add("Flaky test", "flakes.", type_="discovery", confidence="inferred"), 25)
    later = _aged(conn, add("Other", "later.", type_="discovery", confidence="inferred"), 10)
    listed = expiry.soon(conn, pid, days=30, now=NOW)
    assert [r.id for r, _, _ in listed] == [soon.id]
    assert listed[0][2][:10] == "2026-12-08"
    assert later.id not in {r.id for r, _, _ in listed}


def test_every_expiry_is_restorable_and_in_history(conn, add, repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    pid = detect(repo).id
    old = _aged(conn, add("Flaky test", "flakes.", type_="discovery", confidence="inferred"), 40)
    expiry.run(conn, pid, days=30, now=NOW)
    assert [r.id for r, _, _ in trust.marked(conn, pid, "expired", current=False)] == [old.id]
    assert main(["history", old.id]) == 0 and "retired" in capsys.readouterr().out
    assert main(["review", "--expired"]) == 0 and "unused for 30 days" in capsys.readouterr().out
    assert main(["review", "--yes", "--restore", old.id[-8:]]) == 0
    back = records.get(conn, old.id)
    assert back.is_current and "expired" not in trust.marks_for(conn, [old.id]).get(old.id, {})
    assert expiry.run(conn, pid, days=30)["expired"] == 0  # restored = used now


def test_a_used_record_does_not_expire_while_the_pass_runs(conn, add, repo):
    pid = detect(repo).id
    old = _aged(conn, add("Flaky test", "flakes.", type_="discovery", confidence="inferred"), 40)
    records.touch(conn, [old.id])  # a search or an injection got there after the candidates were read
    assert not trust.expire(conn, old, "expired")
    assert records.get(conn, old.id).is_current


def test_status_says_what_expired_and_why(conn, add, repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    pid = detect(repo).id
    _aged(conn, add("Flaky test", "flakes.", type_="discovery", confidence="inferred"), 40)
    expiry.run(conn, pid, days=30, now=NOW)
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "1 expired unused" in out and "Flaky test" in out and "unused for 30 days" in out


def test_expiry_off(conn, add, repo):
    pid = detect(repo).id
    _aged(conn, add("Flaky test", "flakes.", type_="discovery", confidence="inferred"), 400)
    from agentctx.base import config

    assert [r.title for r, _ in review.inbox(conn, pid)] == ["Flaky test"]
    config.set_value("expireInferredDays", 0)
    assert expiry.run(conn, pid).startswith("skipped")
    assert expiry.soon(conn, pid) == [] and review.inbox(conn, pid) == []
