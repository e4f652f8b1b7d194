"""bench/hooks.py times each hook as Codex, Gemini and Copilot CLI run it: its payloads are ones the adapters act on (a
prompt injects, the Gemini prompt's digest prefix is stripped, a shell call is captured)."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

from agentctx.hooks import run

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_hooks", ROOT / "bench" / "hooks.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_every_adapter_form_runs_as_its_agent_would(add, conn, repo, monkeypatch, capsys):
    add("Cache decision", "We keep the cache index in sqlite with a token budget per session.")
    prompts = [json.dumps({"cwd": str(repo), "session_id": "b1", "prompt": "sqlite cache index token budget"}).encode()]
    forms = bench.agent_events({"cwd": str(repo), "transcript_path": ""}, prompts)
    assert set(forms) == set(bench.AGENT_FORMS)
    out = {}
    for form, payloads in forms.items():
        event, _, agent = form.partition(":")
        monkeypatch.setattr(sys, "stdin", io.StringIO(payloads[0].decode()))
        assert run([event, "--agent", agent]) == 0
        out[form] = capsys.readouterr().out
    for agent, name in (("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent")):
        assert f'"hookEventName":"{name}"' in out[f"user-prompt-submit:{agent}"]
        assert "Cache decision" in out[f"user-prompt-submit:{agent}"]
    assert json.loads(out["user-prompt-submit:copilot"])["additionalContext"].count("Cache decision") == 1
    assert out["post-tool-use:codex"] == out["post-tool-use:gemini"] == out["post-tool-use:copilot"] == ""
    assert [r[0] for r in conn.execute("SELECT count(*) FROM records WHERE type = 'bugfix'")] == [0]
