"""The team scenario end to end (issue 15, item 6): two developers (two HOMEs), a bare git remote, all local.

A records decisions, exports, commits, pushes; B pulls and its SessionStart (a real detached import) and prompt
hook show them; both add entries on branches that merge without a conflict; B's hand edit reaches A as a
supersession; a removal is proposed, not applied; the export is the same bytes on both machines.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentctx import cli
from agentctx.store import db
from agentctx.hooks import run as run_hook
from agentctx.base.project import detect
from agentctx.store import records
from agentctx.store import team as sync

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TEAM_FILE = Path(".agentctx") / "context.md"


def git(cwd, *args, check=True):
    return subprocess.run(["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=check, capture_output=True,
                          text=True)


class Dev:
    """One developer: a HOME with its own store, and a clone of the shared remote."""

    def __init__(self, name: str, tmp: Path, remote: Path, monkeypatch, capsys) -> None:
        self.home = tmp / f"home-{name}"
        self.home.mkdir()
        self.clone = tmp / f"clone-{name}"
        self.monkeypatch, self.capsys = monkeypatch, capsys
        git(tmp, "clone", "-q", str(remote), str(self.clone))
        with self.env():
            db.connect(create=True).close()

    def env(self):
        dev = self

        class _Env:
            def __enter__(self):
                dev.monkeypatch.setenv("HOME", str(dev.home))
                dev.monkeypatch.setenv("AGENTCTX_HOME", str(dev.home / ".agentctx"))

            def __exit__(self, *exc):
                return False
        return _Env()

    def cli(self, *argv: str) -> tuple[int, str]:
        with self.env():
            rc = cli.main(["-C", str(self.clone), *argv])
        out = self.capsys.readouterr()
        assert "Traceback" not in out.err
        return rc, out.out

    def hook(self, event: str, **payload) -> dict | None:
        with self.env():
            payload.setdefault("session_id", f"s-{self.home.name}-{time.monotonic_ns()}")
            payload["cwd"] = str(self.clone)
            self.monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(payload)))
            assert run_hook([event]) == 0
        out = self.capsys.readouterr().out
        return json.loads(out) if out.strip() else None

    def git(self, *args, check=True):
        return git(self.clone, *args, check=check)

    def file(self) -> str:
        return (self.clone / TEAM_FILE).read_text(encoding="utf-8")

    def titles(self) -> dict[str, object]:
        with self.env():
            conn = db.connect()
            try:
                return {r.title: r for r in records.current(conn, detect(self.clone).id)}
            finally:
                conn.close()


def _wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_two_developers_share_decisions_through_git(tmp_path, monkeypatch, capsys):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(remote), str(seed))
    (seed / "README.md").write_text("demo\n")
    git(seed, "add", "README.md")
    git(seed, "commit", "-q", "-m", "init")
    git(seed, "push", "-q", "origin", "HEAD:main")
    a = Dev("a", tmp_path, remote, monkeypatch, capsys)
    b = Dev("b", tmp_path, remote, monkeypatch, capsys)
    assert detect(a.clone).id == detect(b.clone).id  # the same origin: one project on both machines

    # A records decisions, exports, commits, pushes.
    assert a.cli("record", "--type", "decision", "--title", "Orders service uses Postgres",
                 "--body", "Postgres 16 for the orders service: JSONB columns for line items.")[0] == 0
    assert a.cli("record", "--type", "convention", "--title", "Money is stored in integer cents",
                 "--body", "Never floats for money; integer cents with a currency column.")[0] == 0
    assert a.cli("team", "export")[0] == 0
    a.git("add", str(TEAM_FILE))
    a.git("commit", "-q", "-m", "team context")
    a.git("push", "-q", "origin", "HEAD:main")

    # B pulls; its SessionStart notices the new file and starts a detached import (a real child process).
    b.git("pull", "-q", "origin", "main")
    b.hook("session-start", source="startup")
    assert _wait_for(lambda: "Orders service uses Postgres" in b.titles()), "the detached import did not run"
    assert _wait_for(lambda: (b.home / ".agentctx" / "digests").exists() and any(
        "Orders service uses Postgres" in p.read_text() for p in (b.home / ".agentctx" / "digests").glob("*.json")))
    digest = b.hook("session-start", source="startup")
    assert "Orders service uses Postgres" in digest["hookSpecificOutput"]["additionalContext"]
    injected = b.hook("user-prompt-submit", prompt="Which database should the orders service use for line items?")
    assert "Postgres 16" in injected["hookSpecificOutput"]["additionalContext"]
    assert b.titles()["Orders service uses Postgres"].source == "team_import"

    # Both add an entry on a branch of their own; the branches merge without a conflict.
    a.git("checkout", "-q", "-b", "a-cache")
    a.cli("record", "--type", "decision", "--title", "Cache product pages in Redis",
          "--body", "Redis with a 5 minute TTL in front of the catalogue API.")
    a.cli("team", "export")
    a.git("commit", "-q", "-am", "cache decision")
    a.git("push", "-q", "origin", "a-cache")
    b.git("checkout", "-q", "-b", "b-deploys")
    b.cli("record", "--type", "convention", "--title", "Zero-downtime deploys only",
          "--body", "Blue-green deploys; migrations must be backwards compatible.")
    assert b.cli("team", "export")[0] == 0
    b.git("commit", "-q", "-am", "deploy convention")
    b.git("push", "-q", "origin", "b-deploys")
    a.git("fetch", "-q", "origin")
    merged = a.git("merge", "--no-edit", "origin/b-deploys", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "<<<<<<<" not in a.file()
    assert "### Cache product pages in Redis" in a.file() and "### Zero-downtime deploys only" in a.file()
    rc, _ = a.cli("team", "import")
    assert rc == 0 and "Zero-downtime deploys only" in a.titles()
    a.git("push", "-q", "origin", "HEAD:main")

    # B pulls main, edits an entry by hand; A imports it as a supersession.
    b.git("checkout", "-q", "main")
    b.git("pull", "-q", "origin", "main")
    assert b.cli("team", "import")[0] == 0
    text = b.file()
    assert "Never floats for money" in text
    (b.clone / TEAM_FILE).write_text(text.replace(
        "Never floats for money; integer cents with a currency column.",
        "Never floats for money; integer cents with an ISO 4217 currency column."), encoding="utf-8")
    b.git("commit", "-q", "-am", "clarify currency")
    b.git("push", "-q", "origin", "main")
    a.git("pull", "-q", "--no-rebase", "origin", "main")
    before = a.titles()["Money is stored in integer cents"]
    assert a.cli("team", "import")[0] == 0
    after = a.titles()["Money is stored in integer cents"]
    assert after.id != before.id and "ISO 4217" in after.body and after.source == "team_import"
    rc, out = a.cli("history", after.id)
    assert before.id in out and "Edited by hand in .agentctx/context.md" in out

    # B removes an entry; A's import only proposes the retirement.
    text = b.file()
    start = text.rindex("<!-- agentctx:entry", 0, text.index("### Cache product pages in Redis"))
    end = text.index("\n\n", text.index("Redis with a 5 minute TTL")) + 2
    (b.clone / TEAM_FILE).write_text(text[:start] + text[end:], encoding="utf-8")
    b.cli("team", "import")  # B proposes it too, and does not apply it
    b.git("commit", "-q", "-am", "drop the cache decision")
    b.git("push", "-q", "origin", "main")
    a.git("pull", "-q", "--no-rebase", "origin", "main")
    assert a.cli("team", "import")[0] == 0
    assert "Cache product pages in Redis" in a.titles()  # still current
    rc, out = a.cli("team", "status")
    assert "removal?" in out and "Cache product pages in Redis" in out

    # Export is the same bytes on both machines, and again on each.
    rc, out_a = a.cli("team", "export")
    rc, out_b = b.cli("team", "export")
    assert "unchanged" in out_a and "unchanged" in out_b
    assert a.file() == b.file()
    with a.env():
        conn = db.connect()
        assert len(sync.rows(conn, detect(a.clone).id)) == 4
        conn.close()


def test_a_worktree_on_an_older_branch_reverts_nothing(tmp_path, monkeypatch, capsys):
    # Worktrees are one project (no origin here: the main work tree's path is the id); each has its own copy of the
    # team file, and a copy from an older branch is recognised as older, never imported as an edit.
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    monkeypatch.setenv("AGENTCTX_HOME", str(tmp_path / "home"))
    db.connect(create=True).close()

    def agentctx(cwd, *argv):
        rc = cli.main(["-C", str(cwd), *argv])
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return rc, out.out

    agentctx(main, "record", "--type", "decision", "--title", "Retry policy", "--body", "Three retries.")
    agentctx(main, "team", "export")
    git(main, "add", ".agentctx/context.md")
    git(main, "commit", "-q", "-m", "team file v1")
    git(main, "worktree", "add", "-q", str(tmp_path / "old"), "-b", "old-branch")
    (rid,) = [r.id for r in records.current(db.connect(), detect(main).id)]
    agentctx(main, "supersede", rid, "--body", "Five retries with jitter.")
    agentctx(main, "team", "export")
    git(main, "commit", "-q", "-am", "team file v2")
    assert detect(tmp_path / "old").id == detect(main).id
    rc, out = agentctx(tmp_path / "old", "team", "import")
    assert rc == 0 and "older copy" in out
    conn = db.connect()
    (current,) = records.current(conn, detect(main).id)
    assert current.body == "Five retries with jitter."
    conn.close()
