"""Fixtures of the agent adapter tests: a hook run in-process as an agent other than Claude Code runs it, and the
CLI run in-process in the test repository."""

from __future__ import annotations

import io
import json
import sys

import pytest


@pytest.fixture
def agent_hook(monkeypatch, capsys):
    """`agentctx hook EVENT --agent AGENT` with `payload` on stdin: its parsed output (None when it printed nothing).
    Nothing may reach stderr, and stdout is one JSON object or nothing (Gemini parses it whole, or shows it)."""
    from agentctx.hooks import run

    def _hook(agent, event, payload):
        raw = payload if isinstance(payload, str) else json.dumps(payload)
        monkeypatch.setattr(sys, "stdin", io.StringIO(raw))
        assert run([event, "--agent", agent]) == 0
        out = capsys.readouterr()
        assert out.err == ""
        if not out.out.strip():
            return None
        assert out.out.count("\n") == 1 and out.out.endswith("\n")
        return json.loads(out.out)
    return _hook


@pytest.fixture
def run(capsys, repo):
    """`agentctx -C REPO ARGV...` in-process: (exit code, stdout, stderr), never a traceback."""
    from agentctx import cli

    def invoke(*argv: str):
        rc = cli.main(["-C", str(repo), *argv])
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return rc, out.out, out.err
    return invoke
