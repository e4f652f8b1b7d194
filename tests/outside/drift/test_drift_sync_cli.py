import json

from agentctx.cli import main
from agentctx.store import records


def test_sync_json_report(conn, repo, add, capsys):
    (repo / "CLAUDE.md").write_text("# App\n", encoding="utf-8")
    rec = add("Use gRPC between internal services")
    assert main(["-C", str(repo), "sync", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [m["id"] for m in out["missing"]] == [rec.id] and out["proposed_diff"]
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == "# App\n"


def test_sync_needs_confirmation(conn, repo, add, capsys):
    (repo / "CLAUDE.md").write_text("# App\n", encoding="utf-8")
    add("Use gRPC between internal services")
    assert main(["-C", str(repo), "sync"]) == 64  # no terminal: the answer is no
    captured = capsys.readouterr()
    assert "Proposed change" in captured.out and "cancelled" in captured.err
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == "# App\n"


def test_sync_yes_applies_with_backup(conn, repo, add, capsys):
    (repo / "CLAUDE.md").write_text("# App\n", encoding="utf-8")
    rec = add("Use gRPC between internal services")
    assert main(["-C", str(repo), "sync", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "backup:" in out and rec.id in (repo / "CLAUDE.md").read_text(encoding="utf-8")
    assert main(["-C", str(repo), "sync"]) == 0
    assert "reflects every current decision" in capsys.readouterr().out


def test_sync_without_claudemd(conn, repo, capsys):
    assert main(["-C", str(repo), "sync"]) == 0
    assert "no CLAUDE.md" in capsys.readouterr().out


def test_sync_does_not_propose_a_title_the_supersession_made_outdated(conn, repo, add, capsys):
    (repo / "CLAUDE.md").write_text("# App\n", encoding="utf-8")
    old = add("Tokens expire after 15 minutes", "Session tokens expire after 15 minutes.")
    # `agentctx supersede` now refuses this (it asks for --title); the dashboard and `review` still keep the title.
    records.supersede(conn, old.id, old.project_id, body="Session tokens expire after 5 minutes.", source="dashboard")
    assert main(["-C", str(repo), "sync", "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)["proposed_diff"]
    assert "Session tokens expire after 5 minutes." in diff and "15 minutes" not in diff
