"""Claude Code's auto memory directory for a project whose path is longer than 200 sanitized characters, with the
REAL CLI (pinned, from npm) against the local Messages API stand-in (answers HAND-WRITTEN): the directory its system
prompt names is the one `outside.memdirs.memory_dir` derives (issue 42, item 15: two such projects sharing their first
200 characters got each other's memory when the directory was matched by prefix)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

import messages_standin as ms
from claude_sandbox import claude_bin

CLAUDE, NO_CLAUDE = claude_bin()
pytestmark = pytest.mark.skipif(not CLAUDE, reason=NO_CLAUDE)
_MEMORY_DIR = re.compile(r"persistent file-based memory at `([^`]+)`")


def _system(body: dict) -> str:
    system = body.get("system")
    return "\n".join(b.get("text", "") for b in system) if isinstance(system, list) else str(system or "")


def test_the_memory_directory_of_a_long_path_is_the_one_claude_code_names(tmp_path):
    from agentctx.outside import memdirs

    home = tmp_path / "claude-home"
    home.mkdir()
    roots = [tmp_path / ("segment-" * 30) / name for name in ("service_a", "service_b")]
    named = []
    with ms.MessagesStandIn(lambda body: [{"type": "text", "text": "OK."}]) as api:
        for root in roots:
            root.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(root)], check=True)
            env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "ANTHROPIC_BASE_URL": api.base_url,
                   "ANTHROPIC_API_KEY": "sk-ant-standin-not-a-key", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                   "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}
            n = len(api.message_bodies())
            subprocess.run([CLAUDE, "-p", "hello"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
            found = [m.group(1) for b in api.message_bodies()[n:] if (m := _MEMORY_DIR.search(_system(b)))]
            assert found, "Claude Code's system prompt named no memory directory"
            named.append(Path(found[0].rstrip("/")))
    assert named[0] != named[1] and named[0].name == named[1].name == "memory"
    for root, where in zip(roots, named):
        where.mkdir(parents=True, exist_ok=True)
        assert len(memdirs.sanitize(str(root.resolve()))) > memdirs.SANITIZED_MAX
        assert where == home / ".claude" / "projects" / memdirs.sanitize(str(root.resolve())) / "memory"
