"""Tests for the `agentctx stash` CLI, driven in-process, asserting sysexits codes."""

from __future__ import annotations

import io
import json

import pytest

from agentctx.stash import create_stash, read_recording
from agentctx.stash.cli import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def rec(tmp_path):
    stash = create_stash(id="r1")
    stash.value("llm", "plan", {"steps": [1]}, input={"q": "x"})
    stash.value("tool", "search", "token=abcdef123456 here")
    stash.value("llm", "plan", 2)
    path = tmp_path / "a.json"
    stash.write(path)
    return path


def test_inspect_and_stats(rec):
    code, out, _ = run("inspect", str(rec))
    assert code == 0 and "events 3" in out and "llm" in out
    code, out, _ = run("stats", str(rec), "--json", "--events")
    data = json.loads(out)
    assert code == 0 and data["events"] == 3 and len(data["event_list"]) == 3


def test_seal_and_verify(rec, tmp_path):
    seal = tmp_path / "a.seal.json"
    assert run("seal", str(rec), "-o", str(seal))[0] == 0
    code, out, _ = run("verify", str(rec), str(seal))
    assert code == 0 and out.startswith("valid")
    data = json.loads(rec.read_text(encoding="utf-8"))
    data["id"] = "tampered"
    rec.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run("verify", str(rec), str(seal), "--json")
    assert code == 1 and json.loads(out)["valid"] is False


def test_exit_codes_for_bad_input(rec, tmp_path):
    assert run("inspect", str(tmp_path / "missing.json"))[0] == 66
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = run("inspect", str(bad))
    assert code == 65 and err.count("\n") == 1 and "Traceback" not in err
    bad.write_text('{"version": 2}', encoding="utf-8")
    assert run("inspect", str(bad))[0] == 65
    assert run("frobnicate")[0] == 64
    assert run()[0] == 64
    assert run("verify", str(rec))[0] == 64
    assert run("fork", str(rec))[0] == 64
    assert run("fork", str(rec), "--at", "99")[0] == 64
    assert run("fork", str(rec), "--at", "1", "--override", "{bad")[0] == 64
    assert run("verify", str(rec), str(bad))[0] == 65
    assert run("--help")[0] == 0


def test_diff(rec, tmp_path):
    other = create_stash(id="r2")
    other.value("llm", "plan", {"steps": [9]}, input={"q": "x"})
    other.value("tool", "search", "token=abcdef123456 here")
    other.write(tmp_path / "b.json")
    code, out, _ = run("diff", str(rec), str(tmp_path / "b.json"))
    assert code == 0 and "first divergence: llm/plan#0" in out and "$.steps[0]: 1 → 9" in out
    assert run("diff", str(rec), str(tmp_path / "b.json"), "--exit-code")[0] == 1
    assert run("diff", str(rec), str(rec), "--exit-code")[0] == 0
    code, out, _ = run("diff", str(rec), str(tmp_path / "b.json"), "--json")
    assert json.loads(out)["first_divergence"] == "llm/plan#0"


def test_fork_and_redact(rec, tmp_path):
    out_path = tmp_path / "f.jsonl"
    assert run("fork", str(rec), "--at", "1", "--override", '"V"', "-o", str(out_path))[0] == 0
    forked = read_recording(out_path)
    assert len(forked.events) == 2 and forked.blobs[forked.events[1].ref] == "V"
    code, out, _ = run("fork", str(rec), "--at", "1")
    assert code == 0 and len(json.loads(out)["events"]) == 1
    code, out, _ = run("redact", str(rec))
    assert code == 0 and "abcdef123456" not in out and json.loads(out)["meta"]["redacted"] is True
