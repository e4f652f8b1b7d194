"""The expansion pass with FAKE models (expand_support: HAND-WRITTEN answers, no model runs): batching, partial and
broken answers, unknown ids, the daily bound, retries, edited records, cost rows, redaction, no backend, the
Claude Code path through a FAKE `claude` executable, and consolidation running the step."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from agentctx.base import config
from agentctx.base.models import ALIASES_MAX, NewRecord
from agentctx.extract import expand, quota
from agentctx.memory.status import extraction_state
from agentctx.store import expansion, extraction, records
from expand_support import FakeLLM, Rejected, answer_all, fake_claude, keys_of

SECRET = "sk-ant-api03-" + "Q" * 40  # a key the scrubber knows: it must never reach a model, nor come back


@pytest.fixture
def add(conn, pid):
    def _add(title, body=None, type_="decision", **kw):
        return records.insert(conn, NewRecord(type=type_, title=title, body=body or f"{title}, as agreed.",
                                              project_id=pid, **kw))[0]
    return _add


@pytest.fixture
def no_backend(monkeypatch, tmp_path):
    """No API key and no `claude` anywhere on PATH."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


# Noon today: a run a few minutes later is still today, whatever time the tests run.
NOW = datetime.now(timezone.utc).replace(hour=12, minute=0, second=0, microsecond=0)


def _run(conn, pid, llm, **kw):
    kw.setdefault("now", NOW)
    return expand.run(conn, pid, client=llm, **kw)


def test_records_are_sent_twenty_to_a_call_newest_first_and_become_findable(conn, pid, add):
    made = [add(f"Queue choice {i}", f"We use RabbitMQ for job {i}.") for i in range(45)]
    llm = FakeLLM()
    result = _run(conn, pid, llm)
    assert (result.calls, result.sent, result.expanded, result.failed, result.skipped) == (3, 45, 45, 0, None)
    sizes = [len(keys_of(u)) for u in llm.users()]
    assert sizes == [20, 20, 5]
    assert "Queue choice 44" in llm.users()[0] and "Queue choice 0" in llm.users()[-1]  # newest first
    rec = records.get(conn, made[7].id)
    assert rec.questions == ("what did we settle about queue choice 7?", "why queue choice 7?")
    assert set(rec.aliases) == {"fakealias", rec.aliases[0]} and rec.aliases[0].startswith("synonymr")
    assert len(result.batches) == 3 and result.batches[0].startswith("batch 1: 20 records sent, 20 given")
    # What the pass wrote is what search reads: a word only an alias holds finds the record.
    from agentctx.retrieval.search import search

    assert made[7].id in [h.record.id for h in search(conn, rec.aliases[0], pid, floor=0.0).hits]
    assert _run(conn, pid, llm).skipped == "nothing_due" and len(llm.requests) == 3  # done: never sent again


def test_only_current_records_of_the_asked_types_with_nothing_yet(conn, pid, add):
    add("Handover: wiring", type_="handover")
    add("Stack", "Python 3.12", type_="profile")
    add("Already asked", questions=["how do we log?"])
    add("Has aliases", aliases=["logging"])
    old = add("Old rule")
    records.supersede(conn, old.id, pid, body="New rule, as agreed.", title="New rule")
    want = {add("A convention", type_="convention").title, add("A discovery", type_="discovery").title,
            add("A bugfix", type_="bugfix").title, add("A preference", type_="preference").title, "New rule"}
    llm = FakeLLM()
    _run(conn, pid, llm)
    assert {title for _, _, title in keys_of(llm.users()[0])} == want


def test_a_partial_answer_keeps_the_good_entries_and_ignores_unknown_ids(conn, pid, add):
    r1, r2, r3, r4 = (add(f"Rule {i}") for i in range(1, 5))  # sent newest first: r4 is "r1" in the request

    def reply(keys):
        by_title = {title: key for key, _, title in keys}
        return {"records": [
            "not an entry",
            {"id": "r99", "questions": ["who am i?"], "aliases": ["ghost"]},  # no such record in the batch
            {"id": f"[{by_title['Rule 4']}]",
             "questions": ["q " * 150, "  how   do we do rule 4? ", "HOW DO WE DO RULE 4?"],
             "aliases": [f"alias{i}" for i in range(30)] + [""]},
            {"id": by_title["Rule 3"], "questions": 42, "aliases": [None, "", "x" * 81]},  # nothing usable
            {"id": by_title["Rule 2"], "questions": ["what about rule 2?"], "aliases": []},
            {"id": by_title["Rule 2"], "questions": ["a second entry for rule 2"], "aliases": ["dup"]},
        ]}  # Rule 1: not answered at all

    result = _run(conn, pid, FakeLLM(reply))
    assert (result.sent, result.expanded, result.failed, result.unknown_ids) == (4, 2, 2, 1)
    got4 = records.get(conn, r4.id)
    assert got4.questions == ("how do we do rule 4?",)  # the overlong one dropped, the repeat folded
    assert len(got4.aliases) == ALIASES_MAX and got4.aliases[0] == "alias0"
    assert records.get(conn, r2.id).questions == ("what about rule 2?",) and records.get(conn, r2.id).aliases == ()
    for missed in (r1, r3):
        assert records.get(conn, missed.id).questions == ()
        assert expansion.attempt(conn, missed.id)["outcome"] == "not answered"
    assert "2 not answered" in result.batches[0] and "1 unknown ids ignored" in result.batches[0]


