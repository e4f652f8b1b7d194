"""The team file carries what each record governs (`- governs:` lines, issue 33): outside the content hash, brought
in by import, never a guard; a bad anchor in a teammate's file is left out, not fatal."""

from __future__ import annotations

import pytest

from agentctx.base import guards
from agentctx.base.project import detect
from agentctx.store import db, records
from agentctx.team import fileformat as teamfile
from agentctx.team import sync as team


@pytest.fixture
def target(repo):
    return team.team_target(detect(repo))


def _file(target):
    with open(target.path, encoding="utf-8") as fh:
        return fh.read()


def test_anchors_round_trip_and_guards_stay_home(conn, add, target, repo, tmp_path, monkeypatch):
    rec = add("Money in cents", "Amounts are integer cents.", type_="convention",
              anchors=("path:src/payments/**", "command:alembic upgrade"))
    records.set_guard(conn, rec.id, detect(repo).id, guards.make("never", ["command:git push --force"]))
    team.export_file(conn, target)
    text = _file(target)
    assert "- governs: path:src/payments/**\n- governs: command:alembic upgrade\n" in text
    assert "git push --force" not in text  # a guard is the user's own
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "teammate"))
    other = db.connect(create=True)
    try:
        (new_id,) = team.import_file(other, target).created
        got = records.get(other, new_id)
        assert got.anchors == ("path:src/payments/**", "command:alembic upgrade") and got.guard == ""
        assert team.import_file(other, target).changed is False
    finally:
        other.close()


def test_editing_only_the_governs_lines_sets_them_in_place(conn, add, target):
    rec = add("Money in cents", "Amounts are integer cents.", type_="convention")
    team.export_file(conn, target)
    text = _file(target).replace("Amounts are integer cents.\n", "Amounts are integer cents.\n\n"
                                 f"{teamfile.ASKED_MARKER}\n- governs: src/billing/**\n- governs: ../etc/**\n"
                                 "- governs: **\n")
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(text)
    result = team.import_file(conn, target)
    assert result.asked == [rec.id] and not result.superseded and not result.created
    got = records.get(conn, rec.id)
    assert got.is_current and got.anchors == ("path:src/billing/**",)  # the refused ones are left out
