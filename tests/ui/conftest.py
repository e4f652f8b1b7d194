"""Dashboard fixtures: a store with records, and a live server on a free loopback port for each test."""

from __future__ import annotations

import http.client
import json
import threading
from dataclasses import dataclass
from typing import Any

import pytest

from agentctx.base.project import detect
from agentctx.ui.server import make_server

XSS = "<img src=x onerror=alert(1)>"


@dataclass
class Live:
    port: int
    token: str
    project_id: str

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = "default",
             headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, dict[str, str], Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        hdrs = {"Host": f"127.0.0.1:{self.port}"}
        if token == "default":
            token = self.token
        if token is not None:
            hdrs["X-Agentctx-Token"] = token
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        conn.request(method, path, body=data, headers=hdrs)
        res = conn.getresponse()
        payload = res.read()
        conn.close()
        ctype = res.getheader("Content-Type") or ""
        parsed = json.loads(payload) if ctype.startswith("application/json") else payload
        return res.status, {k.lower(): v for k, v in res.getheaders()}, parsed


@pytest.fixture
def seeded(add, conn, repo):
    """Records of every kind the views show: a chain of supersessions, an inferred record, a pinned one, an XSS body."""
    from agentctx.store import records, sessions

    db_rec = add("Use PostgreSQL for orders", "Orders live in PostgreSQL 16; reporting reads a replica.")
    records.supersede(conn, db_rec.id, db_rec.project_id, body="Orders live in PostgreSQL 17 now.",
                      rationale="16 reached end of support")
    inferred = add("Tests run with pytest -q", "The suite runs with `pytest -q`.", type_="convention",
                   confidence="inferred", session_id="sess-1")
    pinned = add("Never force-push main", "Protected branch.", type_="convention", pinned=True)
    xss = add("Render bodies as text", XSS, type_="discovery")
    sessions.log_injection(conn, session_id="sess-1", project_id=db_rec.project_id, event="UserPromptSubmit",
                           prompt_hash="abc123", record_ids=[pinned.id, xss.id], scores=[1.5, 1.1], tokens=120)
    return {"db": db_rec, "inferred": inferred, "pinned": pinned, "xss": xss, "project": detect(repo)}


@pytest.fixture
def live(seeded):
    httpd, settings = make_server(seeded["project"], port=0, fallback=False)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield Live(httpd.server_address[1], settings.token, seeded["project"].id)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def run_cli(repo, capsys, monkeypatch):
    """Run the CLI in `repo` and return its parsed --json output."""
    from agentctx import cli

    def _run(*argv):
        monkeypatch.chdir(repo)
        capsys.readouterr()
        rc = cli.main(list(argv))
        out = capsys.readouterr().out
        assert rc == 0, out
        return json.loads(out)
    return _run
