"""SessionStart's team-file check (SPEC §3.8): a stat and a small read; a change starts a detached import."""

from agentctx.memory import consolidate
from agentctx.team import sync as team, stamp as team_stamp, fileformat as teamfile
from agentctx.base.project import detect

from .test_hot_path import HEAVY, _run


def _write_team_file(repo, entries):
    (repo / ".agentctx").mkdir(exist_ok=True)
    (repo / ".agentctx" / "context.md").write_text(teamfile.render(teamfile.TEAM, entries), encoding="utf-8")


def test_changed_team_file_spawns_one_detached_import(conn, repo, hook, monkeypatch):
    spawned = []
    # Only the team imports: a new session of the same process also closes the previous one (SPEC §4.9).
    monkeypatch.setattr("agentctx.base.spawn.detached",
                        lambda argv, cwd=None: "team" in argv and spawned.append((argv, cwd)) or 1)
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert spawned == []  # no team file
    _write_team_file(repo, [("k1", "decision", "Use Postgres", "JSONB.")])
    hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    (argv, cwd), = spawned
    assert argv[-3:] == ["team", "import", "--auto"] and cwd == str(repo.resolve())
    # The detached command itself: imports, refreshes the digest, remembers the file.
    assert team.auto_import(detect(repo)).created
    assert not team_stamp.changed(str(repo.resolve()), detect(repo).id)
    hook("session-start", {"session_id": "s2", "cwd": str(repo), "source": "startup"})
    assert len(spawned) == 1
    out = hook("session-start", {"session_id": "s3", "cwd": str(repo), "source": "startup"})
    assert "Use Postgres" in out["hookSpecificOutput"]["additionalContext"]


def test_auto_import_of_an_unchanged_file_writes_nothing(conn, repo, add):
    add("Use Postgres", "JSONB.")
    team.export_file(conn, team.team_target(detect(repo)))
    (repo / ".agentctx" / "context.md").touch()  # a checkout may rewrite the same bytes
    assert team.auto_import(detect(repo)) is None
    assert not team_stamp.changed(str(repo.resolve()), detect(repo).id)


def test_session_start_with_an_unchanged_team_file_stays_lean(add, conn, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    team.export_file(conn, team.team_target(detect(repo)))
    consolidate.run(detect(repo))
    got = _run("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Storage decision" in got["output"]
    assert [m for m in HEAVY if m in got["modules"] and m != "agentctx.memory.digest"] == []
    assert "sqlite3" not in got["modules"] and "subprocess" not in got["modules"]


def test_a_failing_team_check_still_emits_the_digest(add, conn, repo, hook, monkeypatch):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))

    def broken(root, project_id):
        raise RuntimeError("boom")

    monkeypatch.setattr(team_stamp, "changed", broken)
    _write_team_file(repo, [("k1", "decision", "Use Postgres", "JSONB.")])
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Storage decision" in out["hookSpecificOutput"]["additionalContext"]
