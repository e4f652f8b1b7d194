from __future__ import annotations

import json

from agentctx.memory import digest, pending
from agentctx.base import paths, tokens
from agentctx.base.project import detect
from agentctx.store import sessions


def test_session_start_emits_digest_on_every_source(hook, conn, add, repo):
    add("Use SQLite for storage", "One file, WAL, no daemon.")
    project = detect(repo)
    digest.refresh(conn, project.id, project=project)
    for source in ("startup", "resume", "compact", "clear"):  # each a session of its own: a resumed session whose
        # conversation already carries the digest gets no second copy (test_digest_ledger.py)
        out = hook("session-start", {"session_id": f"s-{source}", "cwd": str(repo), "source": source})
        text = out["hookSpecificOutput"]["additionalContext"]
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert "Use SQLite for storage" in text
    from agentctx.store import sessions

    assert pending.drain_pending(conn) == 4
    assert sessions.stats(conn, project.id)["tokens_injected"] == 4 * tokens.estimate(text)


def test_session_start_without_digest_falls_back_to_profile(hook, add, repo):
    add("Stack", "- Language: Python", type_="profile")
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo)})
    assert "Stack: Language: Python" in out["hookSpecificOutput"]["additionalContext"]


def test_session_start_nothing_without_store(hook, repo):
    assert hook("session-start", {"session_id": "s1", "cwd": str(repo)}) is None


def test_digest_never_overflows(conn, add, repo):
    add("Stack", "- " + "x " * 990, type_="profile")
    for i in range(60):
        add(f"Decision number {i} about caching", "because " * 100)
    add("Handover: now", "next " * 390, type_="handover")
    data = digest.compose(conn, detect(repo).id)
    assert data["tokens"] <= tokens.SESSION_START_BUDGET
    assert "Active decisions" in data["text"]


def test_prompt_injects_top3_then_dedups(hook, add, repo):
    for i in range(4):
        add(f"SQLite storage with WAL, variant {i}", f"We keep records in sqlite with WAL, variant {i}.")
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "how do we use sqlite storage with WAL?"}
    first = hook("user-prompt-submit", payload)["hookSpecificOutput"]["additionalContext"]
    assert first.startswith("Relevant project context (agentctx project memory; search it with mcp__agentctx__ctx_search") and first.count("[decision]") == 3
    second = hook("user-prompt-submit", payload)["hookSpecificOutput"]["additionalContext"]
    assert second.count("[decision]") == 1
    assert hook("user-prompt-submit", payload) is None
    assert len(set(paths.dedup_path("s1").read_text().split())) == 4


def test_after_compaction_or_clear_a_record_can_be_injected_again(hook, add, repo):
    add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    payload = {"session_id": "s4", "cwd": str(repo), "prompt": "sqlite storage and WAL"}
    assert "Use SQLite with WAL for storage" in hook("user-prompt-submit", payload)["hookSpecificOutput"]["additionalContext"]
    assert hook("user-prompt-submit", payload) is None  # already in front of the model
    hook("session-start", {"session_id": "s4", "cwd": str(repo), "source": "resume"})
    assert hook("user-prompt-submit", payload) is None  # a resumed conversation still holds it
    for source in ("compact", "clear"):
        # the summary (or nothing) replaced it: the digest lists it again, and the prompt about it brings its body
        start = hook("session-start", {"session_id": "s4", "cwd": str(repo), "source": source})
        assert "Use SQLite with WAL for storage" in start["hookSpecificOutput"]["additionalContext"]
        out = hook("user-prompt-submit", payload)
        assert "Use SQLite with WAL for storage" in out["hookSpecificOutput"]["additionalContext"]
        assert hook("user-prompt-submit", payload) is None  # once
    hook("session-start", {"session_id": "other", "cwd": str(repo), "source": "compact"})
    assert hook("user-prompt-submit", payload) is None  # another session's compaction leaves this one alone


