"""FAKE models for the expansion pass's tests: no model runs, every answer is HAND-WRITTEN from the request.

`FakeLLM` stands in for the Messages API client (`messages.create`); `fake_claude` writes a FAKE `claude`
executable, so the real Claude Code call path (command line, child environment, result parsing) runs.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

RECORD_LINE = re.compile(r"^\[(r\d+)\] \((\w+)\) (.*)$", re.MULTILINE)


def keys_of(user: str) -> list[tuple[str, str, str]]:
    """(id, type, title) of every record in a request's user turn."""
    return RECORD_LINE.findall(user)


def answer_all(keys: list[tuple[str, str, str]]) -> dict[str, Any]:
    """HAND-WRITTEN: two questions and two aliases per record, made from its title (the `rN` id in one alias)."""
    return {"records": [{"id": key, "questions": [f"what did we settle about {title.lower()}?",
                                                  f"why {title.lower()}?"],
                         "aliases": [f"synonym{key}", "fakealias"]} for key, _type, title in keys]}


class FakeLLM:
    """A FAKE Messages API client: `messages.create(**kwargs)` answers with `reply(keys)` (a dict is sent as JSON,
    a string as it is, an exception is raised), with usage sized from the request (chars / 4)."""

    def __init__(self, reply: Callable[[list[tuple[str, str, str]]], Any] = answer_all) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.messages = self

    def create(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        user = kwargs["messages"][0]["content"]
        out = self.reply(keys_of(user))
        if isinstance(out, Exception):
            raise out
        text = out if isinstance(out, str) else json.dumps(out)
        return {"content": [{"type": "text", "text": text}], "model": "claude-haiku-4-5",
                "usage": {"input_tokens": len(user) // 4, "output_tokens": len(text) // 4}}

    def users(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests]


class Rejected(Exception):
    """What the SDK raises for a request the API refuses for good (a 422: not retried, not a backend pause)."""

    status_code = 422


FAKE_CLAUDE = textwrap.dedent('''\
    #!{python}
    """FAKE `claude` for agentctx's expansion tests: records how it was called, answers as the `mode` file says."""
    import json, os, re, sys
    here = os.path.dirname(os.path.abspath(__file__))
    mode = open(os.path.join(here, "mode")).read().strip()
    stdin = sys.stdin.read()
    with open(os.path.join(here, "calls.jsonl"), "a") as fh:
        fh.write(json.dumps({{"argv": sys.argv[1:], "stdin": stdin,
                             "child": os.environ.get("AGENTCTX_EXTRACTION_CHILD"),
                             "claudecode": os.environ.get("CLAUDECODE")}}) + "\\n")
    usage = {{"input_tokens": 700, "output_tokens": 90}}
    if mode == "rate_limit":
        print(json.dumps({{"type": "result", "is_error": True, "api_error_status": 429,
                           "result": "API Error: Request rejected (429)", "total_cost_usd": 0}}))
        sys.exit(1)
    keys = re.findall(r"^\\[(r\\d+)\\] \\((\\w+)\\) (.*)$", stdin, re.MULTILINE)
    answer = {{"records": [{{"id": k, "questions": ["what did we settle about " + t.lower() + "?"],
                             "aliases": ["cliexpanded"]}} for k, _, t in keys]}}
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "result": json.dumps(answer),
                       "structured_output": answer, "total_cost_usd": 0.002, "usage": usage,
                       "modelUsage": {{"claude-haiku-4-5": {{}}}}}}))
''')


class FakeClaude:
    """The FAKE `claude` on PATH: `mode(name)` sets how it answers, `calls()` what it was given."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.path = str(bin_dir / "claude")

    def mode(self, name: str) -> None:
        (self.bin_dir / "mode").write_text(name)

    def calls(self) -> list[dict[str, Any]]:
        f = self.bin_dir / "calls.jsonl"
        return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []


def fake_claude(tmp_path: Path, monkeypatch: Any) -> FakeClaude:
    """Put a FAKE `claude` first on PATH, with no API key, as in a hook's environment."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(FAKE_CLAUDE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("CLAUDECODE", "1")
    fake = FakeClaude(bin_dir)
    fake.mode("ok")
    return fake
