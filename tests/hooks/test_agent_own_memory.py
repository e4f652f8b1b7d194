"""No double context: a record the agent's own memory already loads (Claude Code's auto memory index) is left out of
that agent's SessionStart digest and prompt injections, and still reaches the other agents."""

from __future__ import annotations

import json
from pathlib import Path

from agentctx.outside import memdirs
from agentctx.base.project import detect
from agentctx.memory import digest
from agentctx.outside import agentmem
from agentctx.store import agentmem as store

FACT = "- The integration tests need a running Redis on port 6390, started by make redis.\n"


def _own_memory(repo: Path) -> None:
    d = Path.home() / ".claude" / "projects" / memdirs.sanitize(str(repo)) / "memory"
    d.mkdir(parents=True)
    (d / "MEMORY.md").write_text("# Memory\n\n" + FACT)


def test_the_digest_leaves_out_what_claude_code_loads_itself(hook, conn, add, repo):
    redis = add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    wal = add("Use SQLite WAL", "One file, WAL mode, a busy timeout.")
    _own_memory(repo)
    project = detect(repo)
    agentmem.sync(conn, project)
    data = digest.refresh(conn, project.id, project=project)
    assert redis.id not in data["agents"]["claude"]["ids"] and redis.id in data["agents"]["codex"]["ids"]
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "Use SQLite WAL" in text and "Redis on port 6390" not in text
    codex = digest.for_agent(data, "codex")
    codex_text, codex_ids = codex["text"], codex["ids"]
    assert "Redis on port 6390" in codex_text and redis.id in codex_ids and wal.id in codex_ids


def test_the_prompt_hook_does_not_inject_it_again_in_claude_code(hook, conn, add, repo, monkeypatch):
    add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    payload = {"session_id": "s2", "cwd": str(repo), "prompt": "how do the integration tests get Redis on port 6390?"}
    before = hook("user-prompt-submit", payload)
    assert "Redis on port 6390" in before["hookSpecificOutput"]["additionalContext"]
    _own_memory(repo)
    agentmem.sync(conn, detect(repo))
    assert hook("user-prompt-submit", {**payload, "session_id": "s3"}) is None
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")  # the agent's memory off: agentctx delivers it again
    agentmem.sync(conn, detect(repo))
    assert store.skip_ids(conn, detect(repo).id, "claude") == set()
    assert "Redis on port 6390" in hook("user-prompt-submit", {**payload, "session_id": "s4"})[
        "hookSpecificOutput"]["additionalContext"]


def test_bad_memory_files_leave_the_hooks_alone(hook, conn, add, repo):
    import os

    add("Use SQLite WAL", "One file, WAL mode, a busy timeout.")
    d = Path.home() / ".claude" / "projects" / memdirs.sanitize(str(repo)) / "memory"
    d.mkdir(parents=True)
    os.symlink("/dev/zero", d / "MEMORY.md")
    (d / "bad.md").write_bytes(b"- \xff\xfe broken bytes in a memory line about the cache\n" * 1000)
    agentmem.sync(conn, detect(repo))
    digest.refresh(conn, detect(repo).id, project=detect(repo))
    out = hook("session-start", {"session_id": "s9", "cwd": str(repo), "source": "startup"})
    assert "Use SQLite WAL" in out["hookSpecificOutput"]["additionalContext"]
    # Another session's prompt: this one's digest carried the record already (it reaches a session once).
    assert "Use SQLite WAL" in hook("user-prompt-submit", {"session_id": "s10", "cwd": str(repo),
                                                           "prompt": "sqlite WAL busy timeout"})[
        "hookSpecificOutput"]["additionalContext"]


def test_what_the_agents_instruction_file_says_is_not_injected_again_in_its_sessions(hook, conn, add, repo,
                                                                                      capsys):
    from agentctx.cli import main

    queue = add("Job queue runs on Redis streams", "The job queue uses Redis streams with consumer groups.")
    other = add("Payloads stay under 64 KB", "Job payloads stay under 64 KB; larger data goes to object storage.")
    (repo / "AGENTS.md").write_text("# Rules\n\n- The job queue runs on Redis streams with consumer groups.\n")
    (repo / "CLAUDE.md").write_text("# App\n")
    assert main(["-C", str(repo), "sync", "--file", "CLAUDE.md", "--yes"]) == 0  # both written into CLAUDE.md
    capsys.readouterr()
    agentmem.sync(conn, detect(repo))
    assert {queue.id, other.id} <= store.skip_ids(conn, detect(repo).id, "claude")  # their ids are in CLAUDE.md
    codex = store.skip_ids(conn, detect(repo).id, "codex")
    assert queue.id in codex and other.id not in codex  # AGENTS.md says one of them
    assert store.skip_ids(conn, detect(repo).id, "gemini") == set()  # no GEMINI.md: Gemini CLI gets both
    main(["-C", str(repo), "doctor", "--json"])
    assert not [c for c in json.loads(capsys.readouterr().out) if c["name"].startswith("own memory")]


def test_a_digest_section_left_empty_loses_its_header(conn, add, repo):
    only = add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    _own_memory(repo)
    project = detect(repo)
    agentmem.sync(conn, project)
    data = digest.refresh(conn, project.id, project=project)
    assert "Active decisions and conventions (agentctx):" in data["text"]
    view = digest.for_agent(data, "claude")
    text, ids = view["text"], view["ids"]
    assert "Active decisions and conventions" not in text and only.id not in ids