def test_the_id_keyed_form_of_an_answer_is_read_too():
    got, unknown = expand.answers({"r1": {"questions": ["why?"], "aliases": ["x"]}, "zz": {"questions": ["?"]}},
                                  {"r1", "r2"})
    assert got == {"r1": (("why?",), ("x",))} and unknown == 1
    assert expand.answers("not an object", {"r1"}) == ({}, 0)
    assert expand.answers({"records": "nope"}, {"r1"}) == ({}, 0)


def test_a_broken_answer_marks_the_batch_for_a_retry_a_day_later_then_gives_up(conn, pid, add):
    rec = add("Use uv for installs")
    prose = FakeLLM(lambda keys: "Sure! Here are some questions you could ask.")
    first = _run(conn, pid, prose)
    assert (first.sent, first.failed, first.expanded, first.skipped) == (1, 1, 0, "failed")
    row = expansion.attempt(conn, rec.id)
    assert row["attempts"] == 1 and row["outcome"] == "unparseable" and row["retry_at"] > row["last_at"]
    assert _run(conn, pid, prose).skipped == "nothing_due"  # not again the same day
    assert _run(conn, pid, prose, now=NOW + timedelta(hours=23)).skipped == "nothing_due"
    _run(conn, pid, prose, now=NOW + timedelta(days=1, minutes=1))
    _run(conn, pid, FakeLLM(lambda keys: Rejected("unprocessable")), now=NOW + timedelta(days=4, minutes=2))
    row = expansion.attempt(conn, rec.id)
    assert row["attempts"] == 3 and row["outcome"].startswith("gave up") and row["retry_at"] is None
    assert _run(conn, pid, prose, now=NOW + timedelta(days=60)).skipped == "nothing_due"
    assert len(prose.requests) == 2
    # A fine answer later changes nothing for it until its text changes; a new record is sent at once.
    fresh = add("Use ruff for lint")
    llm = FakeLLM()
    assert _run(conn, pid, llm, now=NOW + timedelta(days=61)).expanded == 1
    assert [t for _, _, t in keys_of(llm.users()[0])] == [fresh.title]


def test_an_edited_record_is_tried_again(conn, pid, add):
    from agentctx.store.redaction import rescrub

    rec = add("Deploy with the blue-green script")
    for day in (0, 1, 4):  # three failures: given up on this text
        _run(conn, pid, FakeLLM(lambda keys: "no"), now=NOW + timedelta(days=day, minutes=day))
    assert expansion.attempt(conn, rec.id)["retry_at"] is None
    # Rewritten in place (the only in-place rewrite of record text: re-scrubbing under new rules).
    rescrub(conn, lambda text: text.replace("blue-green", "canary"), fts=True)
    llm = FakeLLM()
    assert _run(conn, pid, llm, now=NOW + timedelta(days=5)).expanded == 1
    assert expansion.attempt(conn, rec.id)["attempts"] == 1  # a new text starts a new count
    # Superseded (how records are edited): the successor keeps the old one's questions; one without any is sent.
    plain = add("Cache in Redis")
    _run(conn, pid, FakeLLM(lambda keys: "no"), now=NOW + timedelta(days=6))
    _, new = records.supersede(conn, plain.id, pid, body="Cache in Valkey.", title="Cache in Valkey")
    llm = FakeLLM()
    assert _run(conn, pid, llm, now=NOW + timedelta(days=6, minutes=5)).expanded == 1
    assert "Cache in Valkey" in llm.users()[0] and records.get(conn, new.id).aliases


