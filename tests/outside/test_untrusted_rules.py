"""Rule files are someone else's input (issue 42, items 12 and 13): globs whose braces would expand without bound are
refused before expanding, and every rule file is read by its real path, never from outside the repository."""

from __future__ import annotations

import signal
from contextlib import contextmanager

import pytest

from agentctx import cli
from agentctx.base.project import detect
from agentctx.outside import rulefiles, rulefmt
from agentctx.store import records


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _rules(conn, project):
    return [r for r in records.current(conn, project.id, limit=100) if r.source == "rule_file"]


@contextmanager
def _within(seconds):
    """Fail, not hang, when the code under test runs away (the case found: killed at the lifetime)."""
    def _late(signum, frame):
        raise AssertionError(f"took more than {seconds}s")
    old = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# The globs the kept-apart check wrote, and their neighbours: repeated alternatives, empty ones, deep nesting.
BAD_GLOBS = [
    "src/" + "{a,a}" * 30 + ".py",
    "{,}" * 30,
    "src/" + "{" * 2000 + "a,b" + "}" * 2000,
    "{a,b,c,d}" * 12,
    "{" * 20 + "x" + "}" * 20,  # braces without a comma: literal, but still too many groups to look at
    "src/**/" + "x" * 5000 + ".py",
    "{" + ",".join(["a"] * 5000) + "}",
]


@pytest.mark.parametrize("glob", BAD_GLOBS)
def test_a_glob_that_would_blow_up_is_dropped_with_a_note_not_expanded(glob):
    with _within(2):
        anchors, notes, matches_all = rulefmt.anchors_for([glob, "docs/**/*.md"])
        assert rulefmt.expand_braces(glob) in ([], [glob])
    assert anchors == ("path:docs/**/*.md",) and not matches_all
    assert notes and "not kept" in notes[0]


def test_ordinary_braces_still_expand():
    assert rulefmt.expand_braces("src/**/*.{ts,tsx}") == ["src/**/*.ts", "src/**/*.tsx"]
    assert rulefmt.expand_braces("{a,b}{c,d}") == ["ac", "ad", "bc", "bd"]
    assert rulefmt.glob_problem("{a,b}{c,d}{e,f}{g,h}{i,j}") is None  # 32 globs: kept, cut to 24 anchors
    assert rulefmt.glob_problem("{a,a}" * 9) is not None  # 512 to go through, even if only one is new


@pytest.mark.parametrize("glob", [BAD_GLOBS[0], BAD_GLOBS[1], BAD_GLOBS[2]])
def test_rules_sync_and_consolidation_finish_and_keep_the_other_rules(repo, conn, capsys, glob):
    from agentctx.memory import consolidate

    _write(repo, ".cursor/rules/bad.mdc", f"---\ndescription: Bad globs\nglobs: {glob}\n---\nA rule.\n")
    _write(repo, ".claude/rules/db.md", '---\npaths: ["migrations/*.sql"]\n---\nNever edit an applied migration.\n')
    with _within(10):
        assert cli.main(["-C", str(repo), "rules", "sync"]) == 0
    out = capsys.readouterr().out
    assert "bad.mdc" in out and "not kept" in out
    project = detect(str(repo))
    assert any("migrations/*.sql" in " ".join(r.anchors) for r in _rules(conn, project))
    _write(repo, ".cursor/rules/bad2.mdc", f"---\nglobs: {glob}, lib/**\n---\nAnother.\n")
    with _within(10):
        report = consolidate.run(project, close_stale=False)
    assert report["rule_files"]["read"] == 3


def test_a_rule_folder_linked_out_of_the_repository_is_refused(repo, conn, tmp_path):
    elsewhere = tmp_path / "someone-elses"
    _write(elsewhere, "rules/leak.mdc", "---\nglobs: src/**\n---\nThe secret plan.\n")
    _write(elsewhere, "rules/leak.md", "---\npaths: src/**\n---\nThe secret plan.\n")
    (repo / ".cursor").symlink_to(elsewhere)
    (repo / ".claude").symlink_to(elsewhere)
    _write(repo, "AGENTS.md", "# Root\n")
    project = detect(str(repo))
    report = rulefiles.sync(conn, project)
    skipped = "\n".join(report["skipped"])
    assert ".cursor/rules: a symlink that leaves the repository" in skipped
    assert ".claude/rules: a symlink that leaves the repository" in skipped
    assert not _rules(conn, project)
    assert not [p for p in rulefiles.listing(conn, project.id) if p["path"].startswith((".cursor", ".claude"))]


def test_a_rule_file_inside_a_folder_linked_out_is_refused(repo, conn, tmp_path):
    # The link one level up from the rule folder: `.claude` itself is ordinary, `.claude/rules/team` is a link out.
    elsewhere = tmp_path / "team"
    _write(elsewhere, "x.md", "---\npaths: src/**\n---\nThe secret plan.\n")
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "team").symlink_to(elsewhere)
    _write(repo, ".claude/rules/own.md", "---\npaths: lib/**\n---\nOur own rule.\n")
    rulefiles.sync(conn, detect(str(repo)))
    bodies = [r.body for r in _rules(conn, detect(str(repo)))]
    assert bodies == ["Our own rule."]


def test_claude_memory_import_refuses_a_claude_folder_linked_out(repo, tmp_path):
    from agentctx.outside import memory_import

    elsewhere = tmp_path / "other"
    _write(elsewhere, "CLAUDE.md", "- The other team deploys on Fridays with the manual script.\n")
    _write(elsewhere, "rules/x.md", "- The other team never runs migrations in CI.\n")
    (repo / ".claude").symlink_to(elsewhere)
    assert memory_import.rules_files(repo) == []


def test_an_instructions_folder_linked_inside_the_repository_is_read_once(repo, conn):
    _write(repo, "docs/agent-instructions/py.instructions.md", "---\napplyTo: 'src/**/*.py'\n---\nType hints.\n")
    (repo / ".github").mkdir()
    (repo / ".github" / "instructions").symlink_to(repo / "docs" / "agent-instructions")
    project = detect(str(repo))
    report = rulefiles.sync(conn, project)
    assert report["files"] == 1 and report["added"] == 1
    (rule,) = _rules(conn, project)
    assert rulefiles.rule_paths(rule) == [".github/instructions/py.instructions.md"]
    assert rule.anchors == ("path:**/src/**/*.py",)  # as VS Code reads `src/**/*.py`
    assert rulefiles.sync(conn, project)["read"] == 0


def test_a_folder_linked_inside_a_rule_folder_is_read_once_and_a_loop_ends(repo, conn):
    _write(repo, "shared/rules/db.md", '---\npaths: ["migrations/*.sql"]\n---\nNever edit an applied migration.\n')
    (repo / ".claude" / "rules").mkdir(parents=True)
    (repo / ".claude" / "rules" / "shared").symlink_to(repo / "shared" / "rules")
    (repo / "shared" / "rules" / "loop").symlink_to(repo / ".claude" / "rules")  # a cycle back
    project = detect(str(repo))
    with _within(10):
        report = rulefiles.sync(conn, project)
    (rule,) = _rules(conn, project)
    assert rulefiles.rule_paths(rule) == [".claude/rules/shared/db.md"] and report["files"] == 1
