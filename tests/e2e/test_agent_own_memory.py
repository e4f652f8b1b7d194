"""One memory with the agents' own, end to end with the three REAL CLIs (pinned, from npm) on one repository, each
against its local model-API stand-in (answers HAND-WRITTEN):
  1. a Claude Code session writes auto memory (its model calls Write on the topic file and MEMORY.md, at the path
     Claude Code's system prompt names); a Gemini CLI session writes its private project memory (write_file on the
     MEMORY.md its system prompt names: 0.61 offers no save_memory tool); Codex's memories are written in the format
     its own consolidation prompt prescribes, and the real Codex is shown to load memory_summary.md;
  2. consolidation brings each in as one inferred record with its provenance, and each reaches the OTHER agents'
     sessions through the prompt hook;
  3. in the agent's own session it is delivered once (the agent's memory, not agentctx's injection too);
  4. editing a memory supersedes, deleting retires, and running consolidation again changes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import gemini_standin as gs
import messages_standin as ms
import openai_standin as os_
from agent_e2e import agentctx, hooks_log, query
from claude_sandbox import Run as ClaudeRun
from claude_sandbox import claude_bin
from codex_sandbox import codex_bin
from gemini_sandbox import gemini_bin

CLAUDE, NO_CLAUDE = claude_bin()
CODEX, NO_CODEX = codex_bin()
GEMINI, NO_GEMINI = gemini_bin()
pytestmark = pytest.mark.skipif(not (CLAUDE and CODEX and GEMINI), reason=NO_CLAUDE or NO_CODEX or NO_GEMINI)

REMEMBER = "Please remember: "
CLAUDE_FACT = "The integration tests need a running Redis on port 6390, started with make redis-up."
CLAUDE_HOOK = "integration tests need Redis on port 6390"
CLAUDE_EDIT = "The integration tests need a running Redis on port 6391, started with make redis-up."
GEMINI_FACT = "The staging database is refreshed from production every Sunday night by the dbsync job."
CODEX_FACT = "Invoice totals are computed in integer cents with the Money type; never use floats for money."
CODEX_PREFERENCE = "The user wants answers short, with the shell command first and the explanation after it."
ASK_CLAUDE_FACT = "Which port does the Redis for the integration tests use, and how is it started?"
ASK_GEMINI_FACT = "When is the staging database refreshed from production, and by which job?"
ASK_CODEX_FACT = "How are invoice totals computed with the Money type, in integer cents or floats?"
ASK_PREFERENCE = "How do I want answers: the shell command first and the explanation after it?"
AGENTCTX_BLOCK = "Relevant project context (agentctx"
_MEMORY_DIR = re.compile(r"persistent file-based memory at `([^`]+)`")
_GEMINI_MEMORY = re.compile(r"Private Project Memory\*\* \(`([^`]+)`\)")


def claude_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Writes auto memory as Claude Code's prompt asks: one topic file with frontmatter, then a MEMORY.md pointer."""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    prompt = ms.text_of(users[0].get("content")) if users else ""
    done = json.dumps(body.get("messages"))
    system = body.get("system")
    system_text = "\n".join(b.get("text", "") for b in system) if isinstance(system, list) else str(system or "")
    where = _MEMORY_DIR.search(system_text)
    if REMEMBER in prompt and where and ms.offers_tool(body, "Write"):
        directory = where.group(1).rstrip("/")
        if "toolu_mem1" not in done:
            topic = (f"---\nname: redis-port\ndescription: {CLAUDE_HOOK}\nmetadata:\n  type: project\n---\n"
                     f"{CLAUDE_FACT}\n")
            return [{"type": "tool_use", "id": "toolu_mem1", "name": "Write",
                     "input": {"file_path": f"{directory}/redis-port.md", "content": topic}}]
        if "toolu_mem2" not in done:
            return [{"type": "tool_use", "id": "toolu_mem2", "name": "Write",
                     "input": {"file_path": f"{directory}/MEMORY.md",
                               "content": f"- [Redis port](redis-port.md) — {CLAUDE_HOOK}\n"}}]
    if ms.has_tool_result(ms.last_user_content(body)):
        return [{"type": "text", "text": "Saved."}]
    return [{"type": "text", "text": "OK."}]