def test_records_sent_per_day_are_bounded(conn, pid, add):
    config.set_value("expansionRecordsPerDay", 30)
    for i in range(50):
        add(f"Rule number {i}")
    llm = FakeLLM()
    first = _run(conn, pid, llm)
    assert (first.sent, first.calls) == (30, 2)
    again = _run(conn, pid, llm, now=NOW + timedelta(minutes=1))
    assert again.skipped == "daily_limit" and again.calls == 0 and len(llm.requests) == 2
    tomorrow = (NOW + timedelta(days=1)).replace(hour=0, minute=5)
    assert _run(conn, pid, llm, now=tomorrow).sent == 20
    assert _run(conn, pid, llm, now=tomorrow, limit=5).skipped == "nothing_due"
    config.set_value("expansionRecordsPerDay", 0)
    assert _run(conn, pid, llm, now=tomorrow + timedelta(days=1)).skipped == "disabled"


def test_limit_and_max_batches_bound_one_run(conn, pid, add):
    for i in range(30):
        add(f"Rule number {i}")
    assert _run(conn, pid, FakeLLM(), limit=7).sent == 7
    one = _run(conn, pid, FakeLLM(), max_batches=1)
    assert (one.calls, one.sent) == (1, 20)


def test_every_call_is_accounted_as_expansion(conn, pid, add):
    add("Rule A")
    _run(conn, pid, FakeLLM())
    add("Rule B")
    _run(conn, pid, FakeLLM(lambda keys: "garbage"))
    rows = conn.execute("SELECT backend, calls, input_tokens, output_tokens, cost_usd, outcome, purpose, project_id, "
                        "session_id FROM extraction_calls ORDER BY rowid").fetchall()
    assert [tuple(r)[5:] for r in rows] == [("ok", "expand", pid, None), ("unparseable", "expand", pid, None)]
    assert all(r[0] == "api" and r[1] == 1 and r[2] > 0 and r[4] > 0 for r in rows)
    (day,) = extraction.per_day(conn)
    assert (day["purpose"], day["calls"], day["failed_runs"]) == ("expand", 2, 1)


def test_dry_run_sends_and_marks_nothing(conn, pid, add):
    for i in range(25):
        add(f"Rule number {i}")
    lines = []
    llm = FakeLLM()
    result = _run(conn, pid, llm, dry_run=True, out=lines.append)
    assert result.skipped == "dry_run" and llm.requests == [] and len(result.record_ids) == 25
    assert lines[0].startswith("batch 1: would send 20 records, ~") and lines[1].startswith("batch 2: would send 5")
    assert conn.execute("SELECT count(*) FROM expansion_attempts").fetchone()[0] == 0
    assert "25 records would be sent" in expand.describe(result)


def test_a_secret_in_a_record_never_reaches_the_model_nor_comes_back(conn, pid, add):
    # A record stored before the scrubber knew this kind of key: its text is raw in the file.
    rec = add("Staging credentials", "The staging deploy reads its key from the vault.")
    conn.execute("UPDATE records SET body = ? WHERE id = ?", (f"The staging key is {SECRET} for now.", rec.id))
    conn.commit()

    def leaky(keys):
        out = answer_all(keys)
        out["records"][0]["aliases"].append(SECRET)
        out["records"][0]["questions"].append(f"is {SECRET} the staging key?")
        return out

    llm = FakeLLM(leaky)
    assert _run(conn, pid, llm).expanded == 1
    sent = llm.users()[0]
    assert SECRET not in sent and "staging key is [REDACTED" in sent
    got = records.get(conn, rec.id)
    assert not any(SECRET in item for item in got.questions + got.aliases)


def test_no_backend_sends_nothing_and_says_why(conn, pid, add, no_backend):
    add("Rule A")
    result = expand.run(conn, pid, now=NOW)
    assert result.skipped == "off" and "no Claude Code CLI" in result.reason
    assert conn.execute("SELECT count(*) FROM extraction_calls").fetchone()[0] == 0
    assert expand.run(conn, pid, dry_run=True, now=NOW).skipped == "dry_run"  # a preview needs no backend


def test_one_pass_at_a_time(conn, pid, add):
    from agentctx.extract import cursor

    add("Rule A")
    llm = FakeLLM()
    with cursor.lock(expand.LOCK, 0) as held:  # another process's pass
        assert held
        busy = _run(conn, pid, llm)
    assert busy.skipped == "busy" and llm.requests == []
    assert _run(conn, pid, llm).expanded == 1


def test_a_key_without_the_llm_extra_is_said_plainly(conn, pid, add, no_backend, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    # As if `anthropic` were not installed, whether or not it is (the all-extras suite has it).
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "anthropic" else real(name, *a))
    add("Rule A")
    result = expand.run(conn, pid, now=NOW)
    assert result.skipped == "missing_extra" and "[llm]" in result.reason


