"""The agents' own memory read into the store, continuously: each fact once with its provenance, an edit supersedes,
a removed line retires, a second pass changes nothing; the skip set; and bad input (huge, endless, undecodable,
10,000 files) bounded."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agentctx.outside import memdirs, memfiles
from agentctx.base.models import GLOBAL_PROJECT, NewRecord
from agentctx.base.project import detect
from agentctx.outside import agentmem
from agentctx.store import agentmem as store
from agentctx.store import records

MEMORY_MD = """# Memory

- The integration tests need a running Redis on port 6390, started by `make redis`.
- [Deploy target](deploy.md) — where staging deploys go
"""

MEMORY_ONE = MEMORY_MD.split("- [Deploy")[0]

DEPLOY = """---
name: deploy-target
description: Staging deploys go to the fly.io app demo-staging
metadata:
  type: project
---
Staging deploys go to the fly.io app demo-staging; production is demo-prod.
"""

CODEX_HANDBOOK = """# Task Group: billing service refactor
scope: the billing service, its tests and deploys
applies_to: cwd={root}; reuse_rule=safe for this checkout

## Task 1: split the invoice module, done
### rollout_summary_files
- rollout_summaries/2026-11-30-split.md (cwd={root}, rollout_path=/x, updated_at=2026-11-30, thread_id=t1)
### keywords
- invoice, split

## Reusable knowledge
- Invoice totals are computed in cents with integer math; never use floats for money here.

# Task Group: another repository
scope: something else
applies_to: cwd=/somewhere/else; reuse_rule=never here

## Reusable knowledge
- The other repository deploys with Helm charts from the ops folder.
"""

CODEX_SUMMARY = """v1
## User Profile
A backend developer.

## User preferences
- The user wants answers short, with the command first and the explanation after.

