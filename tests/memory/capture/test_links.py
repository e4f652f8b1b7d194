"""Files are linked to records without LLM extraction (issue 26, item 4): what was injected in the session that
edited the file, at once, and at wrap-up what the session wrote or was shown."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.store import graph


def test_a_file_edited_after_an_injection_is_related_to_that_record_at_once(hook, conn, add, repo):
    wal = add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    out = hook("user-prompt-submit", {"session_id": "s1", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    assert "Use SQLite with WAL for storage" in out["hookSpecificOutput"]["additionalContext"]
    path = str(repo / "src" / "store.py")
    hook("post-tool-use", {"session_id": "s1", "cwd": str(repo), "tool_name": "Edit",
                           "tool_input": {"file_path": path}})
    node = graph.upsert_node(conn, detect(repo).id, "file", path)
    related = graph.related(conn, detect(repo).id, node, depth=2, limit=10)
    assert wal.id in [r.id for r in related]


def test_ctx_related_on_the_core_install(hook, conn, add, repo, tmp_path):
    from agentctx.mcp.handlers import ToolContext, ctx_related

    wal = add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    hook("user-prompt-submit", {"session_id": "s1", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    path = str(repo / "src" / "store.py")
    hook("post-tool-use", {"session_id": "s1", "cwd": str(repo), "tool_name": "Write",
                           "tool_input": {"file_path": path}})
    found = ctx_related(ToolContext(detect(repo), "s1"), {"file": path})
    assert wal.id in [r["id"] for r in found["results"]]
