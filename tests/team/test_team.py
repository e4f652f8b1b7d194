"""Team export and import (SPEC §3.8): what is shared, determinism, hand edits, removals, conflicts, profile."""

from __future__ import annotations

import pytest

from agentctx.team import sync as team, fileformat as teamfile
from agentctx.base.errors import ConflictError, NotFoundError
from agentctx.base.models import GLOBAL_PROJECT, NewRecord
from agentctx.base.project import detect
from agentctx.store import records
from agentctx.store import team as sync

SECRET = "sk-ant-api03-" + "Q" * 40


@pytest.fixture
def proj(repo):
    return detect(repo)


@pytest.fixture
def target(proj):
    return team.team_target(proj)


def _file(target):
    with open(target.path, encoding="utf-8") as fh:
        return fh.read()


def _write(target, text):
    import os

    os.makedirs(os.path.dirname(target.path), exist_ok=True)
    with open(target.path, "w", encoding="utf-8") as fh:
        fh.write(text)


def test_export_shares_explicit_and_reinforced_decisions_conventions_discoveries_only(conn, add, target, proj):
    add("Use SQLite WAL", "One file, WAL mode.")
    add("Tests are plain functions", "No test classes.", type_="convention")
    add("FTS5 can be missing", "Fall back to LIKE.", type_="discovery")
    reinforced = add("Reinforced rule", "Seen in three sessions.", type_="convention", confidence="inferred")
    records.reinforce(conn, reinforced.id, threshold=1)
    add("Inferred guess", "Maybe use Redis.", confidence="inferred")
    add("Handover", "Was halfway through the parser.", type_="handover")
    add("Prefer tabs here", "Project preference.", type_="preference")
    records.insert(conn, NewRecord(type="preference", title="Terse answers", body="Global.", project_id=proj.id,
                                   scope="global", confidence="explicit"))
    result = team.export_file(conn, target)
    text = _file(target)
    assert result.entries == 4 and result.written
    for title in ("Use SQLite WAL", "Tests are plain functions", "FTS5 can be missing", "Reinforced rule"):
        assert f"### {title}\n" in text
    for title in ("Inferred guess", "Handover", "Prefer tabs here", "Terse answers"):
        assert title not in text
    assert text.index("## Decisions") < text.index("## Conventions") < text.index("## Discoveries")


def test_export_redacts_secrets(conn, add, target):
    add("Deploy key", f"The staging key is {SECRET} for now.")
    team.export_file(conn, target)
    text = _file(target)
    assert SECRET not in text and "Deploy key" in text and "REDACTED" in text
    # The redacted text is what the store is compared with: the next import sees no edit.
    assert team.import_file(conn, target).changed is False


def test_export_is_byte_stable_and_a_change_touches_only_its_block(conn, add, target):
    first = add("Alpha decision", "Body A.")
    add("Beta decision", "Body B.")
    add("Gamma decision", "Body C.")
    team.export_file(conn, target)
    before = _file(target)
    again = team.export_file(conn, target)
    assert again.written is False and _file(target) == before
    records.supersede(conn, first.id, first.project_id, body="Body A, revised.")
    team.export_file(conn, target)
    after = _file(target)
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(before.splitlines()) == len(after.splitlines())
    assert changed == [("Body A.", "Body A, revised.")]
    # The entry keeps its id across the local supersession.
    assert f"id={first.id} " in after


def test_export_has_no_timestamps_or_machine_specific_values(conn, add, target, proj):
    rec = add("Alpha decision", "Body A.")
    team.export_file(conn, target)
    text = _file(target)
    assert rec.recorded_at[:10] not in text and proj.id not in text and proj.name not in text


def test_import_creates_new_entries_as_team_import_records_below_explicit(conn, target, proj):
    _write(target, teamfile.render(teamfile.TEAM, [("k1", "decision", "Use Postgres", "Because JSONB."),
                                                   ("k2", "convention", "Snake case", "Everywhere.")]))
    result = team.import_file(conn, target)
    assert len(result.created) == 2
    got = {r.title: r for r in records.current(conn, proj.id)}
    # a teammate's entry: its own confidence, below what this user typed (issue 29; docs/team.md)
    assert got["Use Postgres"].source == "team_import" and got["Use Postgres"].confidence == "team"
    assert got["Snake case"].type == "convention"
    # Twice: nothing changes.
    again = team.import_file(conn, target)
    assert again.changed is False and again.created == [] and len(records.current(conn, proj.id)) == 2


def test_import_does_not_duplicate_a_record_already_held(conn, add, target, proj):
    add("Use Postgres", "Because JSONB.")
    _write(target, teamfile.render(teamfile.TEAM, [("k1", "decision", "Use Postgres", "Because JSONB.")]))
    result = team.import_file(conn, target)
    assert result.created == [] and len(result.relinked) == 1
    assert len(records.current(conn, proj.id)) == 1