def gemini_model(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Saves the fact where Gemini CLI's prompt routes a personal project fact: its private project MEMORY.md."""
    if gs.wants_json(body) is not None:
        return gs.scripted_model(body)
    where = _GEMINI_MEMORY.search(json.dumps(body.get("systemInstruction")).replace("\\\\", "\\"))
    prompt = re.sub(r"<hook_context>.*?</hook_context>", "", gs.last_user_text(body), flags=re.S)
    if REMEMBER in prompt and where and not gs.ends_with_function_response(body) and gs.offers_tool(body, "write_file"):
        return [{"type": "function_call", "name": "write_file",
                 "args": {"file_path": where.group(1), "content": f"# Project memory\n\n- {GEMINI_FACT}\n"}}]
    return [{"type": "text", "text": "OK."}]


def _codex_memories(box: Any) -> None:
    """Codex's memory folder as its phase-2 consolidation writes it (the format its own prompt prescribes:
    vendor-notes/codex-cli.md): a `# Task Group` block for this checkout in MEMORY.md, and memory_summary.md."""
    memories = box.codex_home / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "MEMORY.md").write_text(
        "# Task Group: invoicing in the demo service\nscope: invoice totals and their tests\n"
        f"applies_to: cwd={box.repo}; reuse_rule=safe for this checkout\n\n"
        "## Task 1: fix the rounding of invoice totals, done\n### rollout_summary_files\n"
        f"- rollout_summaries/2026-12-01-invoice.md (cwd={box.repo}, rollout_path=/r.jsonl, "
        "updated_at=2026-12-01T10:00:00Z, thread_id=t-1)\n### keywords\n- invoice, rounding, Money\n\n"
        f"## Reusable knowledge\n- {CODEX_FACT}\n", encoding="utf-8")
    (memories / "memory_summary.md").write_text(
        f"v1\n## User Profile\nA backend developer.\n\n## User preferences\n- {CODEX_PREFERENCE}\n\n"
        "## General Tips\n\n## What's in Memory\n### demo\n#### 2026-12-01\n"
        "- rollout_summaries/2026-12-01-invoice.md\n  invoice rounding fix; thread_id=t-1\n", encoding="utf-8")
    config = box.codex_home / "config.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n[features]\nmemories = true\n", encoding="utf-8")


def _records(box: Any) -> list[tuple[Any, ...]]:
    return query(box, "SELECT id, type, title, body, confidence, superseded_at, superseded_by, project_id FROM records "
                      "WHERE source = 'agent_memory' ORDER BY id")


def _provenance(box: Any) -> list[tuple[Any, ...]]:
    return query(box, "SELECT record_id, agent, path, line, gone_at FROM agent_memory ORDER BY id")


def _consolidate(box: Any) -> dict[str, Any]:
    return json.loads(agentctx(box, "consolidate", "--json"))


