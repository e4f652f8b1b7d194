"""One skip set, every channel (outside/native.py): what an agent loads itself is never sent to it again, by the
digest, the prompt hook, the pre-action hook, and is marked in `ctx_search`; the other agents still get it."""

from __future__ import annotations

import json

from agentctx import cli
from agentctx.base.project import detect
from agentctx.hooks import Payload
from agentctx.hooks.action import pre_tool_use
from agentctx.hooks.prompt import user_prompt_submit
from agentctx.memory import keep_digests_fresh
from agentctx.outside import rulefiles

MIGRATIONS = ('---\npaths: ["migrations/**"]\n---\n# Database migrations\nNever edit an applied migration; add a '
              'new one with the next number and a down step.')
WEB = "# Web frontend\nComponents use the design tokens from web/theme.ts, never raw hex colours."


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _sync(repo, conn):
    keep_digests_fresh()
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    return project


def _context(out):
    return (out or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def test_a_claude_rule_reaches_codex_and_gemini_at_a_prompt_never_claude_code(repo, conn):
    _write(repo, ".claude/rules/migrations.md", MIGRATIONS)
    _sync(repo, conn)
    ask = "how do I add a database migration with a down step?"
    for agent in ("codex", "gemini"):
        out = user_prompt_submit(Payload(session_id=f"p-{agent}", cwd=str(repo), prompt=ask, agent=agent))
        assert "Never edit an applied migration" in _context(out), agent
        assert "(rule file: .claude/rules/migrations.md)" in _context(out)
        assert "(from the team file)" not in _context(out)
    assert user_prompt_submit(Payload(session_id="p-claude", cwd=str(repo), prompt=ask, agent="claude")) is None


def test_a_rule_file_is_not_injected_only_because_its_body_shares_words(repo, conn):
    body = "\n".join(["# Release checklist", *(f"- step {i}: run the CI upgrade script, then tag the release"
                                                for i in range(30))])
    _write(repo, ".cursor/rules/release.mdc", "---\ndescription: Release checklist\nglobs: release/**\n---\n" + body)
    _sync(repo, conn)
    generic = "the CI upgrade script fails, what should I run?"
    assert user_prompt_submit(Payload(session_id="g1", cwd=str(repo), prompt=generic, agent="codex")) is None
    named = "what is on the release checklist?"
    assert "Release checklist" in _context(user_prompt_submit(
        Payload(session_id="g2", cwd=str(repo), prompt=named, agent="codex")))


def test_a_nested_agents_md_reaches_codex_at_the_edit_unless_codex_started_in_its_folder(repo, conn):
    _write(repo, "web/AGENTS.md", WEB)
    _sync(repo, conn)
    edit = {"file_path": str(repo / "web" / "Button.tsx"), "new_string": "x"}
    root_session = pre_tool_use(Payload(session_id="c1", cwd=str(repo), tool_name="Edit", agent="codex",
                                        tool_input=edit))
    assert "design tokens" in _context(root_session)  # Codex's chain ran root -> cwd: web/AGENTS.md is not in it
    (repo / "web").mkdir(exist_ok=True)
    in_web = pre_tool_use(Payload(session_id="c2", cwd=str(repo / "web"), tool_name="Edit", agent="codex",
                                  tool_input=edit))
    assert in_web is None  # started in web/: Codex loaded web/AGENTS.md itself
    claude = pre_tool_use(Payload(session_id="c3", cwd=str(repo), tool_name="Edit", agent="claude", tool_input=edit))
    assert "design tokens" in _context(claude)  # Claude Code does not read AGENTS.md


def test_ctx_search_marks_what_an_agent_loads_itself(repo, conn):
    from agentctx.mcp.handlers import ToolContext, ctx_search

    _write(repo, ".claude/rules/migrations.md", MIGRATIONS)
    _write(repo, ".cursor/rules/api.mdc", "---\ndescription: API migrations\nglobs: api/**\n---\nVersion the API.")
    project = _sync(repo, conn)
    ctx = ToolContext(project=project)
    try:
        found = {r["title"].split(":")[0]: r for r in ctx_search(ctx, {"query": "migrations"})["results"]}
    finally:
        ctx.close()
    assert found[".claude/rules/migrations.md"]["loaded_by"] == ["claude", "copilot"]
    assert "loaded by claude, copilot itself" in found[".claude/rules/migrations.md"]["note"]
    assert "loaded_by" not in found[".cursor/rules/api.mdc"]


def test_stats_sessions_shows_tokens_by_channel_and_source(repo, conn, capsys):
    from agentctx.hooks.session import session_start
    from agentctx.memory import digest

    _write(repo, ".cursor/rules/style.mdc", "---\nalwaysApply: true\n---\n# Style\nNo print() in library code.")
    project = _sync(repo, conn)
    digest.refresh(conn, project.id, project=project)
    session_start(Payload(session_id="s-cost", cwd=str(repo), source="startup", agent="codex"))
    assert cli.main(["-C", str(repo), "stats", "--sessions", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["sessions"]
    row = next(r for r in rows if r["session_id"] == "s-cost")
    assert row["agent"] == "codex" and row["channels"]["digest"] == row["tokens"] > 0
    assert row["sources"]["rule_files"] > 0 and row["channels"]["prompt"] == row["channels"]["action"] == 0
    assert cli.main(["-C", str(repo), "stats", "--sessions"]) == 0
    assert "s-cost" in capsys.readouterr().out
