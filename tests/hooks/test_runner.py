from __future__ import annotations

import json

import pytest

from agentctx import paths
from agentctx.hooks import HANDLERS


@pytest.mark.parametrize("raw", ["", "not json", "[1, 2]", "42", "null"])
def test_junk_stdin_prints_nothing_and_logs(hook, raw):
    assert hook("session-start", raw) is None
    assert "not a JSON object" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


def test_unknown_event_is_logged(hook):
    assert hook("no-such-event", {}) is None
    assert "unknown hook event" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


def test_handler_exception_fails_open(hook, monkeypatch):
    from agentctx.hooks import session

    monkeypatch.setattr(session, "session_start", lambda p: 1 / 0)
    assert hook("session-start", {"cwd": "/"}) is None
    assert "ZeroDivisionError" in (paths.logs_dir() / "hooks.log").read_text(encoding="utf-8")


def test_corrupt_db_fails_open(hook, repo):
    paths.ensure_private_dir(paths.home())
    paths.db_path().write_bytes(b"this is not sqlite" * 100)
    for event in HANDLERS:
        assert hook(event, {"session_id": "s", "cwd": str(repo), "prompt": "sqlite", "tool_name": "Write",
                            "tool_input": {"file_path": "a.py"}}) is None


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
