"""agentctx import claude-memory: Claude Code's auto memory and CLAUDE.md rules become typed, explicit records
(source claude_memory), deduplicated, written on confirmation, and Claude Code's files are never changed.
The memory files below are written by hand in the two formats Claude Code uses (vendor-notes/claude-code-auto-memory.md)."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import pytest

from agentctx.outside import memory_import as cm
from agentctx.store import db
from agentctx.base import paths
from agentctx.cli import terminal
from agentctx.base.project import detect
from agentctx.store import records

from .conftest import make_project

MEMORY_INDEX = """# Memory index

- [Deploy target](deploy_target.md) — where staging deploys go
- [Testing notes](testing.md)
- The build uses uv, never pip install directly.
- See also

## Gotchas
- The CI runner has no network access, so tests that fetch must be marked `@network`.
"""

DEPLOY_TOPIC = """---
name: deploy-target
description: Staging deploys go to the fly.io app demo-staging
metadata:
  type: project
---
Staging deploys go to the fly.io app demo-staging; production is demo-prod.
"""

TESTING_TOPIC = """# Testing

- Run the suite with `make test`; it sets PYTHONHASHSEED.
- The user prefers pytest fixtures over unittest classes.
"""

CLAUDE_MD = """# Project rules

- Always run ruff before committing.
- We decided to use SQLite instead of Postgres for the local cache.

```bash
- this bullet is inside a code block
```

## Project memory (agentctx)

Decisions and conventions recorded by agentctx.