def test_hand_edit_becomes_a_supersession_with_rationale(conn, add, target, proj):
    rec = add("Use SQLite WAL", "One file, WAL mode.")
    team.export_file(conn, target)
    _write(target, _file(target).replace("One file, WAL mode.", "One file, WAL mode, 15 s busy timeout."))
    result = team.import_file(conn, target)
    assert len(result.superseded) == 1 and result.superseded[0][0] == rec.id
    new = records.head(conn, records.get(conn, rec.id))
    assert new.body == "One file, WAL mode, 15 s busy timeout." and new.source == "team_import"
    assert sync.rationales(conn, [new.id])[new.id].startswith("Edited by hand in .agentctx/context.md")
    # The next export gives back the edited file byte for byte, under the same id.
    edited = _file(target)
    assert team.export_file(conn, target).written is False and _file(target) == edited
    assert team.import_file(conn, target).changed is False


def test_removed_entry_is_proposed_then_applied_only_on_request(conn, add, target, proj):
    keep = add("Keep me", "Body.")
    gone = add("Remove me", "Body.")
    team.export_file(conn, target)
    text = _file(target)
    block = f"<!-- agentctx:entry id={gone.id} type=decision -->\n### Remove me\n\nBody.\n\n"
    assert block in text
    _write(target, text.replace(block, ""))
    result = team.import_file(conn, target)
    assert result.retired == [] and records.get(conn, gone.id).is_current
    status = team.plan(conn, target, _file(target))
    assert [(k, h.id) for k, h in status.removals] == [(gone.id, gone.id)]
    # An export meanwhile leaves it out rather than putting it back.
    assert team.export_file(conn, target).left_out == [gone.id]
    applied = team.import_file(conn, target, apply_removals=True)
    assert applied.retired == [gone.id]
    retired = records.get(conn, gone.id)
    assert retired.superseded_at is not None and retired.superseded_by is None
    assert records.get(conn, keep.id).is_current
    assert team.plan(conn, target, _file(target)).removals == []


def test_entry_back_in_the_file_withdraws_the_proposal(conn, add, target):
    gone = add("Remove me", "Body.")
    team.export_file(conn, target)
    full = _file(target)
    _write(target, teamfile.render(teamfile.TEAM, []))
    team.import_file(conn, target)
    assert team.plan(conn, target, _file(target)).removals
    _write(target, full)
    team.import_file(conn, target)
    assert team.plan(conn, target, full).removals == []
    assert records.get(conn, gone.id).is_current


def test_conflict_is_shown_and_not_resolved(conn, add, target):
    rec = add("Use SQLite WAL", "One file.")
    team.export_file(conn, target)
    _write(target, _file(target).replace("One file.", "Edited in the file."))
    local, = records.supersede(conn, rec.id, rec.project_id, body="Edited in the store.")[1:]
    result = team.import_file(conn, target)
    assert len(result.plan.conflicts) == 1 and result.superseded == [] and result.created == []
    assert records.head(conn, records.get(conn, rec.id)).id == local.id
    with pytest.raises(ConflictError) as err:
        team.export_file(conn, target)
    assert err.value.code == "team_unimported"
    # --force: the store's version wins, by request.
    team.export_file(conn, target, force=True)
    assert "Edited in the store." in _file(target)


def test_an_older_copy_of_an_entry_is_not_an_edit(conn, add, target):
    # A checkout of an older branch: the file shows an earlier version, which must not revert the store.
    rec = add("Use SQLite WAL", "Version one.")
    team.export_file(conn, target)
    old = _file(target)
    records.supersede(conn, rec.id, rec.project_id, body="Version two.")
    team.export_file(conn, target)
    _write(target, old)
    result = team.import_file(conn, target)
    assert result.changed is False and len(result.plan.stale) == 1
    assert records.head(conn, records.get(conn, rec.id)).body == "Version two."


def test_malformed_blocks_are_reported_with_their_line_and_the_rest_imported(conn, target, proj):
    text = teamfile.render(teamfile.TEAM, [("k1", "decision", "Good one", "Body.")])
    text += ("\n<!-- agentctx:entry id=k2 type=decision -->\n\nno title here\n"
             "\n<!-- agentctx:entry type=decision -->\n### No id\n\nBody.\n"
             "\n<!-- agentctx:entry id=k4 type=wish -->\n### Bad type\n\nBody.\n"
             "\n<!-- agentctx:entry id=k5 type=decision -->\n### Merge\n\n<<<<<<< HEAD\nA\n=======\nB\n>>>>>>> x\n")
    _write(target, text)
    result = team.import_file(conn, target)
    assert len(result.created) == 1
    lines = text.splitlines()
    assert len(result.errors) == 4
    for line, message in result.errors:
        assert lines[line - 1].startswith("<!-- agentctx:entry")
    assert any("merge conflict" in m for _, m in result.errors)
    # Export refuses to overwrite blocks it could not read.
    with pytest.raises(ConflictError):
        team.export_file(conn, target)


def test_malformed_block_of_a_known_entry_is_not_a_removal(conn, add, target):
    rec = add("Use SQLite WAL", "One file.")
    team.export_file(conn, target)
    _write(target, _file(target).replace("### Use SQLite WAL", "Use SQLite WAL without heading"))
    result = team.import_file(conn, target)
    assert result.errors and result.plan.removals == [] and records.get(conn, rec.id).is_current


