"""SessionStart freshness (issue 13 item 5): every write that changes the digest reaches the next SessionStart."""

from __future__ import annotations

from agentctx.memory import digest
from agentctx.base import freshness
from agentctx.cli import main
from agentctx.mcp.handlers import ToolContext
from agentctx.mcp.tools import call
from agentctx.base.project import detect


def _start(hook, repo, source="startup"):
    out = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": source})
    return (out or {}).get("hookSpecificOutput", {}).get("additionalContext", "")


def _cli(repo, *argv):
    assert main(["-C", str(repo), *argv]) == 0


def test_cli_writes_reach_the_next_session_start_without_consolidation(hook, conn, repo, capsys):
    project = detect(repo)
    digest.refresh(conn, project.id, project=project)  # as `init` leaves it
    titles = ["Use SQLite for storage", "Tokens expire after 15 minutes", "Format with ruff"]
    for title in titles:
        _cli(repo, "record", "--type", "decision", "--title", title, "--body", f"{title}.")
    capsys.readouterr()
    text = _start(hook, repo)
    assert all(t in text for t in titles) and "3 context records" in text

    ids = {r.title: r.id for r in __import__("agentctx.store.records", fromlist=["x"]).current(conn, project.id)}
    capsys.readouterr()
    _cli(repo, "supersede", ids["Tokens expire after 15 minutes"], "--title", "Tokens expire after 5 minutes",
         "--body", "Tokens expire after 5 minutes.")
    capsys.readouterr()
    text = _start(hook, repo)
    assert "Tokens expire after 5 minutes" in text and "15 minutes" not in text

    _cli(repo, "delete", "--force", ids["Format with ruff"])
    capsys.readouterr()
    assert "Format with ruff" not in _start(hook, repo)

    _cli(repo, "pin", ids["Use SQLite for storage"])
    capsys.readouterr()
    text = _start(hook, repo)
    assert text.index("Use SQLite for storage") < text.index("Tokens expire after 5 minutes")


def test_mcp_record_reaches_session_start(hook, conn, repo):
    ctx = ToolContext(project=detect(repo))
    try:
        result = call(ctx, "ctx_record", {"type": "convention", "title": "Never commit to main",
                                          "body": "Open a pull request."})
        assert not result.is_error
    finally:
        ctx.close()
    assert "Never commit to main" in _start(hook, repo)


def test_global_preference_reaches_every_project_digest(hook, conn, add, repo, tmp_path):
    from agentctx.base.models import NewRecord
    from agentctx.store import records

    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/other.git\n')
    digest.refresh(conn, detect(other).id, project=detect(other))
    add("Use SQLite", "One file.")
    records.insert(conn, NewRecord(type="preference", title="Answer in British English", body="Colour, not color.",
                                   project_id=detect(repo).id, scope="global", confidence="explicit", source="cli"))
    assert "Answer in British English" in _start(hook, repo)
    assert "Answer in British English" in _start(hook, other)


def test_reset_empties_the_digest(hook, conn, add, repo, capsys):
    add("Use SQLite", "One file.")
    assert "Use SQLite" in _start(hook, repo)
    _cli(repo, "reset", "--force")
    capsys.readouterr()
    assert "Use SQLite" not in _start(hook, repo)


def test_batched_writes_rebuild_once(conn, add, repo, monkeypatch):
    calls = []
    real = digest.refresh_after_write
    monkeypatch.setattr(digest, "refresh_after_write", lambda c, pid: calls.append(pid) or real(c, pid))
    with freshness.deferred(conn):
        for i in range(5):
            add(f"Decision {i} about caching", "Because.")
        assert calls == []
    assert calls == [detect(repo).id]
    assert "Decision 4 about caching" in digest.read_text(detect(repo).id)


def test_a_failing_rebuild_never_fails_the_write(conn, add, repo, monkeypatch):
    def boom(c, pid):
        raise RuntimeError("disk full")

    monkeypatch.setattr(digest, "refresh_after_write", boom)
    record = add("Still stored", "The write committed.")
    assert record.id
    from agentctx.base import paths

    assert "disk full" in (paths.logs_dir() / "digest.log").read_text()


def test_rebuild_after_write_keeps_the_last_drift_hint(conn, add, repo):
    project = detect(repo)
    add("First", "one")
    data = digest.compose(conn, project.id, drift="2 context records (decisions/conventions) are not reflected")
    digest.write(project.id, data)
    add("Second decision", "two")
    assert "are not reflected" in digest.read_text(project.id)
