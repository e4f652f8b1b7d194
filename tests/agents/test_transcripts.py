"""Extraction and snapshots read Codex's rollout, Gemini's chat file and Copilot's session log through their adapters.
The files in tests/data/agents were written by the real CLIs (Codex 0.171.0, Gemini CLI 0.61.0, Copilot CLI 1.0.102)
against the e2e stand-ins, with hook context markers in them; only overlong instruction texts were cut."""

from __future__ import annotations

from pathlib import Path

from agentctx.extract import transcript
from agentctx.memory import snapshot

DATA = Path(__file__).resolve().parents[1] / "data" / "agents"
PROMPT_C = "We use WAL for the store. Please create the branch feature/x"
PROMPT_G = "We use WAL for the store. Please create the branch feature/y"
PROMPT_P = "We use WAL for the store. Please create the branch feature/z"


def test_a_codex_rollout_reads_as_the_developer_and_the_assistant():
    part = transcript.read(DATA / "codex-rollout.jsonl")
    assert [(t.role, t.text) for t in part.turns] == [("developer", PROMPT_C), ("assistant", "Running it."),
                                                      ("assistant", "Done: the command ran.")]
    assert part.cwd == "/tmp/transcripts/c/repo" == transcript.session_cwd(DATA / "codex-rollout.jsonl")
    assert "E2E-CONTEXT" not in transcript.render(part.turns)  # hook context (ours too) is never the developer


def test_a_gemini_chat_reads_without_hook_context_and_once_per_record():
    part = transcript.read(DATA / "gemini-chat.jsonl")
    # the model turn is written twice (without, then with its tool call): one turn
    assert [(t.role, t.text) for t in part.turns] == [("developer", PROMPT_G), ("assistant", "Running it."),
                                                      ("assistant", "Done: the command ran.")]
    assert part.skipped == 0 and part.cwd is None


def test_reading_from_an_offset_goes_on_where_it_stopped():
    data = (DATA / "codex-rollout.jsonl").read_bytes()
    first = transcript.parse(data[: len(data) // 2])
    rest = transcript.read(DATA / "codex-rollout.jsonl", first.end)
    assert [t.text for t in first.turns + rest.turns] == [PROMPT_C, "Running it.", "Done: the command ran."]


def test_a_snapshot_takes_the_recent_prompts_of_either_agent():
    assert snapshot.recent_prompts(str(DATA / "codex-rollout.jsonl")) == [PROMPT_C]
    assert snapshot.recent_prompts(str(DATA / "gemini-chat.jsonl")) == [PROMPT_G]


def test_a_copilot_session_log_reads_as_the_developer_and_the_assistant():
    part = transcript.read(DATA / "copilot-events.jsonl")
    assert [(t.role, t.text) for t in part.turns] == [("developer", PROMPT_P), ("assistant", "Running it."),
                                                      ("assistant", "Done: the command ran.")]
    assert part.cwd == "/tmp/transcripts/p/repo" and part.skipped == 0
    assert "E2E-CONTEXT" not in transcript.render(part.turns)  # hook context is in transformedContent only
    assert snapshot.recent_prompts(str(DATA / "copilot-events.jsonl")) == [PROMPT_P]
