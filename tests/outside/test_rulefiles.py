"""Rule files as records (outside/rulefiles.py): the file is the source of truth, bounded reads, native agents."""

from __future__ import annotations

import json
import os

from agentctx import cli
from agentctx.base.project import detect
from agentctx.outside import rulefiles
from agentctx.store import records
from agentctx.store import rulefiles as sql

API = "---\ndescription: API error handling\nglobs: src/api/**/*.ts\n---\nReturn ApiError, never a bare string.\n"


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8") if isinstance(text, str) else path.write_bytes(text)
    return path


def _rules(conn, project):
    return [r for r in records.current(conn, project.id, limit=100) if r.source == "rule_file"]


def test_sync_reads_each_format_once_and_twice_changes_nothing(repo, conn, monkeypatch):
    _write(repo, ".cursor/rules/api.mdc", API)
    _write(repo, ".claude/rules/db.md", '---\npaths: ["migrations/*.sql"]\n---\n# Migrations\nNever edit an applied one.')
    _write(repo, ".github/instructions/py.instructions.md", "---\napplyTo: '**/*.py'\n---\nType hints everywhere.")
    _write(repo, "services/pay/AGENTS.md", "# Payments\nAmounts are integer cents.")
    _write(repo, ".cursor/rules/manual.mdc", "---\ndescription:\nglobs:\n---\nOnly when asked.")
    project = detect(str(repo))
    report = rulefiles.sync(conn, project)
    assert report["added"] == 4 and report["files"] == 5
    rules = {rulefiles.rule_paths(r)[0]: r for r in _rules(conn, project)}
    assert set(rules) == {".cursor/rules/api.mdc", ".claude/rules/db.md", ".github/instructions/py.instructions.md",
                          "services/pay/AGENTS.md"}
    api = rules[".cursor/rules/api.mdc"]
    assert (api.type, api.confidence, api.anchors) == ("convention", "team", ("path:src/api/**/*.ts",))
    assert api.title == ".cursor/rules/api.mdc: API error handling" and "ApiError" in api.body
    reads = []
    monkeypatch.setattr(rulefiles, "read_text", lambda c: reads.append(c) or (b"", None, "x"))
    again = rulefiles.sync(conn, project)
    assert reads == [] and again["read"] == 0 and not (again["added"] or again["updated"] or again["retired"])
    assert len(_rules(conn, project)) == 4


