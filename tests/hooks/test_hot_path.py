"""The prompt and session-start hooks load only their lean module set (a regression guard for hook latency)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from agentctx.memory import consolidate
from agentctx.base.project import detect

ROOT = Path(__file__).resolve().parents[2]
# Modules a hook must not pay for on the way to injecting: each costs from 0.2 ms (`__future__`) to ~8 ms
# (`dataclasses` pulls in `inspect`); `json` loads `re` and `enum`, ~4.5 ms (agentctx.base.jsonfast replaces it). -S keeps site (and an editable install's import hook) out of the picture.
HEAVY = ("json", "re", "enum", "dataclasses", "inspect", "typing", "pathlib", "hashlib", "threading", "contextlib", "tempfile",
         "__future__", "select", "agentctx.cli", "agentctx.base.errors", "agentctx.store.records", "agentctx.store.migrations",
         "agentctx.base.project", "agentctx.memory.digest", "agentctx.background", "agentctx.retrieval.expansion")
CODE = """
import io, sys
sys.path.insert(0, {root!r})
sys.stdin = io.StringIO({payload!r})
from agentctx import hooks
out, real = io.StringIO(), sys.stdout
sys.stdout = out
hooks.run([{event!r}])
sys.stdout = real
modules = sorted(sys.modules)
import json
print(json.dumps({{"output": out.getvalue(), "modules": modules}}))
"""


def _run(event: str, payload: dict) -> dict:
    code = CODE.format(root=str(ROOT), payload=json.dumps(payload), event=event)
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=dict(os.environ),
                          timeout=60, check=True)
    return json.loads(done.stdout)


def test_an_injecting_prompt_loads_no_heavy_module(add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))  # writes the root cache the hooks read
    # A prompt the fitted gate (agentctx/retrieval/relevance.txt) injects for: it names the record's title and body words.
    prompt = "sqlite storage decision: WAL and busy timeout"
    got = _run("user-prompt-submit", {"session_id": "s1", "cwd": str(repo), "prompt": prompt})
    assert "[decision] Storage decision" in got["output"]
    assert [m for m in HEAVY if m in got["modules"]] == []
    assert "agentctx.retrieval.search" in got["modules"] and "agentctx.base.text" in got["modules"]
    # Without the meaning data (the [vectors] install builds it) nothing of it is loaded but its small module.
    assert [m for m in ("mmap", "zlib", "struct", "_struct", "agentctx.retrieval.vectors") if m in got["modules"]] == []


def test_session_start_with_a_digest_loads_no_heavy_module_and_no_sqlite(add, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    got = _run("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert "Storage decision" in got["output"]
    assert [m for m in HEAVY if m in got["modules"] and m != "agentctx.memory.digest"] == []
    assert "sqlite3" not in got["modules"]


def test_a_project_turned_off_costs_the_prompt_no_database(add, repo):
    """The control gate (docs/control.md) runs before the store is opened: off means no sqlite3, no search."""
    from agentctx.base import control

    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    control.set_project(detect(repo).id, "repo", str(repo), on=False)
    got = _run("user-prompt-submit", {"session_id": "s1", "cwd": str(repo), "prompt": "sqlite storage and WAL"})
    assert got["output"] == ""
    assert [m for m in HEAVY if m in got["modules"]] == []
    assert "sqlite3" not in got["modules"] and "agentctx.retrieval.search" not in got["modules"]


def test_a_prompt_that_injects_nothing_is_recorded_without_a_heavy_module(add, repo):
    """Every prompt now leaves a pending row (what was asked, for the dashboard): the scrubber, which would cost it
    ~17 ms, is left to the drain."""
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    consolidate.run(detect(repo))
    got = _run("user-prompt-submit", {"session_id": "s1", "cwd": str(repo),
                                      "prompt": "rename the <private>secret</private> button label"})
    assert got["output"] == ""
    assert [m for m in HEAVY + ("agentctx.base.redact", "agentctx.stash.redact") if m in got["modules"]] == []
    from agentctx.base import paths

    with open(paths.pending_ledger_file(), encoding="utf-8") as fh:
        assert "rename the   button label" in fh.read()


def test_the_pre_action_hook_opens_no_database(add, repo):
    consolidate.run(detect(repo))  # the root cache; no anchored record: no map
    edit = {"session_id": "s1", "cwd": str(repo), "tool_name": "Edit", "tool_input": {"file_path": str(repo / "a.py")}}
    got = _run("pre-tool-use", edit)
    assert got["output"] == ""
    assert "sqlite3" not in got["modules"] and "agentctx.store.db" not in got["modules"]
    assert [m for m in HEAVY if m in got["modules"]] == []
    add("Edits of a.py", "Keep a.py small.", anchors=("a.py",))
    got = _run("pre-tool-use", edit)
    assert "Edits of a.py" in got["output"]
    assert "sqlite3" not in got["modules"]
    assert [m for m in HEAVY if m in got["modules"]] == []
