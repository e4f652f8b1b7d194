"""CLI fixtures: run `agentctx.cli.main` and capture its streams; projects as directories with a git origin."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from agentctx import cli
from agentctx.base import config
from agentctx.store import db


@dataclass(frozen=True)
class Run:
    rc: int
    out: str
    err: str


def make_project(path: Path, remote: str | None) -> Path:
    """A directory that `project.detect` sees as a git checkout with `remote` as origin (no git needed)."""
    (path / ".git").mkdir(parents=True)
    text = "[core]\n\tbare = false\n"
    if remote:
        text += f'[remote "origin"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    (path / ".git" / "config").write_text(text)
    return path


@pytest.fixture
def run(capsys):
    """run(*argv) -> Run(rc, out, err), asserting the error contract on every call."""

    def invoke(*argv: str, errors_on_stderr: bool = True) -> Run:
        rc = cli.main([str(a) for a in argv])
        captured = capsys.readouterr()
        result = Run(rc, captured.out, captured.err)
        assert "Traceback" not in result.err + result.out
        if rc != 0 and errors_on_stderr:
            err = result.err.split("[y/N] ", 1)[-1]  # an interactive question, if any, is asked on stderr first
            assert err.count("\n") == 1 and err.startswith("agentctx"), result.err
        return result

    return invoke


@pytest.fixture
def store():
    """An initialised store (data dir, database, config) without the Claude Code wiring of `init`."""
    db.connect(create=True).close()
    config.ensure_file()


@pytest.fixture
def proj_p(tmp_path):
    return make_project(tmp_path / "app-p", "git@github.com:Org/AppP.git")


@pytest.fixture
def proj_q(tmp_path):
    return make_project(tmp_path / "app-q", "https://github.com/Org/AppQ")


@pytest.fixture
def in_p(run, proj_p, store):
    """run(...) inside project P."""

    def invoke(*argv: str, **kw: bool) -> Run:
        return run("-C", proj_p, *argv, **kw)

    return invoke


@pytest.fixture
def in_q(run, proj_q, store):
    def invoke(*argv: str, **kw: bool) -> Run:
        return run("-C", proj_q, *argv, **kw)

    return invoke