- **Storage engine**: sqlite with WAL *(agentctx decision 01M8RP3NDJ1PPYHVXRSET5Z00B)*
"""


def memory_dir_for(root: Path) -> Path:
    return Path.home() / ".claude" / "projects" / cm.sanitize(str(root)) / "memory"


@pytest.fixture
def claude_files(proj_p):
    memory = memory_dir_for(proj_p)
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(MEMORY_INDEX)
    (memory / "deploy_target.md").write_text(DEPLOY_TOPIC)
    (memory / "testing.md").write_text(TESTING_TOPIC)
    (proj_p / "CLAUDE.md").write_text(CLAUDE_MD)
    return [memory / "MEMORY.md", memory / "deploy_target.md", memory / "testing.md", proj_p / "CLAUDE.md"]


def digest(files):
    return {str(f): (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns) for f in files}


def stored(root):
    conn = db.connect(paths.db_path())
    try:
        return records.current(conn, detect(root).id, own_only=True)
    finally:
        conn.close()


def test_sanitize_matches_claude_codes_encoding():
    assert cm.sanitize("/Users/tom/tmp/tenant-library") == "-Users-tom-tmp-tenant-library"
    assert cm.sanitize("/home/me/my_app.v2") == "-home-me-my-app-v2"


def test_proposals_one_per_bullet_section_or_topic_file(in_p, proj_p, claude_files):
    listed = json.loads(in_p("import", "claude-memory", "--json").out)
    assert listed["memory_dir"] == str(memory_dir_for(proj_p))
    got = [(p["type"], p["title"], p["origin"]) for p in listed["proposals"]]
    assert got == [
        ("convention", "The build uses uv, never pip install directly", "MEMORY.md:5"),
        ("convention", "The CI runner has no network access, so tests that fetch must be marked `@network`",
         "MEMORY.md:9"),
        ("decision", "Staging deploys go to the fly.io app demo-staging", "deploy_target.md"),
        ("convention", "Run the suite with `make test`; it sets PYTHONHASHSEED", "testing.md:3"),
        ("preference", "The user prefers pytest fixtures over unittest classes", "testing.md:4"),
        ("convention", "Always run ruff before committing", "CLAUDE.md:3"),
        ("decision", "We decided to use SQLite instead of Postgres for the local cache", "CLAUDE.md:4"),
    ]
    body = listed["proposals"][2]["body"]
    assert body.startswith("Staging deploys go to the fly.io app demo-staging; production is demo-prod.")
    assert "(Imported from Claude Code: deploy_target.md.)" in body
    assert stored(proj_p) == []  # --json only lists


def test_import_writes_on_yes_and_a_rerun_adds_only_what_is_new(in_p, proj_p, claude_files):
    before = digest(claude_files)
    r = in_p("import", "claude-memory", "--yes")
    assert r.rc == 0 and "imported 7 records (source claude_memory)" in r.out
    rows = stored(proj_p)
    assert len(rows) == 7 and {r.source for r in rows} == {"claude_memory"} and {r.confidence for r in rows} == {"explicit"}
    assert digest(claude_files) == before  # Claude Code's files are read, never written
    assert "nothing new to import (7 found, all already in agentctx)" in in_p("import", "claude-memory", "--yes").out
    # Claude adds a memory; the user forgets one imported record: only the new memory comes in.
    with claude_files[0].open("a") as fh:
        fh.write("- Release notes live in docs/CHANGELOG.md and are written by hand.\n")
    ruff = next(r for r in rows if r.title.startswith("Always run ruff"))
    assert in_p("forget", "--yes", "--id", ruff.id).rc == 0
    r = in_p("import", "claude-memory", "--yes", "--json")
    assert len(json.loads(r.out)["imported"]) == 1
    assert any(r.title.startswith("Release notes live") for r in stored(proj_p))
    assert not any(r.title.startswith("Always run ruff") for r in stored(proj_p))


def test_dedup_against_records_already_in_the_store(in_p, proj_p, claude_files):
    assert in_p("record", "--type", "convention", "--title", "Ruff first",
                "--body", "Always run ruff before committing").rc == 0
    titles = [p["title"] for p in json.loads(in_p("import", "claude-memory", "--json").out)["proposals"]]
    assert "Always run ruff before committing" not in titles and len(titles) == 6


def test_interactive_pick_and_refusal_without_a_terminal(in_p, proj_p, claude_files, monkeypatch):
    r = in_p("import", "claude-memory")
    assert r.rc == 64 and "there is no terminal to ask" in r.err and stored(proj_p) == []
    monkeypatch.setattr(terminal, "is_terminal", lambda: True)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    assert "nothing imported" in in_p("import", "claude-memory").out
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 3\n"))
    r = in_p("import", "claude-memory")
    assert "imported 2 records" in r.out
    assert sorted(x.type for x in stored(proj_p)) == ["convention", "decision"]


def test_no_memory_directory_still_reads_claude_md(in_p, proj_p):
    (proj_p / "CLAUDE.md").write_text("- Never commit secrets to the repository.\n")
    listed = json.loads(in_p("import", "claude-memory", "--json").out)
    assert listed["memory_dir"] is None and [p["origin"] for p in listed["proposals"]] == ["CLAUDE.md:1"]


def test_secrets_are_scrubbed_before_storing(in_p, proj_p):
    (proj_p / "CLAUDE.md").write_text("- Use the staging key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 for deploys.\n")
    assert in_p("import", "claude-memory", "--yes").rc == 0
    assert "abcdefghijklmnop" not in stored(proj_p)[0].body


def test_worktrees_share_the_main_checkouts_memory(tmp_path, proj_p):
    """A linked worktree's .git is a file; Claude Code keys auto memory by the main work tree."""
    main_git = proj_p / ".git"
    (main_git / "worktrees" / "wt").mkdir(parents=True)
    (main_git / "worktrees" / "wt" / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {main_git / 'worktrees' / 'wt'}\n")
    assert cm.canonical_root(wt) == proj_p.resolve()
    memory_dir_for(proj_p.resolve()).mkdir(parents=True)
    assert cm.memory_dir(wt) == memory_dir_for(proj_p.resolve())


def test_sanitize_is_claude_codes_own_rule_for_long_paths():
    # Expected names computed by Claude Code's own function (`$E` in 2.1.197's bundled JS, `J$` in 2.1.332: the
    # same code), run with node on these paths (vendor-notes/claude-code-auto-memory.md, fact 2).
    a = "/home/dev/" + "src/" * 50 + "service-a"
    b = "/home/dev/" + "src/" * 50 + "service-b"
    assert cm.sanitize(a) == ("-home-dev-" + "src-" * 50)[:200] + "-2bwpqw"
    assert cm.sanitize(b) == ("-home-dev-" + "src-" * 50)[:200] + "-2bwpqv"
    assert cm.sanitize("/home/dev/caf\u00e9/\U0001F600") == "-home-dev-caf----"  # an emoji is two UTF-16 units


def test_long_paths_never_match_another_projects_memory_and_the_setting_wins(tmp_path, monkeypatch):
    # The real case: two projects whose paths share their first 200 sanitized characters. Each has its own
    # directory (Claude Code's hash of the whole path), and one's memory is never read as the other's.
    base = tmp_path / ("d" * 120) / ("e" * 120)
    one, two = base / "service-a", base / "service-b"
    one.mkdir(parents=True)
    two.mkdir()
    name_one, name_two = cm.sanitize(str(one)), cm.sanitize(str(two))
    assert len(name_one) > cm.SANITIZED_MAX and name_one[:cm.SANITIZED_MAX] == name_two[:cm.SANITIZED_MAX]
    assert name_one != name_two
    theirs = Path.home() / ".claude" / "projects" / name_two / "memory"
    theirs.mkdir(parents=True)
    (theirs / "MEMORY.md").write_text("- service-b deploys with the blue-green script, never by hand.\n")
    assert cm.memory_dir(one) is None  # only service-b's directory exists: not ours, whatever its prefix
    assert cm.memory_dir(two) == theirs
    ours = Path.home() / ".claude" / "projects" / name_one / "memory"
    ours.mkdir(parents=True)
    assert cm.memory_dir(one) == ours
    custom = tmp_path / "my-memory"
    custom.mkdir()
    (Path.home() / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom)}))
    assert cm.memory_dir(one) == custom
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert cm.memory_dir(one) is None


