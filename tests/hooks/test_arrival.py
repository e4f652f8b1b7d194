"""Arrival (issue 43): each action-time delivery looked up in the agent's real transcript. The transcripts under
tests/data/arrival are RECORDED from the pinned CLIs (Claude Code 2.1.197 and 2.1.332, Codex CLI 0.171.0, Gemini CLI
0.61.0) in the e2e runs of tests/e2e/test_*_read.py, cut to the lines that carry a hook's context."""

import json
import re
from pathlib import Path

import pytest

from agentctx.base import paths
from agentctx.hooks import Payload, arrival
from hookcases import pending as _pending

DATA = Path(__file__).resolve().parent.parent / "data" / "arrival"
CASES = {"claude-2.1.197.jsonl": "claude", "claude-2.1.332.jsonl": "claude", "codex-0.171.0.jsonl": "codex",
         "gemini-0.61.0.jsonl": "gemini"}


def _ids(path: Path) -> list[str]:
    return sorted(set(re.findall(r"\(id (01[0-9A-Z]{24})\)", path.read_text())))


def _notes(session: str, deliveries: "list[list[str]]") -> None:
    path = paths.actions_file(session)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for i, ids in enumerate(deliveries):
            fh.write(json.dumps({"key": f"k{i}", "ids": ids, "decisions": [""] * len(ids), "tool": "Read"}) + "\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_deliveries_in_the_real_transcript_arrive_and_the_others_do_not(name, repo, tmp_path):
    transcript = tmp_path / name
    transcript.write_text((DATA / name).read_text())
    ids = _ids(DATA / name)
    assert ids
    _notes("s", [[i] for i in ids] + [["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]])
    payload = Payload(session_id="s", transcript_path=str(transcript), cwd=str(repo), agent=CASES[name])
    assert arrival.check(payload, final=False) == len(ids)  # at Stop: only what was found
    assert arrival.check(payload, final=False) == 0  # checked once
    assert arrival.check(payload, final=True) == 1  # at the end: the rest is not found
    rows = _pending()
    assert sorted(r["record_ids"][0] for r in rows if r["event"] == "PreToolUse/arrived") == ids
    assert [r["record_ids"] for r in rows if r["event"] == "PreToolUse/not_found"] == [["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]]


def test_claude_code_counts_what_the_model_got_not_the_hooks_stdout(repo, tmp_path):
    """2.1.197: the `hook_additional_context` attachment; 2.1.332: its request's `system` message is enough; the
    `hook_success` attachment (the hook's stdout) is not what the model read."""
    lines = (DATA / "claude-2.1.332.jsonl").read_text().splitlines()
    only_blob = [ln for ln in lines if '"api-request-blob"' in ln]
    only_stdout = [ln for ln in lines if '"hook_success"' in ln]
    rid = _ids(DATA / "claude-2.1.332.jsonl")[0]
    for kept, expected in ((only_blob, True), (only_stdout, False)):
        assert (rid in arrival.contexts("claude", _write(tmp_path / f"t{expected}.jsonl", kept))) is expected


def _write(path: Path, lines: "list[str]") -> str:
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_no_transcript_says_nothing(repo):
    _notes("e", [["01M99CFQ66T6096Q0DYSAYA09K"]])
    assert arrival.check(Payload(session_id="e", transcript_path="", cwd=str(repo), agent="codex"), True) == 0
    assert arrival.check(Payload(session_id="e", transcript_path="/nonexistent", cwd=str(repo), agent="codex"),
                         True) == 0


def test_arrival_per_agent_and_the_doctor_warns_when_it_stopped(conn, repo):
    from agentctx.claude import doctor
    from agentctx.store import sessions

    pid = "p" * 16
    for n, (agent, event) in enumerate([("claude", "arrived"), ("codex", "arrived"), ("codex", "not_found"),
                                        ("codex", "not_found"), ("codex", "not_found")]):
        sid = f"{agent}-{n}"
        sessions.touch(conn, sid, pid, f"2026-12-0{n + 1}T00:00:00Z", agent=agent)
        sessions.log_injection(conn, session_id=sid, project_id=pid, event=f"PreToolUse/{event}", prompt_hash="k",
                               record_ids=["r1"], scores=[], tokens=0, created_at=f"2026-12-0{n + 1}T00:00:01Z")
    got = sessions.arrival_by_agent(conn, pid)
    assert got["claude"] == {"arrived": 1, "not_found": 0, "checked": 1, "stopped_arriving": False}
    assert got["codex"]["checked"] == 4 and got["codex"]["stopped_arriving"]
    checks = {c.name: c for c in doctor.check_arrival(conn, False)}
    assert checks["arrival claude"].status == "ok" and checks["arrival codex"].status == "warn"
    assert "stopped arriving" in checks["arrival codex"].detail


def test_copilot_marks_a_denied_call_arrived_and_says_nothing_of_what_its_log_does_not_keep(repo, tmp_path):
    """RECORDED: tests/data/arrival/copilot-1.0.102.jsonl is cut from the session log (events.jsonl) of the real
    Copilot CLI 1.0.102 in tests/e2e/test_copilot_action.py: a `create` whose preToolUse context reached the model
    (the CLI logs it nowhere: its `hook.end` has no output) and a `git push --force` the guard denied."""
    name = "copilot-1.0.102.jsonl"
    transcript = tmp_path / name
    transcript.write_text((DATA / name).read_text())
    guard = re.search(r"agentctx guard (01[0-9A-Z]{24})", (DATA / name).read_text()).group(1)
    path = paths.actions_file("c")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    rows = [{"key": "k0", "ids": ["01M99J8JXH8X0J3GBWEHJR0GJA"], "decisions": [""], "tool": "Write"},
            {"key": "k1", "ids": [guard], "decisions": ["ask"], "tool": "Bash"},
            {"key": "k2", "ids": ["01ZZZZZZZZZZZZZZZZZZZZZZZZ"], "decisions": ["deny"], "tool": "Bash"}]
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))
    payload = Payload(session_id="c", transcript_path=str(transcript), cwd=str(repo), agent="copilot")
    assert arrival.check(payload, final=False) == 1
    assert arrival.check(payload, final=True) == 1
    marks = {r["event"]: r["record_ids"] for r in _pending()}
    assert marks == {"PreToolUse/arrived": [guard], "PreToolUse/not_found": ["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]}
    # The hook's own stdout (`hook.end` output) is not what the model read.
    stdout = [ln for ln in (DATA / name).read_text().splitlines() if '"hook.end"' in ln]
    assert guard in "\n".join(stdout) and guard not in arrival.contexts("copilot", _write(tmp_path / "h.jsonl", stdout))
