"""The Claude Code CLI backend with a FAKE `claude` executable (a script written here; its answers are HAND-WRITTEN):
the command line and environment it gets, the records it yields, and every failure (missing, broken, timeout, not
JSON, failing validation, rate limit, login) logged with what to do, the cursor kept, nothing half-written."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from agentctx.base import config, paths
from agentctx.extract import backend, cursor, execute, quota
from agentctx.extract.claude_code import CLIError, argv, parse
from agentctx.memory.status import extraction_state
from agentctx.store import extraction, records

SECRET = "sk-ant-api03-" + "Q" * 40  # planted in the developer's words: it must not reach the CLI

FAKE = textwrap.dedent('''\
    #!{python}
    """FAKE `claude` for agentctx's tests: records how it was called, answers as FAKE_CLAUDE_MODE says."""
    import json, os, sys, time
    here = os.path.dirname(os.path.abspath(__file__))
    mode = open(os.path.join(here, "mode")).read().strip()
    stdin = sys.stdin.read()
    with open(os.path.join(here, "calls.jsonl"), "a") as fh:
        fh.write(json.dumps({{"argv": sys.argv[1:], "stdin": stdin, "cwd": os.getcwd(),
                             "child": os.environ.get("AGENTCTX_EXTRACTION_CHILD"),
                             "claudecode": os.environ.get("CLAUDECODE"),
                             "no_claude_md": os.environ.get("CLAUDE_CODE_DISABLE_CLAUDE_MDS")}}) + "\\n")
    usage = {{"input_tokens": 900, "output_tokens": 120, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0}}
    def result(**kw):
        base = {{"type": "result", "subtype": "success", "is_error": False, "num_turns": 2, "result": "",
                 "total_cost_usd": 0.0015, "usage": usage, "modelUsage": {{"claude-haiku-4-5": {{}}}}}}
        base.update(kw)
        print(json.dumps(base))
    if mode == "ok":
        answer = json.load(open(os.path.join(here, "answer.json")))
        result(result=json.dumps(answer), structured_output=answer)
    elif mode == "rate_limit":
        result(is_error=True, api_error_status=429, result="API Error: Request rejected (429)", total_cost_usd=0)
        sys.exit(1)
    elif mode == "auth":
        result(is_error=True, api_error_status=401, result="Failed to authenticate. API Error: 401", total_cost_usd=0)
        sys.exit(1)
    elif mode == "not_logged_in":  # what the real 2.1.197 printed with an empty HOME (tests/data/claude-code)
        print(open(os.path.join(here, "not-logged-in.json")).read().strip())
        sys.exit(1)
    elif mode == "not_json":
        print("Sure! Here are the records you asked for.")
    elif mode == "broken":
        print("TypeError: cannot read properties of undefined", file=sys.stderr)
        sys.exit(3)
    elif mode == "timeout":
        time.sleep(30)
    elif mode == "invalid":
        result(result="{{}}", structured_output={{"summary": "a decision was made"}})
    elif mode == "proxy":  # what the CLI says when its HTTPS_PROXY refuses it (the proxy URL carries a password)
        result(is_error=True, result="API Error: Unable to connect to API via proxy "
               "http://user:s3cr3t-proxy-pass@proxy:8080 (ECONNREFUSED)", total_cost_usd=0)
        sys.exit(1)
    elif mode == "key":  # a key in the CLI's own error text
        print("Error: Invalid API key sk-ant-api03-" + "K" * 40 + " · Please run /login", file=sys.stderr)
        sys.exit(1)