def test_units_skip_code_tables_comments_and_imports():
    text = "# H\n\nSome prose\nstill prose.\n\n| a | b |\n<!-- hidden\n- no -->\n@docs/x.md\n```\n- code\n```\n- a bullet\n  continued\n"
    assert [(h, t) for _, h, t in cm.units(text)] == [("H", "a bullet continued"), ("H", "Some prose\nstill prose.")]


def test_project_source_is_in_the_closed_set(in_p, proj_p):
    from agentctx.base.models import SOURCES

    assert "claude_memory" in SOURCES


def test_dangling_index_links_long_topics_and_traps(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(
        "- [ROS 2 design](gone.md) — no central coordinator, one node per drone\n"
        "1. **Stale profile bug**: after a refresh you must re-read the profile from disk.\n")
    long_body = "\n".join(f"- requirement {i}: the plot uses colour number {i}" for i in range(120))
    (memory / "viz.md").write_text(f"---\nname: viz\ndescription: Plot requirements\ntype: project\n---\n{long_body}\n")
    got = {p.origin: p for p in cm.propose(tmp_path, memory)}
    assert got["MEMORY.md:1"].title == "ROS 2 design — no central coordinator, one node per drone"
    assert got["MEMORY.md:2"].type == "discovery"  # a trap, although it says "must"
    viz = got["viz.md"]
    assert viz.type == "decision" and len(viz.body) <= 2000
    assert viz.body.endswith("…\n\n(Imported from Claude Code: viz.md.)")


def test_a_claude_md_line_the_store_superseded_is_not_brought_back(in_p, proj_p):
    """Issue 26, item 2: after a supersession (5 s -> 10 s), the old CLAUDE.md line was imported as a new current
    convention, and both contradicting records were injected."""
    old = in_p("record", "--type", "decision", "--title", "Default timeout",
               "--body", "The default timeout stays at 5 seconds for every request.").out.strip()
    assert in_p("supersede", old, "--body", "The default timeout is 10 seconds for every request.",
                "--rationale", "slow proxies").rc == 0
    (proj_p / "CLAUDE.md").write_text("- The default timeout stays at 5 seconds.\n"
                                      "- Releases are tagged from main only.\n")
    listed = json.loads(in_p("import", "claude-memory", "--json").out)
    assert [p["title"] for p in listed["proposals"]] == ["Releases are tagged from main only"]
    (skip,) = listed["skipped"]
    assert skip["origin"] == "CLAUDE.md:1" and "superseded" in skip["why"]
    assert in_p("import", "claude-memory", "--yes").rc == 0
    assert [r.title for r in stored(proj_p) if r.title.startswith("The default timeout")] == []


def test_a_near_duplicate_of_another_type_is_not_imported_again(in_p, proj_p):
    in_p("record", "--type", "decision", "--title", "Postgres for the orders service",
         "--body", "The orders service keeps its data in Postgres 16.")
    (proj_p / "CLAUDE.md").write_text("- The orders service uses Postgres for its data.\n")
    listed = json.loads(in_p("import", "claude-memory", "--json").out)
    assert listed["proposals"] == [] and "already stored as decision" in listed["skipped"][0]["why"]


def test_a_memory_that_restates_claude_md_or_a_record_is_not_proposed(in_p, proj_p):
    # Issue 34: CLAUDE.md said "Use pytest for all tests; never unittest." and Claude's memory "Tests are written
    # with pytest, not unittest": both were proposed. CLAUDE.md lines from github.com/NicholasGrundl/tokentoss.
    memory = memory_dir_for(proj_p)
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# Memory index\n\n"
                                      "- Tests are written with pytest, not unittest\n"
                                      "- Run commands through uv run, never plain python\n"
                                      "- Tests use unittest.TestCase classes, not pytest functions\n"
                                      "- Parallel test runs use pytest-xdist with -n auto\n")
    (proj_p / "CLAUDE.md").write_text("# CLAUDE.md\n\n## Testing\n\n- Use pytest for all tests; never unittest.\n")
    in_p("record", "--type", "convention", "--title", "Commands run through uv",
         "--body", "Always use `uv run` to execute commands (not `python` or `python3` directly).")
    listed = json.loads(in_p("import", "claude-memory", "--json").out)
    titles = [p["title"] for p in listed["proposals"]]
    assert titles == ["Tests use unittest.TestCase classes, not pytest functions",  # contradicts: still proposed
                      "Parallel test runs use pytest-xdist with -n auto",  # adds: still proposed
                      "Use pytest for all tests; never unittest"]  # the CLAUDE.md line itself, once
    (skip,) = listed["skipped"]
    assert skip["title"] == "Run commands through uv run, never plain python"
    assert skip["why"].startswith("already stored as convention")


def test_import_never_follows_a_memory_index_linked_out_of_its_directory(tmp_path):
    memory = tmp_path / "memory"
    memory.mkdir()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("- The other project's deploy key lives in the shared vault under ops/keys.\n")
    (memory / "MEMORY.md").symlink_to(elsewhere)
    (memory / "deploy_target.md").write_text(DEPLOY_TOPIC)
    proposals = cm.propose(tmp_path / "no-project", memory)
    assert proposals and not any("vault" in p.body for p in proposals)