def test_prompt_corrupt_dedup_file_reinjects(hook, add, repo):
    add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    paths.dedup_path("s2").write_text("{broken", encoding="utf-8")
    out = hook("user-prompt-submit", {"session_id": "s2", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    assert "[decision] Use SQLite with WAL for storage" in out["hookSpecificOutput"]["additionalContext"]


def test_prompt_budget_and_unconfirmed_label(hook, add, repo, conn):
    for i in range(3):
        add(f"Memcached eviction rule {i}", ("memcached eviction " * 110)[:2000], confidence="inferred")
    out = hook("user-prompt-submit", {"session_id": "s3", "cwd": str(repo), "prompt": "memcached eviction"})
    text = out["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= tokens.PROMPT_CHAR_CAP and tokens.estimate(text) <= tokens.PROMPT_BUDGET
    assert "(unconfirmed pattern)" in text
    from agentctx.store import sessions

    assert sessions.injections(conn, detect(repo).id, session_id="s3") == []  # the hook wrote no database row
    pending.drain_pending(conn)
    ledger = sessions.injections(conn, detect(repo).id, session_id="s3")
    assert ledger and ledger[0].tokens == tokens.estimate(text) and ledger[0].prompt_hash


def test_prompt_nothing_for_unrelated_or_empty(hook, add, repo):
    add("Use SQLite for storage", "One file, WAL, no daemon.")
    assert hook("user-prompt-submit", {"session_id": "s", "cwd": str(repo), "prompt": ""}) is None
    assert hook("user-prompt-submit", {"session_id": "s", "cwd": str(repo), "prompt": "rename the button label"}) is None


def test_prompt_nothing_without_store(hook, repo):
    assert hook("user-prompt-submit", {"session_id": "s", "cwd": str(repo), "prompt": "sqlite"}) is None
    assert not paths.db_path().exists()


def test_prompt_dedup_file_is_not_written_through_a_planted_symlink(hook, add, repo, tmp_path):
    add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    target = tmp_path / "victim.txt"
    target.write_text("precious\n", encoding="utf-8")
    paths.dedup_path("s9").symlink_to(target)
    out = hook("user-prompt-submit", {"session_id": "s9", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    assert "[decision] Use SQLite with WAL for storage" in out["hookSpecificOutput"]["additionalContext"]
    assert target.read_text(encoding="utf-8") == "precious\n"


def _asked(conn, session_id):
    return [tuple(r) for r in conn.execute("SELECT prompt_hash, text, chars FROM prompts WHERE session_id = ? "
                                           "ORDER BY id", (session_id,))]


def test_every_prompt_keeps_what_was_asked_for_the_dashboard(hook, add, repo, conn):
    """Injected or not, each prompt's text reaches the store (through the pending ledger), keyed by the hash its
    ledger row and its decisions-log line carry."""
    add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    assert hook("user-prompt-submit", {"session_id": "s7", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    assert hook("user-prompt-submit", {"session_id": "s7", "cwd": str(repo), "prompt": "rename the button label"}) is None
    assert _asked(conn, "s7") == []  # the hook wrote no database row
    pending.drain_pending(conn)
    ledger = sessions.injections(conn, detect(repo).id, session_id="s7")
    assert _asked(conn, "s7") == [(ledger[0].prompt_hash, "sqlite storage and WAL", 22),
                                  (_asked(conn, "s7")[1][0], "rename the button label", 23)]
    assert len(ledger) == 1  # a prompt that injected nothing adds no ledger row, only what was asked


def test_private_spans_of_a_prompt_never_reach_a_file(hook, add, repo, conn):
    add("Use SQLite with WAL for storage", "We keep records in sqlite with WAL and a busy timeout.")
    prompt = ("sqlite storage and WAL <PRIVATE>the Initech acquisition closes in May</Private> for the "
              "reporting replica? <private>and the unclosed rest: Globex")
    hook("user-prompt-submit", {"session_id": "s8", "cwd": str(repo), "prompt": prompt})
    with open(paths.pending_ledger_file(), encoding="utf-8") as fh:
        queued = fh.read()
    assert "Initech" not in queued and "Globex" not in queued and "reporting replica" in queued
    pending.drain_pending(conn)
    ((_, text, chars),) = _asked(conn, "s8")
    assert text == "sqlite storage and WAL   for the reporting replica?" and chars == len(prompt)


def test_a_drained_session_start_keeps_the_hooks_time(conn, repo, monkeypatch):
    """A SessionStart that injected nothing (no digest yet) still dates the session by the hook, not by the drain."""
    from agentctx import hooks

    hooks.record_pending({"event": "SessionStart", "session_id": "s10", "project_id": detect(repo).id, "tokens": 0,
                          "record_ids": [], "at": "2030-01-02T08:00:00.000Z"})
    pending.drain_pending(conn)
    started = conn.execute("SELECT started_at FROM sessions WHERE session_id = 's10'").fetchone()[0]
    assert started == "2030-01-02T08:00:00.000Z"


def test_the_hooks_private_rule_is_the_extractions():
    """The prompt hook removes `<private>` spans without `re`; it must agree with extract.transcript.strip_private."""
    from agentctx.extract.transcript import strip_private
    from agentctx.hooks.prompt import without_private

    for text in ("no tag at all", "a <private-notes> tag is not one", "x <private>a</private> y <PRIVATE>b</Private> z",
                 "open <private>to the end", "<private><private>nested</private> rest</private> tail",
                 "<private></private>", "résumé <Private>ÉTÉ</private> ok", "İstanbul <private>x</private> after"):
        assert without_private(text) == strip_private(text), text


def test_the_block_says_which_tool_searches_the_memory():
    # Issue 26 item 15: under deferred MCP tools the model sees only full tool names; one line names them.
    from agentctx.hooks.prompt import HEADER

    assert "mcp__agentctx__ctx_search" in HEADER and "mcp__agentctx__ctx_get" in HEADER
    assert "\n" not in HEADER and len(HEADER) < 160


def test_from_the_plugin_the_block_names_the_plugins_tools(monkeypatch):
    from agentctx.claude import aside
    from agentctx.hooks.prompt import header

    assert header().count(aside.USER_TOOL_PREFIX) == 2
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", "/plugins/agentctx")
    monkeypatch.setenv("AGENTCTX_PLUGIN_ROOT", "/plugins/agentctx")
    assert header().count(aside.PLUGIN_TOOL_PREFIX) == 2 and aside.USER_TOOL_PREFIX not in header()