def _injected(text: str) -> str:
    """The agentctx prompt-hook block inside a request ("" when none)."""
    at = text.find(AGENTCTX_BLOCK)
    return text[at:at + 3000] if at >= 0 else ""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from test_cross_agent import Box

    box = Box(tmp_path_factory.mktemp("own-memory"))
    w: dict[str, Any] = {"box": box}
    with ms.MessagesStandIn(claude_model) as claude_api, os_.ResponsesStandIn(os_.scripted_model) as codex_api, \
            gs.GeminiStandIn(gemini_model) as gemini_api:
        box.configure(codex_api.base_url, mcp=False)
        agentctx(box, "init", "--agent", "all")
        agentctx(box, "config", "set", "llm", "false")
        _codex_memories(box)

        def claude(prompt: str) -> tuple[ClaudeRun, list[dict[str, Any]]]:
            import subprocess

            n = len(claude_api.message_bodies())
            done = subprocess.run([box.claude, "-p", prompt, "--output-format", "stream-json", "--verbose",
                                   "--allowedTools", "Bash,Write"], cwd=box.repo, env=box.claude_env(claude_api.base_url),
                                  capture_output=True, text=True, timeout=120)
            return ClaudeRun(done.stdout, done.returncode, done.stderr), claude_api.message_bodies()[n:]

        def codex(prompt: str) -> tuple[Any, list[dict[str, Any]]]:
            n = len(codex_api.response_bodies())
            run = box.run(prompt, trust_hooks=False)
            return run, codex_api.response_bodies()[n:]

        def gemini(prompt: str) -> tuple[Any, list[dict[str, Any]]]:
            n = len(gemini_api.turn_bodies())
            run = box.run_gemini(prompt, gemini_api.base_url)
            return run, gemini_api.turn_bodies()[n:]

        # The prompts name the topic only: the model words the fact (a handover quoting the prompt would repeat it)
        w["claude_write"] = claude(f"{REMEMBER}the Redis the integration tests use.")
        w["gemini_write"] = gemini(f"{REMEMBER}when staging gets its data.")
        w["first"] = _consolidate(box)
        w["records"], w["provenance"] = _records(box), _provenance(box)
        w["codex_asks_claude"] = codex(ASK_CLAUDE_FACT)
        w["gemini_asks_codex"] = gemini(ASK_CODEX_FACT)
        w["claude_asks_gemini"] = claude(ASK_GEMINI_FACT)
        w["claude_asks_own"] = claude(ASK_CLAUDE_FACT)
        w["codex_asks_own"] = codex(ASK_PREFERENCE)
        w["gemini_asks_own"] = gemini(ASK_GEMINI_FACT)
        # Edit Claude Code's memory, delete Gemini CLI's: what the next consolidation makes of it.
        w["topic"] = next(p for p in box.home.glob(".claude/projects/*/memory/redis-port.md"))
        w["topic"].write_text(w["topic"].read_text(encoding="utf-8").replace(CLAUDE_FACT, CLAUDE_EDIT), encoding="utf-8")
        w["gemini_memory"] = next(box.home.glob(".gemini/tmp/*/memory/MEMORY.md"))
        w["gemini_memory"].write_text("# Project memory\n", encoding="utf-8")
        w["after_edit"] = _consolidate(box)
        w["records_after"], w["provenance_after"] = _records(box), _provenance(box)
        w["again"] = [_consolidate(box), _consolidate(box)]
        w["records_again"], w["provenance_again"] = _records(box), _provenance(box)
    return w


def _body_text(bodies: list[dict[str, Any]], prompt: str) -> str:
    """The first request of the session's turn that carries the user's prompt (Codex with memories on also sends
    its own memory-consolidation requests)."""
    texts = [json.dumps(b, ensure_ascii=False) for b in bodies]
    return next((t for t in texts if json.dumps(prompt)[1:-1] in t), "")


def test_the_agents_wrote_their_own_memory_where_their_prompts_said(world):
    box = world["box"]
    run, _ = world["claude_write"]
    assert run.returncode == 0, run.stderr
    memory = next(box.home.glob(".claude/projects/*/memory"))
    assert (memory / "MEMORY.md").read_text(encoding="utf-8").startswith("- [Redis port](redis-port.md)")
    assert CLAUDE_FACT in (memory / "redis-port.md").read_text(encoding="utf-8") or \
        CLAUDE_EDIT in (memory / "redis-port.md").read_text(encoding="utf-8")
    registry = json.loads((box.home / ".gemini" / "projects.json").read_text(encoding="utf-8"))
    assert str(box.repo) in registry["projects"]
    gemini_run, bodies = world["gemini_write"]
    assert gemini_run.returncode == 0 and "save_memory" not in gs.tool_names(bodies[0])


