from __future__ import annotations

import json

import pytest

from agentctx.base import paths
from agentctx.hooks import HANDLERS


@pytest.mark.parametrize("raw", ["", "not json", "[1, 2]", "42", "null"])
def test_junk_stdin_prints_nothing_and_logs(hook, raw):
    assert hook("session-start", raw) is None
    assert "not a JSON object" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


def test_unknown_event_is_logged(hook):
    assert hook("no-such-event", {}) is None
    assert "unknown hook event" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("spelling", ["UserPromptSubmit", "user_prompt_submit", "user-prompt-submit"])
def test_claude_codes_own_event_names_run_the_same_hook(hook, repo, spelling):
    from agentctx.store import db
    from agentctx.base.models import NewRecord
    from agentctx.base.project import detect
    from agentctx.store import records

    conn = db.connect(paths.db_path(), create=True)
    records.insert(conn, NewRecord("decision", "Use PostgreSQL with pgbouncer pooling",
                                   "PostgreSQL behind pgbouncer in transaction pooling mode.", detect(repo).id))
    conn.close()
    out = hook(spelling, {"session_id": f"s-{spelling}", "cwd": str(repo),
                          "prompt": "why is pgbouncer in transaction pooling mode with postgresql?"})
    assert "Use PostgreSQL with pgbouncer pooling" in out["hookSpecificOutput"]["additionalContext"]


def test_canonical_event_names():
    from agentctx.hooks import canonical

    assert [canonical(e) for e in ("SessionStart", "PreCompact", "PostToolUse", "session_end", "stop", "Stop")] == [
        "session-start", "pre-compact", "post-tool-use", "session-end", "stop", "stop"]
    assert canonical("NoSuchEvent") == "NoSuchEvent" and canonical("") == ""


def test_handler_exception_fails_open(hook, monkeypatch):
    from agentctx.hooks import session

    monkeypatch.setattr(session, "session_start", lambda p: 1 / 0)
    assert hook("session-start", {"cwd": "/"}) is None
    assert "ZeroDivisionError" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


def test_corrupt_db_fails_open(hook, repo):
    paths.ensure_private_dir(paths.home())
    paths.db_path().write_bytes(b"this is not sqlite" * 100)
    for event in HANDLERS:  # nothing for the model (SessionStart's user notice may remain, SPEC §4.8)
        out = hook(event, {"session_id": "s", "cwd": str(repo), "prompt": "sqlite", "tool_name": "Write",
                           "tool_input": {"file_path": "a.py"}})
        assert out is None or set(out) == {"systemMessage"}


def test_every_event_has_a_handler():
    import importlib

    for module, func in HANDLERS.values():
        assert callable(getattr(importlib.import_module(f"agentctx.hooks.{module}"), func))


def test_hook_via_cli_main(monkeypatch, capsys, tmp_path):
    import io
    import sys

    from agentctx.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"cwd": str(tmp_path)})))
    assert main(["hook", "session-start"]) == 0
    assert capsys.readouterr().out == ""


def _at_terminal(*argv):
    """Run `python -m agentctx ARGV` with a real terminal (a pty) as stdin, as a person typing it would."""
    import os
    import subprocess
    import sys

    pytest.importorskip("pty")
    master, slave = os.openpty()
    try:
        return subprocess.run([sys.executable, "-m", "agentctx", *argv], stdin=slave, capture_output=True, text=True,
                              timeout=60)
    finally:
        os.close(master)
        os.close(slave)


def test_hook_help_and_a_bogus_event_print_usage_at_a_terminal():
    helped = _at_terminal("hook", "--help")
    assert helped.returncode == 0 and "usage: agentctx hook EVENT" in helped.stdout
    assert all(event in helped.stdout for event in HANDLERS)
    bogus = _at_terminal("hook", "BOGUS")
    assert bogus.returncode == 64 and bogus.stdout == ""
    assert "unknown hook event 'BOGUS'" in bogus.stderr and "session-start" in bogus.stderr
    assert _at_terminal("hook").returncode == 64
    typed = _at_terminal("hook", "session-start")
    assert typed.returncode == 0 and typed.stdout == "" and "reads Claude Code's JSON payload" in typed.stderr


@pytest.mark.parametrize("argv", [["hook", "BOGUS"], ["hook"]])
def test_without_a_terminal_hooks_stay_silent_and_exit_0(argv):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "agentctx", *argv], input="{}", capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_hook_help_is_printed_whatever_stdin_is():
    """A person asking for help gets it even through a pipe (issue 26, item 11); Claude Code never runs --help."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "agentctx", "hook", "--help"], input="{}", capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage: agentctx hook EVENT") and done.stderr == ""


def test_top_level_help_lists_every_command(capsys):
    from agentctx.cli import build_parser, main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in [*sub.choices, "hook", "stash"]:
        assert f"\n    {name} " in out, name
