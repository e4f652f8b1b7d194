"""The real Claude Code CLI with no login (an empty HOME, no key, no network): the extraction call through it is
classified as a login problem, so agentctx pauses and names the fix (vendor-notes/claude-code-headless.md)."""

from __future__ import annotations

import os

import pytest

from claude_sandbox import claude_bin

from agentctx.extract.claude_code import CLIError, ClaudeCodeClient

CLAUDE, WHY = claude_bin()
pytestmark = pytest.mark.skipif(CLAUDE is None, reason=WHY)


def test_the_real_cli_without_a_login_is_a_login_problem(tmp_path, monkeypatch):
    home = tmp_path / "empty-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    client = ClaudeCodeClient(str(CLAUDE), timeout=60, cwd=str(tmp_path))
    with pytest.raises(CLIError) as info:
        client.messages.create(model="claude-haiku-4-5", system=[{"type": "text", "text": "x"}],
                               messages=[{"role": "user", "content": "hi"}],
                               output_config={"format": {"type": "json_schema", "schema": {"type": "object"}}})
    assert info.value.kind == "auth" and "Not logged in" in info.value.detail, info.value
    assert os.listdir(home)  # it ran for real (it writes its state under HOME)
