"""MCP fixtures: two git repositories (projects A and B), an initialised store, and in-process protocol helpers."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.claude import setup
from agentctx.mcp.handlers import ToolContext
from agentctx.mcp.server import serve
from agentctx.base.project import detect


def make_repo(path: Path, remote: str) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {remote}\n', encoding="utf-8")
    return path


@pytest.fixture
def repo_a(tmp_path):
    return make_repo(tmp_path / "repo-a", "git@github.com:acme/alpha.git")


@pytest.fixture
def repo_b(tmp_path):
    return make_repo(tmp_path / "repo-b", "git@github.com:acme/beta.git")


@pytest.fixture
def store():
    setup.initialize()


@pytest.fixture
def ctx_a(store, repo_a):
    ctx = ToolContext(project=detect(repo_a))
    yield ctx
    ctx.close()


@pytest.fixture
def ctx_b(store, repo_b):
    ctx = ToolContext(project=detect(repo_b))
    yield ctx
    ctx.close()


def rpc_lines(tools: ToolContext, lines: list[bytes]) -> list[dict]:
    """Feed raw lines to the in-process server; return the decoded replies in order."""
    out = io.BytesIO()
    rc = serve(io.BytesIO(b"".join(lines)), out, tools)
    assert rc == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def msg(method: str, params=None, id=None) -> bytes:
    m: dict = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    if id is not None:
        m["id"] = id
    return json.dumps(m).encode() + b"\n"


def call(tools: ToolContext, name: str, arguments=None) -> dict:
    """One tools/call through the protocol; returns the result object."""
    params = {"name": name} if arguments is None else {"name": name, "arguments": arguments}
    (reply,) = rpc_lines(tools, [msg("tools/call", params, id=1)])
    return reply["result"]


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AGENTCTX_HOME", "SYSTEMROOT")}
    env.update(extra)
    return env


def start_server(cwd: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "agentctx", "mcp", *args], cwd=cwd, env=server_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def helpers():
    """The protocol helpers, as a namespace (test modules cannot import conftest by name)."""

    class H:
        rpc = staticmethod(rpc_lines)
        msg = staticmethod(msg)
        call = staticmethod(call)
        start = staticmethod(start_server)
        env = staticmethod(server_env)

    return H