''')

DECISION = {"what": "Retries go in a transport wrapper", "rationale": "keeps the client small", "supersedes": None,
            "confidence": "explicit", "evidence": "retries go in a transport wrapper"}


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A FAKE `claude` on PATH, answering as `fake.mode(...)` says; its calls are kept in `fake.calls()`."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (bin_dir / "answer.json").write_text(json.dumps({
        "decisions": [DECISION], "preferences": [], "conventions": [], "gotchas": [], "active_work": None,
        "flush_ok": False}))
    (bin_dir / "not-logged-in.json").write_text(
        (Path(__file__).parents[1] / "data" / "claude-code" / "not-logged-in-2.1.197.json").read_text())
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("CLAUDECODE", "1")  # as in a hook's environment

    class Fake:
        path = str(exe)

        @staticmethod
        def mode(name: str) -> None:
            (bin_dir / "mode").write_text(name)

        @staticmethod
        def calls() -> list[dict]:
            f = bin_dir / "calls.jsonl"
            return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []

    Fake.mode("ok")
    return Fake


def _log() -> str:
    path = paths.logs_dir() / "extract.log"
    return path.read_text() if path.exists() else ""


def _said(writer) -> None:
    writer.turn(f"remember: retries go in a transport wrapper, not in the client. my key is {SECRET}",
                "Understood: a transport wrapper.")


def test_auto_chooses_the_cli_without_a_key_and_the_api_with_one(fake, monkeypatch):
    choice = backend.choose()
    assert choice.backend == "claude-code" and choice.claude == fake.path and "no ANTHROPIC_API_KEY" in choice.reason
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    from importlib.util import find_spec

    assert backend.choose().backend == ("api" if find_spec("anthropic") else "claude-code")
    config.set_value("extraction", "claude-code")
    assert backend.choose().backend == "claude-code"
    config.set_value("extraction", "off")
    assert backend.choose().backend == "off"


def test_a_recorded_path_wins_and_none_found_is_off(fake, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert backend.choose().backend == "off"
    config.set_value("claudeCodePath", fake.path)
    assert backend.choose().claude == fake.path


def test_the_cli_call_extracts_a_grounded_record_with_our_flags(fake, conn, pid, writer, project_dir):
    _said(writer)
    r = execute("s1", writer.path, cwd=str(project_dir))
    assert (r.written, r.skipped, r.calls) == (1, None, 1)
    (call,) = fake.calls()
    flags = call["argv"]
    assert flags[:1] == ["-p"] and flags[flags.index("--output-format") + 1] == "json"
    assert flags[flags.index("--model") + 1] == "claude-haiku-4-5"
    assert flags[flags.index("--tools") + 1] == "" and "--strict-mcp-config" in flags
    assert "--no-session-persistence" in flags
    assert json.loads(flags[flags.index("--settings") + 1]) == {"disableAllHooks": True}
    assert json.loads(flags[flags.index("--json-schema") + 1])["required"]
    assert "--system-prompt" in flags and "Claude Code" not in flags[flags.index("--system-prompt") + 1][:40]
    assert "retries go in a transport wrapper" in call["stdin"] and SECRET not in call["stdin"]
    assert call["child"] == "1" and call["claudecode"] is None and call["no_claude_md"] == "1"
    assert call["cwd"] != str(project_dir)  # an empty directory of ours: no project settings or CLAUDE.md around it
    (rec,) = [x for x in records.current(conn, pid) if x.type == "decision"]
    assert rec.title == "Retries go in a transport wrapper"
    (day,) = extraction.per_day(conn)
    assert (day["backend"], day["calls"], day["input_tokens"], day["output_tokens"]) == ("claude-code", 1, 900, 120)
    assert day["cost_usd"] == pytest.approx(0.0015)  # what the CLI reported, not our price table
    assert cursor.load("s1").offset > 0


@pytest.mark.parametrize("mode, kind, advice", [
    ("rate_limit", "rate_limit", "usage limit"),
    ("auth", "auth", "/login"),
    ("broken", "broken", "claude -p hello"),
])
def test_a_cli_that_cannot_answer_pauses_without_counting_against_the_part(fake, conn, pid, writer, project_dir,
                                                                            mode, kind, advice):
    _said(writer)
    fake.mode(mode)
    r = execute("s1", writer.path, cwd=str(project_dir))
    assert r.skipped == "paused" and r.written == 0
    assert cursor.load("s1").offset == 0 and cursor.load("s1").failures == 0  # sent again later, in full
    assert records.current(conn, pid, types=["decision"]) == []
    line = next(ln for ln in _log().splitlines() if "extract paused" in ln)
    assert kind in line and advice in line and "Nothing was written" in line
    assert quota.paused() is not None
    assert execute("s1", writer.path, cwd=str(project_dir)).skipped == "paused"  # no second call while paused
    assert len(fake.calls()) == 1
    state = extraction_state(conn, config.load())
    assert state["backend"] == "claude-code" and state["paused"].startswith("paused for")
    quota.clear()
    fake.mode("ok")
    assert execute("s1", writer.path, cwd=str(project_dir)).written == 1  # the part was kept: now it lands


def test_a_missing_executable_is_said_plainly(fake, conn, writer, project_dir, tmp_path):
    _said(writer)
    config.set_value("extraction", "claude-code")
    config.set_value("claudeCodePath", fake.path)
    os.unlink(fake.path)
    assert execute("s1", writer.path, cwd=str(project_dir)).skipped == "no_api_key"
    assert "no `claude` executable" in backend.choose().reason


def test_a_timeout_kills_the_child_and_pauses(fake, conn, writer, project_dir, monkeypatch):
    from agentctx.extract import claude_code

    monkeypatch.setattr(claude_code, "TIMEOUT_S", 1.0)
    _said(writer)
    fake.mode("timeout")
    r = execute("s1", writer.path, cwd=str(project_dir))
    assert r.skipped == "paused" and "timeout" in _log() and cursor.load("s1").offset == 0


@pytest.mark.parametrize("mode", ["not_json", "invalid"])
def test_an_unusable_answer_is_a_failure_and_writes_nothing(fake, conn, pid, writer, project_dir, mode):
    _said(writer)
    fake.mode(mode)
    r = execute("s1", writer.path, cwd=str(project_dir))
    assert r.skipped == "unparseable" and r.written == 0
    assert cursor.load("s1").offset == 0 and cursor.load("s1").failures == 1
    assert records.current(conn, pid, types=["decision"]) == []
    assert ("not JSON" if mode == "not_json" else "failed validation") in _log()


def test_calls_per_hour_are_bounded(fake, conn, writer, project_dir):
    config.set_value("extractionCallsPerHour", 2)
    for i in range(3):
        writer.turn(f"remember: retries go in a transport wrapper, round {i}", "OK.")
        r = execute("s1", writer.path, cwd=str(project_dir))
    assert r.skipped == "quota" and len(fake.calls()) == 2
    assert "extractionCallsPerHour" in _log()
    assert sum(d["calls"] for d in extraction.per_day(conn)) == 2


def test_parse_reads_the_cli_result_and_classifies_errors():
    ok = json.dumps({"is_error": False, "structured_output": {"flush_ok": True}, "usage": {"input_tokens": 5},
                     "total_cost_usd": 0.01, "modelUsage": {"claude-haiku-4-5": {}}})
    message = parse(ok, "", 0)
    assert json.loads(message["content"][0]["text"]) == {"flush_ok": True}
    assert message["total_cost_usd"] == 0.01 and message["model"] == "claude-haiku-4-5"
    with pytest.raises(CLIError) as info:
        parse(json.dumps({"is_error": True, "api_error_status": 529, "result": "Overloaded"}), "", 1)
    assert info.value.kind == "rate_limit" and info.value.backs_off
    with pytest.raises(CLIError) as info:
        parse(json.dumps({"is_error": True, "api_error_status": 500, "result": "Internal"}), "", 1)
    assert info.value.kind == "cli_error" and not info.value.backs_off
    with pytest.raises(CLIError) as info:
        parse("", "TypeError: cannot read properties of undefined", 3)
    assert info.value.kind == "broken"
    with pytest.raises(CLIError) as info:  # the text form of "not logged in" (without --output-format json)
        parse("Not logged in · Please run /login\n", "", 1)
    assert info.value.kind == "auth"


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_the_real_not_logged_in_answer_is_a_login_problem(version):
    """What the real `claude -p hi --output-format json` printed with an empty HOME (exit 1; tests/data/claude-code,
    vendor-notes/claude-code-headless.md)."""
    recorded = (Path(__file__).parents[1] / "data" / "claude-code" / f"not-logged-in-{version}.json").read_text()
    with pytest.raises(CLIError) as info:
        parse(recorded, "", 1)
    assert info.value.kind == "auth" and info.value.backs_off and "Not logged in" in info.value.detail


def test_argv_asks_for_no_tools_no_mcp_no_hooks_and_no_session_file():
    command = argv("/bin/claude", "claude-haiku-4-5", "SYSTEM", {"type": "object"})
    assert command[0] == "/bin/claude" and "--bare" not in command  # --bare refuses the subscription login


def test_our_hooks_do_nothing_inside_the_extraction_child(monkeypatch, capsys):
    from agentctx.hooks import run

    monkeypatch.setenv("AGENTCTX_EXTRACTION_CHILD", "1")
    monkeypatch.setattr("sys.stdin", None)
    assert run(["user-prompt-submit"]) == 0 and capsys.readouterr().out == ""


PROXY_PASSWORD, LEAKED_KEY = "s3cr3t-proxy-pass", "sk-ant-api03-" + "K" * 40


def _shown(capsys, *argvs) -> str:
    from agentctx.cli import main

    for argv in argvs:
        main(list(argv))
    out = capsys.readouterr()
    return out.out + out.err


@pytest.mark.parametrize("mode", ["proxy", "key"])
def test_credentials_in_the_clis_error_are_never_stored_or_shown(fake, conn, pid, writer, project_dir, mode,
                                                                monkeypatch, capsys):
    _said(writer)
    fake.mode(mode)
    assert execute("s1", writer.path, cwd=str(project_dir)).skipped == "paused"
    (outcome,) = [r[0] for r in conn.execute("SELECT outcome FROM extraction_calls")]
    backoff = (paths.state_dir() / "extract-backoff.json").read_text()
    assert "[REDACTED:" in outcome and "[REDACTED:" in backoff
    monkeypatch.chdir(project_dir)
    shown = _shown(capsys, ["status"], ["status", "--json"], ["doctor"], ["doctor", "--json"])
    assert "paused for" in shown
    for text in (outcome, backoff, _log(), shown):
        assert PROXY_PASSWORD not in text and LEAKED_KEY not in text


def test_what_an_earlier_version_stored_unscrubbed_is_shown_scrubbed_and_rescrubbed(fake, conn, pid, project_dir,
                                                                                   monkeypatch, capsys):
    import time

    from agentctx.memory import consolidate
    from agentctx.base.project import detect

    raw = f"offline: API Error: Unable to connect via proxy http://user:{PROXY_PASSWORD}@proxy:8080 key {LEAKED_KEY}"
    paths.ensure_private_dir(paths.state_dir())
    (paths.state_dir() / "extract-backoff.json").write_text(json.dumps({"until": time.time() + 600, "why": raw}))
    conn.execute("INSERT INTO extraction_calls (at, backend, project_id, session_id, calls, input_tokens, "
                 "output_tokens, cost_usd, outcome) VALUES ('2026-12-01T10:00:00Z', 'claude-code', ?, 's0', 1, 0, 0, "
                 "0, ?)", (pid, raw))
    conn.commit()
    monkeypatch.chdir(project_dir)
    shown = _shown(capsys, ["status"], ["status", "--json"], ["doctor"])
    assert "paused for" in shown and PROXY_PASSWORD not in shown and LEAKED_KEY not in shown
    consolidate.run(detect(project_dir))
    (outcome,) = [r[0] for r in conn.execute("SELECT outcome FROM extraction_calls")]
    assert PROXY_PASSWORD not in outcome and LEAKED_KEY not in outcome


def test_not_logged_in_is_said_with_its_fix_everywhere(fake, conn, writer, project_dir, monkeypatch, capsys):
    """`extract`, the next SessionStart, `backfill`, `doctor` and `status` each say, in one line, that Claude Code is
    not logged in and how to fix it (issue 34, item 11)."""
    from agentctx import cli
    from agentctx.memory import notice

    fix = "run `claude` and /login"
    _said(writer)
    fake.mode("not_logged_in")
    monkeypatch.chdir(project_dir)
    assert cli.main(["extract", "--session-id", "s1", "--transcript", str(writer.path)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "not logged in" in out and fix in out
    assert quota.kind() == "auth"
    line = notice.session_line("p", notify="brief", source="startup", tokens=0)
    assert line is not None and "extraction paused" in line and fix in line
    doctor = {c["name"]: c for c in _doctor(capsys)}
    assert "extraction on" not in doctor["llm"]["detail"] and "add it with" not in doctor["llm"]["detail"]
    assert doctor["extraction"]["status"] == "warn" and fix in doctor["extraction"]["fix"]
    assert cli.main(["status"]) == 0 and fix in capsys.readouterr().out
    from agentctx.extract import backfill

    claude_projects = paths.claude_home() / "projects" / backfill.encode(str(project_dir))
    claude_projects.mkdir(parents=True)
    (claude_projects / "s1.jsonl").write_text(writer.path.read_text())
    assert cli.main(["backfill", "--yes"]) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert fix in said and "[llm]" not in said


def _doctor(capsys) -> list[dict]:
    from agentctx import cli

    cli.main(["doctor", "--json"])
    return json.loads(capsys.readouterr().out)


def test_extraction_api_without_a_key_names_the_claude_code_that_is_installed(fake, monkeypatch, capsys):
    from agentctx import cli

    config.set_value("extraction", "api")
    detail = {c["name"]: c for c in _doctor(capsys)}["extraction"]["detail"]
    assert "install Claude Code" not in detail and "agentctx config set extraction auto" in detail