def test_an_edit_supersedes_and_a_removal_retires(repo, conn):
    path = _write(repo, ".cursor/rules/api.mdc", API)
    _write(repo, ".claude/rules/db.md", "---\npaths: migrations/**\n---\nx")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    old = next(r for r in _rules(conn, project) if "api.mdc" in r.title)
    path.write_text(API.replace("src/api/**/*.ts", "src/api/**/*.{ts,tsx}"), encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a different mtime even within the clock's resolution
    report = rulefiles.sync(conn, project)
    assert report["updated"] == 1
    new = next(r for r in _rules(conn, project) if "api.mdc" in r.title)
    assert new.id != old.id and new.anchors == ("path:src/api/**/*.ts", "path:src/api/**/*.tsx")
    assert records.get(conn, old.id).superseded_by == new.id
    (repo / ".claude/rules/db.md").unlink()
    report = rulefiles.sync(conn, project)
    assert report["retired"] == 1 and [r.title for r in _rules(conn, project)] == [new.title]
    assert set(sql.rows(conn, project.id)) == {".cursor/rules/api.mdc"}


def test_a_record_a_person_retired_stays_retired_until_the_file_changes(repo, conn):
    path = _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    records.retire(conn, _rules(conn, project)[0].id, project.id)
    assert rulefiles.sync(conn, project, force=True)["added"] == 0 and _rules(conn, project) == []
    path.write_text(API + "More.\n", encoding="utf-8")
    assert rulefiles.sync(conn, project)["added"] == 1


def test_copies_in_two_formats_are_one_record_skipped_by_both_natives(repo, conn):
    body = "\n# Models\nUse BaseModel.\n"
    _write(repo, ".cursor/rules/models.mdc", "---\ndescription: Models\nglobs: src/models/**\n---" + body)
    _write(repo, ".claude/rules/models.md", "---\npaths:\n  - src/models/**\n---" + body)
    _write(repo, "lib/AGENTS.md", "# Lib\nNo IO here.")
    (repo / "lib" / "CLAUDE.md").symlink_to("AGENTS.md")  # one file under two names: read once
    project = detect(str(repo))
    report = rulefiles.sync(conn, project)
    assert report["files"] == 3 and report["added"] == 2
    by_path = {rulefiles.rule_paths(r)[0]: r for r in _rules(conn, project)}
    models = by_path[".claude/rules/models.md"] if ".claude/rules/models.md" in by_path else by_path[".cursor/rules/models.mdc"]
    assert rulefiles.native_agents(models) == {"claude", "copilot"}
    # Codex loads lib/AGENTS.md only in a session started in lib/ or below (its chain runs root -> cwd).
    from agentctx.outside import native

    lib = by_path["lib/AGENTS.md"]
    assert "codex" not in rulefiles.native_agents(lib) and "codex" not in native.native_agents(lib, cwd="")
    assert "codex" in native.native_agents(lib, cwd="lib") and "codex" in native.native_agents(lib, cwd="lib/x")
    assert "codex" not in native.native_agents(lib, cwd="library")


def test_native_agents_by_format(conn, add):
    def rule(title):
        return records.insert(conn, records.NewRecord(type="convention", title=title, body="x", project_id="p",
                                                      confidence="team", source="rule_file"))[0]

    assert rulefiles.native_agents(rule(".cursor/rules/a.mdc: A")) == frozenset()
    # Copilot CLI loads its own instructions, .claude/rules and every folder's AGENTS/CLAUDE/GEMINI.md (issue 46)
    assert rulefiles.native_agents(rule(".github/instructions/a.instructions.md: A")) == {"copilot"}
    assert rulefiles.native_agents(rule(".claude/rules/x/a.md: A")) == {"claude", "copilot"}
    assert rulefiles.native_agents(rule("pkg/GEMINI.md: A")) == {"gemini", "copilot"}
    assert rulefiles.native_agents(rule("pkg/CLAUDE.md: A")) == {"claude", "copilot"}
    assert rulefiles.native_agents(add("pkg/AGENTS.md: not a rule file's record", "x")) == frozenset()
    from agentctx.outside import native

    nested = rule("pkg/AGENTS.md: A")
    assert native.of_record(nested) == ({"copilot"}, {"codex": "pkg"})
    # Claude Code 2.1.197 missed a `paths` rule after a Write (vendor-notes fact 8a): a known older version loads less.
    assert native.native_agents(rule(".claude/rules/b.md: B"), versions={"claude": "2.1.197"}) == {"copilot"}
    assert native.native_agents(rule(".claude/rules/c.md: C"), versions={"claude": "2.1.332"}) == {"claude", "copilot"}
    every = records.insert(conn, records.NewRecord(type="convention", title=".claude/rules/d.md: D", body="x",
                                                   project_id="p", confidence="team", source="rule_file",
                                                   pinned=True))[0]
    assert native.native_agents(every, versions={"claude": "2.1.197"}) == {"claude", "copilot"}  # at start by all
    assert native.provenance(nested) == ("A", " (rule file: pkg/AGENTS.md)")


def test_bounds_symlinks_size_and_bad_utf8(repo, conn, tmp_path, monkeypatch):
    outside = tmp_path / "outside.md"
    outside.write_text("---\npaths: src/**\n---\nsecret plan", encoding="utf-8")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "leak.md").symlink_to(outside)
    _write(repo, ".claude/rules/latin1.md", b"---\npaths: src/**\n---\ncaf\xe9")
    _write(repo, ".claude/rules/big.md", "---\npaths: big/**\n---\n" + "word " * 40_000)
    os.mkfifo(repo / ".claude" / "rules" / "fifo.md")
    for i in range(5):
        _write(repo, f"pkg{i}/AGENTS.md", f"# pkg{i}")
    monkeypatch.setattr(rulefiles, "FILES_MAX", 4)
    report = rulefiles.sync(conn, detect(str(repo)))
    skipped = "\n".join(report["skipped"])
    assert "leak.md: a symlink that leaves the repository" in skipped
    assert "fifo.md: not a regular file" in skipped and "latin1.md: not valid UTF-8" in skipped
    assert "over the limit of 4 rule files" in skipped and report["files"] == 4
    big = next(r for r in _rules(conn, detect(str(repo))) if "big.md" in r.title)
    assert len(big.body) < 2000 and big.body.endswith("(… the rest is in .claude/rules/big.md)")


