"""8 processes x 500 capture writes on one database; planted secrets never reach the file, the WAL or the index."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import agentctx

from agentctx.memory import capture
from agentctx.store import db
from agentctx.base import paths
from agentctx.base.project import detect

WRITERS, WRITES = 8, 500


WRITER = """
import os, sys
sys.path.insert(0, {root!r})
os.environ["AGENTCTX_HOME"] = {home!r}
from agentctx.base import paths
from agentctx.memory import capture
from agentctx.store import db
conn = db.connect(paths.db_path())
for i in range({n}):
    capture.capture(conn, "p" * 64, "s{index}", "Bash", {{"command": f"python job_{index}_{{i}}.py"}},
                    {{"error": f"Exit code 1\\nValueError: bad input {index}-{{i}}"}}, "/r", failed=True)
conn.close()
"""


def test_concurrent_writers_lose_nothing(conn):
    # Separate interpreters (not multiprocessing: its children cannot import test modules in importlib mode).
    root = str(Path(agentctx.__file__).resolve().parent.parent)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER.format(root=root, home=os.environ["AGENTCTX_HOME"],
                                                                   n=WRITES, index=k)])
             for k in range(WRITERS)]
    for p in procs:
        assert p.wait(timeout=180) == 0
    assert conn.execute("SELECT count(*) FROM records WHERE type = 'bugfix'").fetchone()[0] == WRITERS * WRITES
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'valueerror'").fetchone()[0] \
        == WRITERS * WRITES


SECRETS = {
    "anthropic": "sk-ant-api03-" + "A1b2C3d4E5" * 5,
    "aws": "AKIA" + "ABCDEFGHIJKLMNOP",
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2,
    "url_password": "hunter2-very-secret",
    "pem": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
}


def test_secrets_never_stored(hook, conn, repo):
    output = (f"Error: auth failed with {SECRETS['anthropic']}\nfatal: AWS_ACCESS_KEY_ID={SECRETS['aws']}\n"
              f"token {SECRETS['github']}\nfatal: could not read from https://bob:{SECRETS['url_password']}@git.example.com/r\n"
              f"-----BEGIN PRIVATE KEY-----\n{SECRETS['pem']}\n-----END PRIVATE KEY-----\n")
    command = f"curl -H 'x-api-key: {SECRETS['anthropic']}' https://bob:{SECRETS['url_password']}@h/ && deploy {SECRETS['github']}"
    for line in output.splitlines():
        hook("post-tool-use-failure", {"session_id": "s", "cwd": str(repo), "tool_name": "Bash",
                                       "tool_input": {"command": command}, "error": f"Exit code 1\n{line}"})
    hook("post-tool-use", {"session_id": "s", "cwd": str(repo), "tool_name": "Bash",
                           "tool_input": {"command": f"pytest {SECRETS['aws']}"},
                           "tool_response": {"stdout": f"FAILED test_x.py - key {SECRETS['anthropic']}"}})
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] >= 1
    blobs = b""
    for suffix in ("", "-wal", "-shm"):
        path = str(paths.db_path()) + suffix
        if os.path.exists(path):
            blobs += open(path, "rb").read()
    from agentctx.memory.capture import log_path

    blobs += open(log_path("s"), "rb").read()
    vocab = " ".join(r[0] for r in conn.execute("SELECT term FROM records_fts_vocab"))
    for name, secret in SECRETS.items():
        assert secret.encode() not in blobs, name
        assert not {t for t in vocab.split() if len(t) >= 8} & set(secret.lower().replace("-", " ").split()), name
    assert isinstance(detect(repo).id, str) and sqlite3.sqlite_version
