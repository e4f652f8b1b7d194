"""Everything agentctx writes under its home is private to the user (files 0600, directories 0700) whatever the
umask: a day of commands and hooks under the common umask 022, then every path under AGENTCTX_HOME is checked."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

from agentctx.base import paths


def _run(args, cwd, stdin=""):
    done = subprocess.run([sys.executable, "-m", "agentctx", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=60, preexec_fn=lambda: os.umask(0o022))
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def test_a_day_of_use_under_umask_022_leaves_only_private_files(tmp_path, isolated_home):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://example.com/acme/app.git\n')
    (repo / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["fastapi"]\n')
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"content": "refactor the cache"}}) + "\n")
    base = {"session_id": "private-1", "cwd": str(repo), "transcript_path": str(transcript)}

    _run(["init"], repo)
    _run(["record", "--type", "decision", "--title", "Use PostgreSQL for the orders database",
          "--body", "Orders live in Postgres 16."], repo)
    for event, extra in [("session-start", {"source": "startup"}),
                         ("user-prompt-submit", {"prompt": "which database do we use for the orders?"}),
                         ("post-tool-use", {"tool_name": "Bash", "tool_input": {"command": "git checkout -b feat/x"},
                                            "tool_response": {"stdout": "Switched to a new branch 'feat/x'"}}),
                         ("pre-compact", {"trigger": "auto"}), ("stop", {}), ("session-end", {"reason": "exit"})]:
        _run(["hook", event], repo, json.dumps({**base, **extra}))
    _run(["off"], repo)
    _run(["on"], repo)
    _run(["team", "export"], repo)
    _run(["profile", "export"], repo)
    _run(["consolidate"], repo)
    _run(["config", "set", "notify", "full"], repo)

    home = paths.home()
    loose = []
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(root, name)
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            if mode & 0o077:
                loose.append(f"{oct(mode)} {os.path.relpath(path, home)}")
    assert loose == []
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