## What's in Memory
### billing
- rollout_summaries/2026-11-30-split.md
"""

GEMINI_GLOBAL = """## Gemini Added Memories
- My preferred test runner across all projects is pytest with the xdist plugin.
"""


@pytest.fixture
def project(repo):
    return detect(repo)


def claude_dir(root: Path) -> Path:
    d = Path.home() / ".claude" / "projects" / memdirs.sanitize(str(root)) / "memory"
    d.mkdir(parents=True, exist_ok=True)
    return d


def own_records(conn, project_id):
    return [r for r in records.current(conn, project_id) if r.source == "agent_memory"]


def test_each_agents_memory_becomes_one_inferred_record_with_provenance(conn, repo, project):
    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_MD)
    (memory / "deploy.md").write_text(DEPLOY)
    codex = Path.home() / ".codex" / "memories"
    codex.mkdir(parents=True)
    (codex / "MEMORY.md").write_text(CODEX_HANDBOOK.format(root=repo))
    (codex / "memory_summary.md").write_text(CODEX_SUMMARY)
    (Path.home() / ".gemini").mkdir()
    (Path.home() / ".gemini" / "GEMINI.md").write_text(GEMINI_GLOBAL)

    report = agentmem.sync(conn, project)
    assert report.imported == {"claude": 2, "codex": 2, "gemini": 1}
    mine = own_records(conn, project.id)
    titles = {r.title for r in mine}
    assert "Staging deploys go to the fly.io app demo-staging" in titles
    assert not any("Helm" in r.body for r in mine)  # another repository's block is not this project's
    assert {r.confidence for r in mine} == {"inferred"}
    deploy = next(r for r in mine if "demo-staging" in r.title)
    assert deploy.type == "decision"  # the frontmatter's `type: project`
    where = store.provenance(conn, deploy.id)
    assert [(w.agent, Path(w.path).name, w.line) for w in where] == [("claude", "deploy.md", 1)]
    personal = [r for r in records.current(conn, GLOBAL_PROJECT, own_only=True) if r.source == "agent_memory"]
    assert {r.scope for r in personal} == {"global"} and len(personal) == 2
    assert "Gemini CLI's memory" in next(r.body for r in personal if "xdist" in r.body)

    again = agentmem.sync(conn, project)
    assert not again.changed() and sum(again.unchanged.values()) == 5


def test_an_edit_supersedes_and_a_removed_line_retires(conn, repo, project):
    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_ONE)
    agentmem.sync(conn, project)
    (first,) = own_records(conn, project.id)
    (memory / "MEMORY.md").write_text(MEMORY_ONE.replace("6390", "6391"))
    report = agentmem.sync(conn, project)
    assert report.superseded == {"claude": 1} and not report.imported
    (head,) = own_records(conn, project.id)
    assert "6391" in head.body and records.get(conn, first.id).superseded_by == head.id
    (memory / "MEMORY.md").write_text("# Memory\n")
    report = agentmem.sync(conn, project)
    assert report.retired == {"claude": 1}
    assert own_records(conn, project.id) == []
    assert records.get(conn, head.id).superseded_at is not None  # in history, not deleted
    assert not agentmem.sync(conn, project).changed()


def test_a_fact_the_store_holds_is_linked_not_imported_and_a_confirmed_one_stays(conn, repo, project, add):
    known = add("Integration tests need Redis on port 6390",
                "The integration tests need a running Redis on port 6390, started by `make redis`.")
    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_ONE)
    report = agentmem.sync(conn, project)
    assert report.linked == {"claude": 1} and not report.imported
    assert [w.record_id for w in store.provenance(conn, known.id)] == [known.id]
    (memory / "MEMORY.md").write_text("")
    agentmem.sync(conn, project)
    assert records.get(conn, known.id).is_current  # not ours to retire


def test_the_skip_set_holds_loaded_lines_and_records_that_say_the_same(conn, repo, project, add):
    same = add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    other = add("Use structlog for logging", "All services log through structlog.")
    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_MD)
    (memory / "deploy.md").write_text(DEPLOY)
    agentmem.sync(conn, project)
    skip = store.skip_ids(conn, project.id, "claude")
    assert same.id in skip and other.id not in skip
    topic = next(r for r in own_records(conn, project.id) if "demo-staging" in r.title)
    assert topic.id in skip  # a loaded index line links to it: the model has its hook line and the file
    (memory / "notes.md").write_text("- The nightly job rebuilds the search index from the orders table.\n")
    agentmem.sync(conn, project)
    notes = next(r for r in own_records(conn, project.id) if "nightly job" in r.body)
    assert notes.id not in store.skip_ids(conn, project.id, "claude")  # no index line points at it: agentctx delivers
    assert store.skip_ids(conn, project.id, "codex") == set()


def test_auto_memory_off_means_nothing_is_skipped(conn, repo, project, add, monkeypatch):
    add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    (claude_dir(repo) / "MEMORY.md").write_text(MEMORY_MD)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    agentmem.sync(conn, project)
    assert store.skip_ids(conn, project.id, "claude") == set()
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    (Path.home() / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryEnabled": False}))
    assert memdirs.claude_on(repo) is False


def test_codex_memories_are_on_only_with_the_feature_flag():
    codex = Path.home() / ".codex"
    codex.mkdir()
    assert memdirs.codex_on() is False
    (codex / "config.toml").write_text("[features]\nmemories = true\n")
    assert memdirs.codex_on() is True
    (codex / "config.toml").write_text("[features]\nmemories = true\n[memories]\nuse_memories = false\n")
    assert memdirs.codex_on() is False


def test_gemini_private_project_memory_is_found_through_its_registry(conn, repo, project):
    gem = Path.home() / ".gemini"
    (gem / "tmp" / "repo" / "memory").mkdir(parents=True)
    (gem / "projects.json").write_text(json.dumps({"projects": {str(repo): "repo"}}))
    (gem / "tmp" / "repo" / "memory" / "MEMORY.md").write_text(
        "# Project memory\n\n- On my machine the database runs in a podman container named pgdev.\n")
    report = agentmem.sync(conn, project)
    assert report.imported == {"gemini": 1}
    (rec,) = own_records(conn, project.id)
    assert rec.scope == "project" and "pgdev" in rec.body
    assert rec.id in store.skip_ids(conn, project.id, "gemini")


def _timed(fn, limit=20.0):
    start = time.monotonic()
    out = fn()
    assert time.monotonic() - start < limit
    return out


def test_bad_input_is_bounded_and_said_once(conn, repo, project):
    memory = claude_dir(repo)
    with open(memory / "MEMORY.md", "wb") as fh:  # 50 MB
        line = b"- The cache key includes the tenant id and the locale of the request.\n"
        fh.write(line * (50 * 1024 * 1024 // len(line)))
    os.symlink("/dev/zero", memory / "a-zero.md")
    (memory / "latin1.md").write_bytes("- Le d\xe9ploiement passe par la branche release chaque jeudi.\n".encode("latin-1"))
    for i in range(10_000):
        (memory / f"note{i:05d}.md").write_text(f"- Note number {i} says the widget {i} needs a gadget.\n")
    report = _timed(lambda: agentmem.sync(conn, project))
    problems = "\n".join(report.problems)
    assert "MEMORY.md: larger than 256 KiB" in problems
    assert "a-zero.md: a link out of" in problems
    assert "10002 files, only the first 200 read" in problems
    assert "latin1.md: not valid UTF-8" in problems
    n = len(own_records(conn, project.id))
    assert n <= 1 + memfiles.MAX_FILES  # the 50 MB index holds one fact, repeated: imported once
    again = _timed(lambda: agentmem.sync(conn, project))
    assert not again.changed() and len(own_records(conn, project.id)) == n


def test_consolidation_runs_the_reader_and_logs_a_bad_file_in_one_line(conn, repo, project):
    from agentctx.base import paths
    from agentctx.memory import consolidate

    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_ONE)
    os.symlink("/dev/zero", memory / "a-zero.md")
    conn.close()
    report = consolidate.run(project, close_stale=False)
    assert report["agent_memory"] == "imported 1 from Claude Code"
    log = (Path(paths.logs_dir()) / "extract.log").read_text()
    assert sum("a-zero.md: a link out of" in ln for ln in log.splitlines()) == 1
    assert consolidate.run(project, close_stale=False)["agent_memory"] is None


def test_status_and_doctor_say_what_each_agents_memory_holds_and_where_it_overlaps(conn, repo, project, add,
                                                                                   capsys):
    from agentctx.cli import main

    add("Integration tests need Redis on port 6390", "Start it with make redis before the integration tests.")
    (claude_dir(repo) / "MEMORY.md").write_text(MEMORY_MD)
    agentmem.sync(conn, project)
    assert main(["-C", str(repo), "status", "--json"]) == 0
    rows = {r["agent"]: r for r in json.loads(capsys.readouterr().out)["agent_memory"]}
    assert rows["claude"]["on"] and rows["claude"]["facts"] == 2 and rows["claude"]["in_store"]["lines"] == 2
    assert rows["claude"]["not_injected_again"] == {"own": 2, "same": 1} and rows["codex"]["on"] is False
    assert main(["-C", str(repo), "status"]) == 0
    assert "Claude Code  on   2 facts in 1 file(s)" in capsys.readouterr().out
    main(["-C", str(repo), "doctor", "--json"])
    (check,) = [c for c in json.loads(capsys.readouterr().out) if c["name"].startswith("own memory")]
    assert check["status"] == "warn" and "MEMORY.md" in check["detail"]
    assert '"autoMemoryEnabled": false' in check["fix"] and "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1" in check["fix"]


def test_two_passes_at_once_import_each_fact_once(conn, repo, project):
    import threading

    from agentctx.base import paths
    from agentctx.store import db

    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text("".join(f"- Fact number {i}: the service {i} listens on port {8000 + i}.\n"
                                              for i in range(40)))
    errors = []

    def one():
        c = db.connect(paths.db_path())
        try:
            agentmem.sync(c, project)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            c.close()

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(own_records(conn, project.id)) == 40
    assert len(store.live(conn, (project.id,))) == 40


def test_import_claude_memory_and_the_reader_never_store_a_fact_twice(conn, repo, project):
    from agentctx.outside import memory_import as cm

    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_MD)
    (memory / "deploy.md").write_text(DEPLOY)
    agentmem.sync(conn, project)
    fresh, skipped = cm.known_to_store(conn, project.id, cm.propose(repo, memory))
    assert fresh == [] and len(skipped) == 2  # the reader brought both in: the import proposes nothing
    (memory / "extra.md").write_text("- The search service caches results for ninety seconds per tenant.\n")
    fresh, _ = cm.known_to_store(conn, project.id, cm.propose(repo, memory))
    cm.write(conn, project.id, fresh)  # imported on request first (explicit)
    report = agentmem.sync(conn, project)
    assert report.linked == {"claude": 1} and not report.imported  # the reader links it, imports nothing


def test_show_names_the_memory_line_a_record_came_from(conn, repo, project, capsys):
    from agentctx.cli import main

    (claude_dir(repo) / "MEMORY.md").write_text(MEMORY_ONE)
    agentmem.sync(conn, project)
    (rec,) = own_records(conn, project.id)
    assert main(["-C", str(repo), "show", rec.id]) == 0
    assert f"from        Claude Code: {claude_dir(repo) / 'MEMORY.md'}:3" in capsys.readouterr().out
    assert main(["-C", str(repo), "show", rec.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"][0]["agent"] == "claude"


def test_save_memorys_section_of_the_project_gemini_md_is_gemini_memory(conn, repo, project):
    (repo / "GEMINI.md").write_text("# Project\n\n- Run the linters with make lint.\n\n## Gemini Added Memories\n"
                                    "- The fixtures for the billing tests live in tests/data/billing.\n")
    report = agentmem.sync(conn, project)
    assert report.imported == {"gemini": 1}
    (rec,) = own_records(conn, project.id)
    assert "tests/data/billing" in rec.body and rec.scope == "project"
    assert store.provenance(conn, rec.id)[0].line == 6


def test_a_forgotten_record_stays_forgotten_and_reset_reads_afresh(conn, repo, project):
    (claude_dir(repo) / "MEMORY.md").write_text(MEMORY_ONE)
    agentmem.sync(conn, project)
    (rec,) = own_records(conn, project.id)
    records.delete(conn, rec.id, project.id)
    assert not agentmem.sync(conn, project).changed() and own_records(conn, project.id) == []
    records.delete_project(conn, project.id)
    assert agentmem.sync(conn, project).imported == {"claude": 1}


def test_an_edited_line_never_supersedes_a_record_someone_else_wrote(conn, repo, project, add):
    yours = add("Integration tests need Redis on port 6390",
                "The integration tests need a running Redis on port 6390, started by `make redis`.")
    memory = claude_dir(repo)
    (memory / "MEMORY.md").write_text(MEMORY_ONE)
    assert agentmem.sync(conn, project).linked == {"claude": 1}
    (memory / "MEMORY.md").write_text(MEMORY_ONE.replace("6390", "6391"))
    report = agentmem.sync(conn, project)
    assert report.imported == {"claude": 1} and not report.superseded
    assert records.get(conn, yours.id).is_current  # yours stands; the agent's new line is an inferred record


def test_a_memory_index_linked_out_of_its_directory_is_not_followed(conn, repo, project, tmp_path):
    # The real case (issue 42, item 14): MEMORY.md a symlink to a file elsewhere (another project's, or anyone's).
    elsewhere = tmp_path / "other-project-memory.md"
    elsewhere.write_text("- The other project's staging database password rotates every Monday.\n")
    memory = claude_dir(repo)
    os.symlink(elsewhere, memory / "MEMORY.md")
    (memory / "deploy.md").write_text(DEPLOY)
    found = memdirs.claude(repo)
    assert [u.path for u in found.units] == [str(memory / "deploy.md")]
    assert any("MEMORY.md: a link out of" in p for p in found.problems)
    report = agentmem.sync(conn, project)
    assert not any("password" in r.body for r in own_records(conn, project.id))
    assert any("MEMORY.md: a link out of" in p for p in report.problems)


def test_a_gemini_memory_index_linked_out_is_not_followed(conn, repo, project, tmp_path):
    from agentctx.base import paths

    gem = paths.gemini_home()
    gem.mkdir(parents=True, exist_ok=True)
    (gem / "projects.json").write_text(json.dumps({"projects": {str(repo): "repo-1"}}))
    private = gem / "tmp" / "repo-1" / "memory"
    private.mkdir(parents=True)
    elsewhere = tmp_path / "notes.md"
    elsewhere.write_text("- Someone else's note about the release train schedule and its owners.\n")
    os.symlink(elsewhere, private / "MEMORY.md")
    found = memdirs.gemini(repo)
    assert not any("release train" in u.text for u in found.units)


def test_codex_and_gemini_files_linked_out_are_not_followed(conn, repo, project, tmp_path):
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text(CODEX_HANDBOOK.format(root=repo))
    codex = Path.home() / ".codex" / "memories"
    codex.mkdir(parents=True)
    os.symlink(elsewhere, codex / "MEMORY.md")
    found = memdirs.codex(repo)
    assert found.units == [] and any("a link out of" in p for p in found.problems)
    gemini_md = tmp_path / "someone-GEMINI.md"
    gemini_md.write_text("## Gemini Added Memories\n- The staging database password is rotated by the ops team.\n")
    os.symlink(gemini_md, repo / "GEMINI.md")
    assert not any("staging database" in u.text for u in memdirs.gemini(repo).units)
