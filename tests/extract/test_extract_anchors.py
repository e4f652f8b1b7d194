"""Extraction's anchors are grounded in the session's own tool calls: a path the session edited, a command it ran;
anything else the model names is dropped (issue 33)."""

from __future__ import annotations

import json

from agentctx.extract import prompt, transcript, validate


def _line(content, mid="m1"):
    return json.dumps({"type": "assistant", "message": {"id": mid, "role": "assistant", "content": content}})


def test_tool_calls_become_short_action_lines(tmp_path):
    root = str(tmp_path / "repo")
    data = "\n".join([
        json.dumps({"type": "user", "cwd": root, "message": {"role": "user", "content": "amounts in cents please"}}),
        _line([{"type": "text", "text": "ok"},
               {"type": "tool_use", "name": "Edit", "input": {"file_path": f"{root}/src/payments/charge.py"}},
               {"type": "tool_use", "name": "Bash", "input": {"command": "cd app && alembic upgrade head --sql"}},
               {"type": "tool_use", "name": "Write", "input": {"file_path": "/etc/hosts"}}]),
    ]).encode() + b"\n"
    part = transcript.parse(data)
    assert [a[1] for a in part.actions] == ["path", "command", "path"]
    lines = transcript.action_lines(part.actions, root)
    assert lines == ("path:src/payments/charge.py", "command:cd app", "command:alembic upgrade head")
    assert "TOOL CALLS" in prompt.user_message("Developer: x", actions=lines)
    assert "TOOL CALLS" not in prompt.user_message("Developer: x")


def test_only_grounded_anchors_survive_validation():
    actions = ("path:src/payments/charge.py", "command:alembic upgrade head")
    data = {"conventions": [{"scope": "module", "convention": "Amounts are integer cents", "confidence": "explicit",
                             "supersedes": None, "evidence": "amounts are integer cents in payments",
                             "questions": [], "aliases": [],
                             "anchors": ["src/payments/**", "command:alembic upgrade", "src/billing/**",
                                         "command:pip install", "/etc/**", "**", "symbol:Charge.run", 7]}]}
    got = validate.check(data, "Developer: amounts are integer cents in payments", actions)
    (entry,) = got.entries
    assert entry.anchors == ("path:src/payments/**", "command:alembic upgrade")
    assert validate.check(data, "Developer: amounts are integer cents in payments").entries[0].anchors == ()
