"""The installed console script and `python -m agentctx`, run as real processes against a temporary home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import agentctx

SCRIPT = Path(sys.executable).parent / "agentctx"


@pytest.fixture
def env(isolated_home):
    return dict(os.environ, HOME=str(isolated_home), AGENTCTX_HOME=str(isolated_home / ".agentctx"))


def run(argv, env, cwd, stdin=None):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, input=stdin, timeout=60)


def test_python_m_version(env, tmp_path):
    result = run([sys.executable, "-m", "agentctx", "--version"], env, tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == f"agentctx {agentctx.__version__}"


def test_python_m_usage_error(env, tmp_path):
    result = run([sys.executable, "-m", "agentctx", "frobnicate"], env, tmp_path)
    assert result.returncode == 64 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.skipif(not SCRIPT.exists(), reason="the agentctx console script is not installed next to this Python")
def test_console_script_end_to_end(env, tmp_path):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:Org/Proj.git\n')
    script = str(SCRIPT)

    assert run([script, "--version"], env, project).stdout.strip() == f"agentctx {agentctx.__version__}"
    missing = run([script, "status"], env, project)
    assert missing.returncode == 66 and "agentctx init" in missing.stderr and "Traceback" not in missing.stderr

    assert run([script, "init", "--json"], env, project).returncode == 0
    rid = json.loads(run([script, "record", "--type", "decision", "--title", "Use SQLite", "--body", "-",
                          "--json"], env, project, stdin="One file, no daemon.").stdout)["id"]
    new = json.loads(run([script, "supersede", rid, "--body", "Still SQLite, WAL mode.", "--rationale", "speed",
                          "--json"], env, project).stdout)["id"]
    hits = json.loads(run([script, "search", "sqlite", "--json"], env, project).stdout)
    assert [h["id"] for h in hits] == [new]
    chain = json.loads(run([script, "show", new, "--history", "--json"], env, project).stdout)
    assert [r["id"] for r in chain] == [rid, new]
    assert run([script, "pin", new], env, project).returncode == 0
    assert run([script, "unpin", new], env, project).returncode == 0
    assert "## Decisions" in run([script, "export"], env, project).stdout
    status = json.loads(run([script, "status", "--json"], env, project).stdout)
    assert status["records"]["decision"] == 1
    assert run([script, "config", "set", "reinforceThreshold", "5"], env, project).returncode == 0
    assert run([script, "config", "get", "reinforceThreshold"], env, project).stdout.strip() == "5"
    assert run([script, "doctor"], env, project).returncode == 0
    bad = run([script, "record", "--type", "decision", "--title", "x" * 121, "--body", "b"], env, project)
    assert bad.returncode == 65 and bad.stderr.count("\n") == 1
    reset = run([script, "reset"], env, project, stdin="")
    assert reset.returncode == 64
    assert run([script, "reset", "--force"], env, project).returncode == 0
    assert json.loads(run([script, "status", "--json"], env, project).stdout)["records_total"] == 0