def test_the_claude_code_backend_runs_the_real_call_path(conn, pid, add, tmp_path, monkeypatch):
    fake = fake_claude(tmp_path, monkeypatch)
    rec = add("Feature flags live in LaunchDarkly")
    result = expand.run(conn, pid, now=NOW)
    assert (result.backend, result.expanded, result.skipped) == ("claude-code", 1, None)
    (call,) = fake.calls()
    schema = json.loads(call["argv"][call["argv"].index("--json-schema") + 1])
    assert schema["required"] == ["records"]
    system = call["argv"][call["argv"].index("--system-prompt") + 1]
    assert system.startswith("You help a memory tool") and "Feature flags live in LaunchDarkly" in call["stdin"]
    assert call["child"] == "1" and call["claudecode"] is None  # our hooks no-op in the child
    assert records.get(conn, rec.id).aliases == ("cliexpanded",)
    (day,) = extraction.per_day(conn)
    assert (day["backend"], day["purpose"], day["input_tokens"], day["cost_usd"]) == ("claude-code", "expand", 700,
                                                                                     0.002)


def test_a_rate_limit_pauses_the_backend_and_marks_no_record(conn, pid, add, tmp_path, monkeypatch):
    fake = fake_claude(tmp_path, monkeypatch)
    rec = add("Use pnpm workspaces")
    fake.mode("rate_limit")
    result = expand.run(conn, pid, now=NOW)
    assert result.skipped == "paused" and result.sent == 0 and "waits 15 min" in result.batches[0]
    assert expansion.attempt(conn, rec.id) is None  # not the record's fault: sent again after the pause
    assert quota.paused() is not None and extraction_state(conn, config.load())["paused"]
    assert expand.run(conn, pid, now=NOW).skipped == "paused" and len(fake.calls()) == 1
    quota.clear()
    fake.mode("ok")
    assert expand.run(conn, pid, now=NOW).expanded == 1


def test_the_claude_code_backend_keeps_to_its_calls_per_hour(conn, pid, add, tmp_path, monkeypatch):
    fake = fake_claude(tmp_path, monkeypatch)
    config.set_value("extractionCallsPerHour", 1)
    for i in range(25):
        add(f"Rule number {i}")
    result = expand.run(conn, pid)
    assert (result.calls, result.sent, result.skipped) == (1, 20, "quota") and len(fake.calls()) == 1


def test_consolidation_runs_the_step_only_with_a_backend(conn, pid, add, project_dir, tmp_path, monkeypatch):
    from agentctx.base.project import detect
    from agentctx.memory import consolidate

    project = detect(str(project_dir))
    add("Logs go to stdout as JSON")
    fake = fake_claude(tmp_path, monkeypatch)
    report = consolidate.run(project)
    assert report["expansion"]["expanded"] == 1 and report["expansion"]["backend"] == "claude-code"
    assert "expansion: 1 of 1 records given questions and aliases" in "\n".join(consolidate.describe(report))
    assert len(fake.calls()) == 1
    add("Errors are wrapped once, at the boundary")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    report = consolidate.run(project)
    assert report["expansion"] is None and not any("expansion" in x for x in consolidate.describe(report))
    assert len(fake.calls()) == 1


def test_a_failing_pass_never_breaks_consolidation(conn, pid, add, project_dir, tmp_path, monkeypatch):
    from agentctx.base.project import detect
    from agentctx.memory import consolidate

    fake_claude(tmp_path, monkeypatch)

    def boom(*args, **kwargs):
        raise RuntimeError("the pass broke")

    monkeypatch.setattr(expand, "run", boom)
    report = consolidate.run(detect(str(project_dir)))
    assert report["expansion"] == "skipped (RuntimeError: the pass broke)"
    assert "digest_tokens" in report  # the steps after it ran


def test_the_model_gets_the_whole_record_and_the_projects_stack(conn, pid, add):
    # Issue 37: with only the title and the start of the body, a model writes category words; it needs the concrete
    # names the record holds, and what the project uses.
    tail = "The fragments are named after the pull request: 1234.change.md in changelog.d/."
    add("User-visible changes get a news fragment", "x " * 700 + tail, type_="convention")
    records.insert(conn, NewRecord(type="profile", title="Stack", body="Python 3.12, attrs, towncrier, tox\nmore",
                                   project_id=pid))
    llm = FakeLLM()
    _run(conn, pid, llm)
    user = llm.users()[0]
    assert tail in user  # 1,400+ characters in: past the old 1,200-character cut
    assert user.startswith("PROJECT: Python 3.12, attrs, towncrier, tox more\n\nRECORDS:")
    assert "never a broad category" in str(llm.requests[0])  # the instructions sent ask for specific names


def test_without_a_profile_the_project_line_says_so(conn, pid, add):
    add("Use RabbitMQ for jobs")
    llm = FakeLLM()
    _run(conn, pid, llm)
    assert llm.users()[0].startswith("PROJECT: (stack not known)\n\nRECORDS:")