def test_each_memory_is_one_inferred_record_with_its_provenance(world):
    rows = {r[1]: r for r in world["provenance"]}
    assert set(rows) == {"claude", "codex", "gemini"} and len(world["provenance"]) == 4  # codex: handbook + summary
    by_id = {r[0]: r for r in world["records"]}
    assert len(by_id) == 4 and {r[4] for r in by_id.values()} == {"inferred"}
    claude_row = rows["claude"]
    assert claude_row[2].endswith("/memory/redis-port.md") and claude_row[3] == 1
    assert CLAUDE_FACT in by_id[claude_row[0]][3] and by_id[claude_row[0]][1] == "decision"  # frontmatter type
    assert rows["gemini"][2].endswith("/memory/MEMORY.md") and ".gemini/tmp/" in rows["gemini"][2]
    assert GEMINI_FACT in by_id[rows["gemini"][0]][3]
    codex_paths = {r[2].rsplit("/", 1)[1] for r in world["provenance"] if r[1] == "codex"}
    assert codex_paths == {"MEMORY.md", "memory_summary.md"}
    # SessionEnd's detached consolidations may have brought some or all in before `agentctx consolidate` ran: the
    # store above holds each once either way, and this pass only imported
    said = world["first"]["agent_memory"]
    assert said is None or (said.startswith("imported ") and "superseded" not in said and "retired" not in said)


def test_each_agents_memory_reaches_the_other_agents(world):
    run, bodies = world["codex_asks_claude"]
    text = _body_text(bodies, ASK_CLAUDE_FACT)
    assert run.returncode == 0 and "6390" in _injected(text)
    run, bodies = world["gemini_asks_codex"]
    text = _body_text(bodies, ASK_CODEX_FACT)
    assert run.returncode == 0 and "integer cents with the Money type" in _injected(text)
    run, bodies = world["claude_asks_gemini"]
    text = _body_text(bodies, ASK_GEMINI_FACT)
    assert run.returncode == 0 and "dbsync job" in _injected(text)


def test_in_its_own_session_a_fact_is_delivered_once(world):
    ids = {agent: [r[0] for r in world["provenance"] if r[1] == agent] for agent in ("claude", "codex", "gemini")}
    run, bodies = world["claude_asks_own"]
    text = _body_text(bodies, ASK_CLAUDE_FACT)
    assert run.returncode == 0 and text.count(CLAUDE_HOOK) == 1  # Claude Code's own MEMORY.md line
    assert "6390" not in _injected(text) and not any(i in text for i in ids["claude"])
    run, bodies = world["codex_asks_own"]
    text = _body_text(bodies, ASK_PREFERENCE)
    assert text.count(CODEX_PREFERENCE) == 1  # Codex's memory_summary.md, loaded by Codex itself
    assert "shell command first" not in _injected(text) and not any(i in text for i in ids["codex"])
    run, bodies = world["gemini_asks_own"]
    text = _body_text(bodies, ASK_GEMINI_FACT)
    assert text.count("dbsync job") == 1  # Gemini CLI's private project MEMORY.md, loaded by Gemini itself
    assert "dbsync" not in _injected(text) and not any(i in text for i in ids["gemini"])


def test_an_edit_supersedes_a_deletion_retires_and_a_rerun_changes_nothing(world):
    # SessionEnd's detached consolidation may be the one that saw the edit first: either way, once
    said = world["after_edit"]["agent_memory"]
    assert said is None or "imported" not in said
    after = {r[0]: r for r in world["records_after"]}
    old_claude = next(r for r in world["provenance"] if r[1] == "claude")[0]
    head = after[old_claude][6]
    assert head and CLAUDE_EDIT in after[head][3] and after[head][5] is None
    old_gemini = next(r for r in world["provenance"] if r[1] == "gemini")[0]
    assert after[old_gemini][5] is not None and after[old_gemini][6] is None  # retired: in history, no successor
    assert [a["agent_memory"] for a in world["again"]] == [None, None]
    assert world["records_again"] == world["records_after"] and world["provenance_again"] == world["provenance_after"]


def test_no_hook_failed(world):
    assert "Traceback" not in hooks_log(world["box"])