def test_digest_has_always_rules_not_path_scoped_ones(repo, conn):
    from agentctx.memory import digest

    _write(repo, ".cursor/rules/always.mdc", "---\nalwaysApply: true\ndescription: Use pnpm\n---\nNever npm.")
    _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    data = digest.compose(conn, project.id)
    text = data["text"]
    # The always-apply rule's text, whole, in its own section (not a decision line), named by its file.
    assert "- .cursor/rules/always.mdc (Use pnpm):\nNever npm." in text and "API error handling" not in text
    assert "Use pnpm" not in digest.decisions_section(conn, project.id)
    assert data["agents"]["claude"]["text"] == text  # a Cursor rule: no agent we serve loads it itself


def test_always_rules_whole_to_every_agent_but_its_own(repo, conn):
    from agentctx.memory import digest

    _write(repo, ".claude/rules/style.md", "# Style\nTabs, not spaces. Lines under 100 characters.")
    _write(repo, ".cursor/rules/tests.mdc", "---\nalwaysApply: true\n---\n# Writing tests\nOne assert per idea.")
    _write(repo, ".github/instructions/all.instructions.md", '---\napplyTo: "**/*"\n---\nSay why in comments.')
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    data = digest.compose(conn, project.id)
    claude, codex = data["agents"]["claude"]["text"], data["agents"]["codex"]["text"]
    copilot = data["agents"]["copilot"]["text"]
    assert "Tabs, not spaces" not in claude and "One assert per idea" in claude and "Say why in comments" in claude
    assert "Tabs, not spaces" in codex and "One assert per idea" in codex and "Say why in comments" in codex
    # Copilot CLI loads its instructions and `.claude/rules` itself (vendor-notes/copilot-cli.md fact 13).
    assert "Say why in comments" not in copilot and "Tabs, not spaces" not in copilot
    assert "One assert per idea" in copilot
    # The line names the file and the title once: the heading that repeats the title is not its text.
    assert "- .cursor/rules/tests.mdc (Writing tests):\nOne assert per idea." in codex
    assert "# Writing tests" not in codex


def test_an_always_rule_that_does_not_fit_comes_whole_at_the_first_prompt(repo, conn, monkeypatch):
    from agentctx import cli
    from agentctx.hooks import Payload, prompt, session
    from agentctx.memory import digest

    # Bodies are kept up to ~1,800 characters (~450 tokens): four such rules cannot all fit in 1,500 tokens.
    for n in range(4):
        big = "\n".join(f"Step {i} of rule {n}: keep the migration idempotent, reversible, dated." for i in range(22))
        _write(repo, f".cursor/rules/big{n}.mdc", f"---\nalwaysApply: true\n---\n# Migrations {n}\n" + big)
    _write(repo, ".cursor/rules/small.mdc", "---\nalwaysApply: true\n---\n# Small\nNo print().")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    data = digest.refresh(conn, project.id, project=project)
    text = data["agents"]["codex"]["text"]
    assert "No print()." in text and digest.estimate(text) <= 1500
    later = data["agents"]["codex"]["later"]
    assert later["ids"] and all(f"Step 21 of rule {n}" in text + later["text"] for n in range(4))
    named = [n for n in range(4) if f"Step 21 of rule {n}" in later["text"]]
    assert all(f"- .cursor/rules/big{n}.mdc: Migrations {n}" in text for n in named) and "agentctx rules show" in text
    out = session.session_start(Payload(session_id="w1", cwd=str(repo), source="startup", agent="codex"))
    assert "No print()." in out["hookSpecificOutput"]["additionalContext"]
    first = prompt.user_prompt_submit(Payload(session_id="w1", cwd=str(repo), prompt="hello there", agent="codex"))
    assert f"Step 21 of rule {named[0]}" in first["hookSpecificOutput"]["additionalContext"]
    again = prompt.user_prompt_submit(Payload(session_id="w1", cwd=str(repo), prompt="hello there", agent="codex"))
    assert again is None  # delivered once
    assert cli.main(["-C", str(repo), "rules", "show", ".cursor/rules/big0.mdc"]) == 0


def test_consolidation_reads_them(repo, conn):
    from agentctx.memory import consolidate

    _write(repo, ".cursor/rules/api.mdc", API)
    report = consolidate.run(detect(str(repo)), close_stale=False)
    assert report["rule_files"]["added"] == 1
    assert any(line.startswith("rule files: 1 found, 1 read") for line in consolidate.describe(report))
    assert consolidate.run(detect(str(repo)), close_stale=False)["rule_files"]["read"] == 0


