"""The team file is someone else's input (issue 29): odd files refused at once, caps on size, entries and what one
import may add (nothing imported above them), and records from it marked as the team's wherever they are shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from agentctx.base.errors import NotFoundError, ValidationError
from agentctx.base.project import detect
from agentctx.cli import main
from agentctx.store import records
from agentctx.team import fileformat as teamfile
from agentctx.team import sync as team


@pytest.fixture
def proj(repo):
    return detect(repo)


@pytest.fixture
def target(proj):
    t = team.team_target(proj)
    os.makedirs(os.path.dirname(t.path), exist_ok=True)
    return t


def _entries(n: int) -> list[tuple[str, str, str, str]]:
    return [(f"k{i:06d}", "decision", f"Decision number {i}", f"Body of decision {i}.") for i in range(n)]


def _run_cli(repo, *args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentctx", *args], cwd=repo, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))


def test_a_fifo_team_file_is_refused_at_once_by_import_and_status(conn, repo, target):
    os.mkfifo(target.path)
    for action in ("import", "status"):
        start = time.monotonic()
        done = _run_cli(repo, "team", action)  # before the fix: hung until killed
        assert time.monotonic() - start < 15
        assert done.returncode != 0 and "not a regular file" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_a_team_file_linked_to_dev_zero_is_refused_and_imports_nothing(conn, repo, target, proj):
    os.symlink("/dev/zero", target.path)
    for action in ("import", "status"):  # in a process of its own: before the fix it read /dev/zero until killed
        done = _run_cli(repo, "team", action)
        assert done.returncode != 0 and "not a regular file" in done.stderr
    with pytest.raises(NotFoundError, match="not a regular file"):
        team.import_file(conn, target)
    assert records.current(conn, proj.id) == []


@pytest.mark.parametrize("cap, value, entries, code, said", [
    ("MAX_FILE_BYTES", 4096, 100, "team_file_too_large", "nothing was imported"),  # the size cap
    ("MAX_ENTRIES", 50, 51, "team_file_too_many", "51 entries"),                   # a flood of entries
])
def test_a_file_over_a_cap_imports_nothing_and_says_why(conn, target, proj, monkeypatch, cap, value, entries, code,
                                                         said):
    monkeypatch.setattr(team, cap, value)
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(teamfile.render(teamfile.TEAM, _entries(entries)))
    with pytest.raises(ValidationError) as info:
        team.import_file(conn, target)
    assert info.value.code == code and said in str(info.value)
    assert records.current(conn, proj.id) == []


def test_one_import_adds_at_most_the_cap_and_never_half_a_file(conn, repo, target, proj, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(teamfile.render(teamfile.TEAM, _entries(team.MAX_IMPORT_RECORDS + 1)))
    assert main(["team", "import"]) != 0
    err = capsys.readouterr().err
    assert f"would add or change {team.MAX_IMPORT_RECORDS + 1} records" in err and "nothing was imported" in err
    assert records.current(conn, proj.id) == []
    assert main(["team", "import", "--max-records", str(team.MAX_IMPORT_RECORDS + 1)]) == 0  # said, once
    assert len(records.current(conn, proj.id)) == team.MAX_IMPORT_RECORDS + 1


def test_the_default_caps_hold_a_real_team_and_refuse_the_flood():
    # docs/team.md: a real team's file is a few hundred entries and well under a megabyte.
    big_team = teamfile.render(teamfile.TEAM, _entries(team.MAX_IMPORT_RECORDS))
    assert len(big_team.encode()) < team.MAX_FILE_BYTES
    flood = teamfile.render(teamfile.TEAM, _entries(200_000))  # the 20 MB file of the issue
    assert len(flood.encode()) > team.MAX_FILE_BYTES


def test_team_records_say_so_in_the_prompt_block_the_digest_show_and_review(conn, repo, target, proj, capsys,
                                                                           monkeypatch):
    monkeypatch.chdir(repo)
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(teamfile.render(teamfile.TEAM, [("k1", "decision", "Use Postgres for orders",
                                                  "Orders live in PostgreSQL; reporting reads a replica.")]))
    assert main(["team", "import"]) == 0
    (rec,) = records.current(conn, proj.id, types=["decision"])
    assert rec.confidence == "team"
    from agentctx.hooks.prompt import block
    from agentctx.base.models import SearchHit

    assert block(SearchHit(rec, 1.0, 1.0)).startswith("[decision] Use Postgres for orders (from the team file)")
    from agentctx.memory import digest

    assert "- Use Postgres for orders (team file):" in digest.decisions_section(conn, proj.id)
    capsys.readouterr()
    assert main(["show", rec.id]) == 0
    assert "from the team file" in capsys.readouterr().out
    assert main(["review", "--team", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in listed] == [rec.id] and listed[0]["confidence"] == "team"
    # Confirming it makes it the user's own.
    assert main(["review", "--yes", "--confirm", rec.id]) == 0
    assert records.get(conn, rec.id).confidence == "explicit"


def test_team_records_rank_below_the_users_own(conn, add, repo, target, proj):
    from agentctx.retrieval.search import CONFIDENCE_WEIGHT

    assert CONFIDENCE_WEIGHT["inferred"] < CONFIDENCE_WEIGHT["team"] < CONFIDENCE_WEIGHT["explicit"]


def test_migration_marks_earlier_team_imports_but_not_the_profile(tmp_path, monkeypatch):
    from agentctx.store import db, migrations

    path = tmp_path / "old.db"
    with monkeypatch.context() as m:  # a store as version 8 left it
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:8])
        old = db.connect(path, create=True)
        assert old.execute("PRAGMA user_version").fetchone()[0] == 8
        rows = [("A", "p", "decision", "team_import", "project"), ("B", "_global", "preference", "team_import", "global"),
                ("C", "p", "decision", "cli", "project")]
        for rid, pid, type_, source, scope in rows:
            old.execute("INSERT INTO records (id, project_id, type, title, body, confidence, valid_from, recorded_at, "
                        "source, scope) VALUES (?, ?, ?, ?, 'b', 'explicit', 'x', 'x', ?, ?)",
                        (rid, pid, type_, f"title {rid}", source, scope))
        old.close()
    conn = db.connect(path)
    got = dict(conn.execute("SELECT id, confidence FROM records").fetchall())
    assert got == {"A": "team", "B": "explicit", "C": "explicit"}