def test_a_file_that_is_not_a_team_file_is_rejected_whole(conn, add, target):
    rec = add("Use SQLite WAL", "One file.")
    team.export_file(conn, target)
    _write(target, "# Notes\n\nsomething else\n")
    result = team.import_file(conn, target)
    assert result.errors[0][0] == 1 and result.plan.removals == [] and records.get(conn, rec.id).is_current


def test_import_without_a_file_is_a_clear_error(conn, target):
    with pytest.raises(NotFoundError):
        team.import_file(conn, target)


def test_profile_round_trip_between_two_stores(conn, proj, tmp_path, monkeypatch):
    from agentctx.store import db

    records.insert(conn, NewRecord(type="preference", title="Terse answers", body="No preamble.",
                                   project_id=GLOBAL_PROJECT, scope="global", confidence="explicit"))
    records.insert(conn, NewRecord(type="preference", title="A hunch", body="Maybe likes tabs.",
                                   project_id=GLOBAL_PROJECT, scope="global", confidence="inferred"))
    records.insert(conn, NewRecord(type="preference", title="Project-only", body="Here only.",
                                   project_id=proj.id, confidence="explicit"))
    exported = team.export_file(conn, team.profile_target())
    assert exported.entries == 1 and exported.path.endswith("profile/preferences.md")
    text = open(exported.path, encoding="utf-8").read()
    assert "Terse answers" in text and "A hunch" not in text and "Project-only" not in text
    # Another machine.
    other = db.connect(tmp_path / "other.db", create=True)
    target = team.profile_target(exported.path)
    first = team.import_file(other, target)
    assert len(first.created) == 1 and team.import_file(other, target).changed is False
    got = records.current(other, GLOBAL_PROJECT)
    assert [(r.title, r.scope, r.source) for r in got] == [("Terse answers", "global", "team_import")]
    with open(exported.path, "w", encoding="utf-8") as fh:
        fh.write(text.replace("No preamble.", "No preamble, no summary."))
    edited = team.import_file(other, target)
    assert len(edited.superseded) == 1
    assert records.current(other, GLOBAL_PROJECT)[0].body == "No preamble, no summary."
    other.close()


def test_profile_target_paths(tmp_path):
    assert team.profile_target(tmp_path).path == str(tmp_path / "preferences.md")
    assert team.profile_target(str(tmp_path / "new-dir") + "/").path == str(tmp_path / "new-dir" / "preferences.md")
    assert team.profile_target(tmp_path / "mine.md").path == str(tmp_path / "mine.md")


def test_cli_team_and_profile_commands(repo, conn, add, capsys):
    import json as _json

    from agentctx import cli

    def run(*argv):
        rc = cli.main(["-C", str(repo), *argv])
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return rc, out.out, out.err

    rec = add("Use SQLite WAL", "One file.")
    rc, out, _ = run("team", "status")
    assert rc == 0 and "no .agentctx/context.md yet" in out and "1 shareable records not exported" in out
    rc, out, _ = run("team", "export", "--json")
    assert rc == 0 and _json.loads(out)["entries"] == 1
    path = repo / ".agentctx" / "context.md"
    path.write_text(path.read_text().replace("One file.", "One file, edited.") +
                    "\n<!-- agentctx:entry id=x type=decision -->\nno title\n")
    rc, out, err = run("team", "import")
    assert rc == 1 and "1 superseded by hand edits" in out and "malformed" in out
    assert err.startswith("agentctx: ") and err.count("\n") == 1
    rc, _, err = run("team", "export")
    assert rc == 65 and "not imported" in err
    rc, out, _ = run("history", rec.id, "--json")
    assert [s["state"] for s in _json.loads(out)] == ["superseded", "current"]
    rc, _, err = run("profile", "import", str(repo / "nowhere.md"))
    assert rc == 66 and "profile export" in err
    rc, _, err = run("profile", "import")
    assert rc == 64


def test_removed_in_the_file_but_changed_here_is_a_conflict(conn, add, target):
    rec = add("Remove me", "Body.")
    team.export_file(conn, target)
    _write(target, teamfile.render(teamfile.TEAM, []))
    _, new = records.supersede(conn, rec.id, rec.project_id, body="Body, improved here.")
    result = team.import_file(conn, target, apply_removals=True)
    assert result.retired == [] and [h.id for _, h, _ in result.plan.conflicts] == [new.id]
    assert records.get(conn, new.id).is_current


def test_profile_export_is_private_and_team_file_is_not(conn, add, target):
    import os
    import stat

    records.insert(conn, NewRecord(type="preference", title="Terse answers", body="No preamble.",
                                   project_id=GLOBAL_PROJECT, scope="global", confidence="explicit"))
    exported = team.export_file(conn, team.profile_target())
    assert stat.S_IMODE(os.stat(exported.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(exported.path)).st_mode) == 0o700
    add("Shared", "Body.")
    old = os.umask(0o022)
    try:
        team.export_file(conn, target)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(target.path).st_mode) == 0o644  # a committed file: the umask's modes
