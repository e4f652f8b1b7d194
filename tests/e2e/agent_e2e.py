"""What the Codex and Gemini end-to-end tests of agentctx itself share: agentctx from THIS checkout run in a sandbox
(`init`, `record`, `consolidate`), the agent's binary directory on PATH (so `init` finds it: Codex's hooks are
trusted through it), and reads of the sandbox's store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from cli_common import CHECKOUT, Workspace, agentctx_command

DECISION = "Use SQLite WAL for the store"
DECISION_BODY = "We decided to use WAL mode with a busy timeout so concurrent writers never lose a write."
FAILING = "sh -c 'echo \"error: the build broke in src/app.py\" >&2; exit 2'"


def prepare(box: Workspace, binary: str) -> None:
    """The agent's bin directory first on PATH; PYTHONPATH so the hooks `init` registers (`python -m agentctx`)
    import this checkout whatever is installed (the agent passes its environment on to hook commands)."""
    box.env["PATH"] = os.pathsep.join([os.path.dirname(binary), box.env["PATH"]])
    box.env["PYTHONPATH"] = str(CHECKOUT)


def agentctx(box: Workspace, *args: str) -> str:
    done = subprocess.run(agentctx_command(*args), cwd=box.repo, env=box.env, capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"agentctx {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def remember_decision(box: Workspace) -> None:
    agentctx(box, "config", "set", "llm", "false")  # extraction would call a stand-in that does not speak Anthropic
    agentctx(box, "record", "--type", "decision", "--title", DECISION, "--body", DECISION_BODY)
    agentctx(box, "consolidate")  # the SessionStart digest


def query(box: Workspace, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(box.home / ".agentctx" / "agentctx.db")
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def hooks_log(box: Workspace) -> str:
    """agentctx's own hook log: a hook that failed inside says so here (it never says so to the agent)."""
    path = box.home / ".agentctx" / "logs" / "hooks.log"
    return path.read_text("utf-8") if path.exists() else ""



# The pre-action hook's end-to-end tests (test_codex_action.py, test_gemini_action.py): one record anchored to the
# file the model writes, one guarded against the command it runs last.
CENTS = "Payments amounts are integer cents"
PUSH = "Never force-push shared branches"
ACTION_HEADER = "agentctx: project memory about what this tool call touches"


def seed_action_records(box: Workspace, *guard_flags: str) -> tuple[str, str]:
    """`init` done: llm off, the anchored record and the guarded one (`guard --never` plus `guard_flags`), the digest
    built; returns their ids (cents, push)."""
    agentctx(box, "config", "set", "llm", "false")
    cents = agentctx(box, "record", "--type", "convention", "--title", CENTS, "--body",
                     "Store and compute every amount in src/payments as integer cents, never floats.",
                     "--anchor", "src/payments/**").strip()
    push = agentctx(box, "record", "--type", "convention", "--title", PUSH, "--body",
                    "Open a pull request instead of force-pushing.").strip()
    agentctx(box, "guard", push, "--never", "command:git push --force", *guard_flags)
    agentctx(box, "consolidate")
    return cents, push


def action_ledger(box: Workspace, cents: str, push: str) -> tuple[dict[str, dict[str, Any]], str]:
    """(`stats --json` by record id, once both records are in it; `why`'s text)."""
    from claude_sandbox import wait_for

    stats: dict[str, dict[str, Any]] = {}

    def read() -> bool:
        stats.update({r["id"]: r for r in json.loads(agentctx(box, "stats", "--json"))["records"]})
        return cents in stats and push in stats

    assert wait_for(read)
    return stats, agentctx(box, "why")


# The rule-before-the-action tests (test_*_read.py, issue 43): files the model reads and edits, records anchored to
# them, one marked "before", one a guard on edits that must not stop a read.
READ_RECORDS = (
    ("cents", "Payments amounts are integer cents",
     "Store and compute every amount in src/payments as integer cents, never floats.", "src/payments/**"),
    ("config", "Config values come from the environment",
     "Never hard-code a setting in config/: read it from the environment.", "config/**"),
    ("schema", "Every module in src/api declares its schema",
     "A module under src/api starts with its SCHEMA dict, validated at import.", "src/api/**"),
    ("vendor", "vendor/ is a pinned copy", "Never edit vendor/: update the pin instead.", "vendor/**"))
READ_FILES = (("src/payments/charge.py", "AMOUNT = 1.0\n"), ("config/app.ini", "debug = true\n"),
              ("vendor/lib.py", "VERSION = 1\n"))


def seed_read_records(box: Workspace) -> dict[str, str]:
    """`init` done: the files, llm off, the four records (schema marked before, vendor a guard on edits), the digest
    built; returns their ids by name."""
    for rel, text in READ_FILES:
        (box.repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (box.repo / rel).write_text(text, encoding="utf-8")
    agentctx(box, "config", "set", "llm", "false")
    ids = {name: agentctx(box, "record", "--type", "convention", "--title", title, "--body", body,
                          "--anchor", anchor).strip() for name, title, body, anchor in READ_RECORDS}
    agentctx(box, "before", ids["schema"])
    agentctx(box, "guard", ids["vendor"], "--never", "path:vendor/**", "--deny")
    agentctx(box, "consolidate")
    return ids


def read_ledger(box: Workspace, ids: dict[str, str]) -> dict[str, Any]:
    """`stats --json` once every record's delivery was checked against the transcript (arrived or not found)."""
    from claude_sandbox import wait_for

    stats: dict[str, Any] = {}

    def checked() -> bool:
        stats.update(json.loads(agentctx(box, "stats", "--json")))
        rows = {r["id"]: r for r in stats["records"]}
        return all(rows.get(i, {}).get("arrived", 0) + rows.get(i, {}).get("not_found", 0) for i in ids.values())

    assert wait_for(checked, timeout=30), stats
    return stats