def test_cli_rules_and_sync(repo, conn, capsys):
    _write(repo, ".cursor/rules/api.mdc", API)
    _write(repo, "AGENTS.md", "# Root")
    assert cli.main(["-C", str(repo), "rules"]) == 0
    assert "no rule files read yet" in capsys.readouterr().out
    assert cli.main(["-C", str(repo), "rules", "sync", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 1
    assert cli.main(["-C", str(repo), "rules"]) == 0
    out = capsys.readouterr().out
    assert ".cursor/rules/api.mdc  cursor/globs" in out and "governs: src/api/**/*.ts" in out
    assert "AGENTS.md  agents_md/root" in out and "(loaded by the agent itself: codex, copilot)" in out
    assert cli.main(["-C", str(repo), "rules", "--json"]) == 0
    listed = {r["path"]: r for r in json.loads(capsys.readouterr().out)["rules"]}
    assert listed[".cursor/rules/api.mdc"]["anchors"] == ["path:src/api/**/*.ts"]
    assert cli.main(["-C", str(repo), "rules", "bogus"]) == 64


def test_the_pre_action_hook_gets_the_rule_in_every_agent_but_its_own(repo, conn):
    from agentctx.hooks.action import Target, select
    from agentctx.memory import anchormap

    _write(repo, ".claude/rules/db.md", '---\npaths: ["migrations/*.sql"]\n---\n# Migrations\nNever edit an applied one.')
    _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    entries = anchormap.build(conn, project.id)["entries"]
    by_title = {e["origin"].split(": ", 1)[1]: e for e in entries}  # "rule file: <path>"
    assert by_title[".claude/rules/db.md"]["skip_agents"] == ["claude", "copilot"]
    assert by_title[".claude/rules/db.md"]["title"] == "Migrations"
    assert "(rule file: .claude/rules/db.md)" in select(entries, Target("Edit", ("migrations/1.sql",)), "codex",
                                                         set())[0].block
    assert by_title[".cursor/rules/api.mdc"]["skip_agents"] == []
    edit = Target("Edit", ("migrations/0042_add_index.sql",))
    assert [p.entry["title"] for p in select(entries, edit, "codex", set())] == [by_title[".claude/rules/db.md"]["title"]]
    assert select(entries, edit, "claude", set()) == []  # Claude Code loads .claude/rules itself
    api = select(entries, Target("Edit", ("src/api/v1/users.ts",)), "claude", set())
    assert [p.entry["id"] for p in api] == [by_title[".cursor/rules/api.mdc"]["id"]]
    assert select(entries, Target("Edit", ("src/api/v1/users.ts",)), "claude", {api[0].entry["id"]}) == []


def test_the_team_file_does_not_carry_rule_file_records(repo, conn, add):
    from agentctx.team import sync as team

    _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    add("Use Postgres", "One database.", type_="convention")
    assert [r.title for r in team.shareable(conn, team.team_target(project))] == ["Use Postgres"]


def test_the_walk_is_bounded_by_folders_and_depth_and_skips_dependencies(repo, monkeypatch):
    for rel in ("a/AGENTS.md", "node_modules/x/AGENTS.md", ".hidden/AGENTS.md", "d1/d2/d3/d4/AGENTS.md"):
        _write(repo, rel, "# x")
    found, _ = rulefiles.discover(str(repo))
    assert [c.path for c in found] == ["a/AGENTS.md", "d1/d2/d3/d4/AGENTS.md"]
    monkeypatch.setattr(rulefiles, "DEPTH_MAX", 3)
    assert [c.path for c in rulefiles.discover(str(repo))[0]] == ["a/AGENTS.md"]
    monkeypatch.setattr(rulefiles, "DIRS_MAX", 1)  # the root only
    assert rulefiles.discover(str(repo))[0] == []


def test_a_folders_dot_claude_claude_md_is_read(repo, conn):
    _write(repo, "svc/.claude/CLAUDE.md", "# Service\nUse the service's own logger.")
    _write(repo, ".claude/CLAUDE.md", "# Root")
    _write(repo, "svc/.claude/AGENTS.md", "# not a rule file")
    found = [c.path for c in rulefiles.discover(str(repo))[0]]
    assert sorted(found) == [".claude/CLAUDE.md", "svc/.claude/CLAUDE.md"]
    rulefiles.sync(conn, detect(str(repo)))
    (rec,) = _rules(conn, detect(str(repo)))
    assert rec.anchors == ("path:svc/",) and rulefiles.native_agents(rec) == {"claude", "copilot"}


def test_a_deleted_project_leaves_no_rule_file_rows(repo, conn):
    _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    records.delete_project(conn, project.id)
    assert sql.rows(conn, project.id) == {}


def test_an_unreadable_file_is_not_read_again_until_it_changes(repo, conn, monkeypatch):
    bad = _write(repo, ".claude/rules/latin1.md", b"---\npaths: src/**\n---\ncaf\xe9")
    project = detect(str(repo))
    assert rulefiles.sync(conn, project)["read"] == 1
    assert rulefiles.sync(conn, project)["read"] == 0
    assert rulefiles.listing(conn, project.id)[0]["governs"].startswith("nothing: the file could not be read")
    bad.write_text("---\npaths: src/**\n---\ncafe", encoding="utf-8")
    os.utime(bad, ns=(5, 5))
    assert rulefiles.sync(conn, project)["added"] == 1


def test_rules_sync_rebuilds_the_anchor_map_the_hook_reads(repo, conn, capsys):
    from agentctx.base import paths
    from agentctx.memory import anchormap

    _write(repo, ".cursor/rules/api.mdc", API)
    assert cli.main(["-C", str(repo), "rules", "sync"]) == 0
    entries = anchormap.read(detect(str(repo)).id)
    assert os.path.exists(paths.anchor_map_file(detect(str(repo)).id))
    assert [e["anchors"] for e in entries] == [["path:src/api/**/*.ts"]]


def test_two_passes_at_once_write_each_record_once(repo, conn, monkeypatch):
    import threading

    from agentctx.base import paths
    from agentctx.store import db

    _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    barrier = threading.Barrier(2, timeout=10)
    real = rulefiles.read_text

    def both_read_first(cand):
        barrier.wait()  # each pass has found the file new before either writes
        return real(cand)

    monkeypatch.setattr(rulefiles, "read_text", both_read_first)
    reports = []

    def run():
        c = db.connect(paths.db_path())
        try:
            reports.append(rulefiles.sync(c, project))
        finally:
            c.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(r["added"] for r in reports) == [0, 1]
    assert len(_rules(conn, project)) == 1


def test_the_rules_come_first_in_a_full_digest(repo, conn, add):
    from agentctx.memory import digest

    for i in range(10):
        add(f"Decision {i} about the payment flow", "Because " + "the ledger must balance and stay auditable " * 6)
    add("Handover", "Working on the refund path. " * 60, type_="handover")
    for i in range(8):  # the developer's global preferences fill their section too
        add(f"Preference {i}: answer in short paragraphs, name the file and the function, then say why", "x",
            type_="preference", scope="global")
    body = "\n".join(f"Line {i}: every public function has type hints and a docstring." for i in range(26))
    _write(repo, ".cursor/rules/style.mdc", "---\nalwaysApply: true\n---\n# Style\n" + body)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    text = digest.compose(conn, project.id)["agents"]["codex"]["text"]
    assert "Line 25: every public function" in text and digest.estimate(text) <= 1500
    assert text.index("Rules this repository") < text.index("Active decisions")


def test_rules_sync_says_what_a_pass_that_only_retired_did(repo, conn, capsys):
    """Issue 42 item 11: the linter's rule files removed, `rules sync` said "0 unchanged, nothing read" while it
    retired their records."""
    paths = [_write(repo, ".claude/rules/testing.md", "---\npaths: tests/**\n---\nOne test file per module."),
             _write(repo, ".cursor/rules/api.mdc", API)]
    assert cli.main(["-C", str(repo), "rules", "sync"]) == 0
    capsys.readouterr()
    for path in paths:
        path.unlink()
    assert cli.main(["-C", str(repo), "rules", "sync"]) == 0
    out = capsys.readouterr().out
    assert "records 2 retired" in out and "unchanged" not in out
    assert _rules(conn, detect(str(repo))) == []
    assert cli.main(["-C", str(repo), "rules", "sync"]) == 0  # and now nothing changed: it says so
    assert "0 unchanged, nothing read" in capsys.readouterr().out


def test_an_always_apply_rule_whose_globs_are_dropped_on_purpose_has_no_note(repo, conn):
    _write(repo, ".cursor/rules/style.mdc", "---\nalwaysApply: true\nglobs: src/**/*.{py,pyi}\n---\nRuff format.")
    report = rulefiles.sync(conn, detect(str(repo)))
    assert report["added"] == 1 and not any("no glob could be kept" in s for s in report["skipped"])
