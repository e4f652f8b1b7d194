"""A hand-edited profile survives `init` and `profile refresh` (issue 26, item 3); detection names a library's own
dependencies and build backend."""

from __future__ import annotations

from agentctx.base.project import detect
from agentctx.cli import main
from agentctx.memory import profile
from agentctx.store import records

PYPROJECT = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "httpclient"
requires-python = ">=3.9"
dependencies = ["certifi", "httpcore==1.*", "idna", "sniffio", "anyio>=3"]

[project.optional-dependencies]
dev = ["pytest>=8", "ruff"]
"""


def test_detection_names_dependencies_and_the_build_backend(repo):
    (repo / "pyproject.toml").write_text(PYPROJECT)
    stack = profile.detect(repo).bodies()["Stack"]
    assert "- Build backend: hatchling" in stack
    assert "- Dependencies: anyio, certifi, httpcore, idna, sniffio" in stack


def test_a_hand_edit_survives_init_and_refresh_until_forced(conn, repo, monkeypatch, capsys):
    (repo / "pyproject.toml").write_text(PYPROJECT)
    monkeypatch.chdir(repo)
    assert main(["init"]) == 0
    assert main(["profile", "edit", "stack", "Python 3.12; httpx's own transport layer"]) == 0
    capsys.readouterr()
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "Stack kept (edited by hand" in out and "Stack updated" not in out
    (stack,) = [r for r in records.current(conn, detect(repo).id, types=["profile"]) if r.title == "Stack"]
    assert stack.body == "- Python 3.12\n- httpx's own transport layer"
    assert main(["profile", "refresh"]) == 0 and "kept (edited by hand" in capsys.readouterr().out
    assert main(["profile", "refresh", "--force"]) == 0
    (stack,) = [r for r in records.current(conn, detect(repo).id, types=["profile"]) if r.title == "Stack"]
    assert "Build backend: hatchling" in stack.body
