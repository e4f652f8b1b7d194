"""The hand-written MCP server: a METHODS dispatch table and a newline-delimited JSON-RPC loop on stdio."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Mapping

from ..base import __version__
from ..base.project import Project, detect
from . import jsonrpc
from .handlers import ToolContext
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, Fault, Request
from .tools import INSTRUCTIONS, TOOLS, call

# Newest first. The legacy (initialize-handshake) era; the stateless 2026-07-28 era is not served here, and a
# client probing it with `server/discover` gets −32601 and falls back to `initialize` (vendor-notes/mcp-stdio.md).
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
# A line longer than this is answered with a parse error and skipped, so one message cannot exhaust memory or
# hold the one-request-at-a-time loop. The largest valid request (a ctx_record body of 2,000 characters, each
# escaped as a 12-byte surrogate pair) is under 30 KB.
MAX_LINE = 1024 * 1024


@dataclass
class Session:
    """Per-connection state: the tool context and what `initialize` negotiated."""

    tools: ToolContext
    protocol_version: str | None = None
    client: dict[str, Any] | None = None
    initialized: bool = False
    aside: str | None = None  # the plugin's copy standing aside for a server `init` registered: why (no tools)


def negotiate(requested: Any) -> str:
    """Echo a version we speak; answer anything else (newer, older, malformed) with our newest."""
    return requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]


def _params(req: Request) -> dict[str, Any]:
    if req.params is None:
        return {}
    if not isinstance(req.params, dict):
        raise Fault(INVALID_PARAMS, "Invalid params: expected an object", req.id)
    return req.params


def on_initialize(session: Session, req: Request) -> dict[str, Any]:
    params = _params(req)
    version = params.get("protocolVersion")
    if not isinstance(version, str):
        raise Fault(INVALID_PARAMS, 'Invalid params: "protocolVersion" must be a string', req.id)
    session.protocol_version = negotiate(version)
    info = params.get("clientInfo")
    session.client = info if isinstance(info, dict) else None
    return {"protocolVersion": session.protocol_version, "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "agentctx", "title": "agentctx project memory", "version": __version__},
            "instructions": session.aside or INSTRUCTIONS}


def on_ping(session: Session, req: Request) -> dict[str, Any]:
    return {}


def on_tools_list(session: Session, req: Request) -> dict[str, Any]:
    # All seven tools fit one page; we never hand out a cursor, so any cursor is one we did not issue.
    if _params(req).get("cursor") is not None:
        raise Fault(INVALID_PARAMS, "Invalid params: unknown cursor", req.id)
    if session.aside:
        return {"tools": []}  # the other agentctx server offers them: the model must not see every tool twice
    return {"tools": [tool.to_dict() for tool in TOOLS.values()]}


def on_tools_call(session: Session, req: Request) -> dict[str, Any]:
    params = _params(req)
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise Fault(INVALID_PARAMS, 'Invalid params: "name" must be a tool name', req.id)
    if name not in TOOLS:
        raise Fault(INVALID_PARAMS, f"Unknown tool: {name}", req.id, data={"tools": list(TOOLS)})
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise Fault(INVALID_PARAMS, 'Invalid params: "arguments" must be an object', req.id)
    if session.aside:
        return {"content": [{"type": "text", "text": session.aside}], "isError": True}
    return call(session.tools, name, arguments).to_dict()


Method = Callable[[Session, Request], dict[str, Any]]

METHODS: dict[str, Method] = {
    "initialize": on_initialize,
    "ping": on_ping,
    "tools/list": on_tools_list,
    "tools/call": on_tools_call,
}


def handle(session: Session, req: Request) -> dict[str, Any] | None:
    """The reply to one message, or None for a notification (never answered, whatever it is)."""
    if req.is_notification:
        if req.method == "notifications/initialized":
            session.initialized = True
        # notifications/cancelled: requests are answered in order before the next line is read, so the
        # request named is already done or unknown; either way nothing is sent (spec: ignore unknown ids).
        return None
    assert req.id is not None
    method = METHODS.get(req.method)
    if method is None:
        return jsonrpc.error(req.id, METHOD_NOT_FOUND, f"Method not found: {req.method}")
    try:
        return jsonrpc.result(req.id, method(session, req))
    except Fault as fault:
        return jsonrpc.error(req.id, fault.code, fault.message, fault.data)
    except Exception as exc:  # the loop outlives any bug in one method
        import traceback

        traceback.print_exc(file=sys.stderr)
        return jsonrpc.error(req.id, jsonrpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")


class Overlong:
    """A line past MAX_LINE, drained: its head and tail are kept to find the request's id."""

    def __init__(self, head: bytes, tail: bytes) -> None:
        self.head, self.tail = head, tail


# The request's id where clients put it: first (or after "jsonrpc"), or last, as the TypeScript SDK serialises
# {method, params, jsonrpc, id}. Numbers and short strings only; anything else is answered with id null.
_ID = rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
_HEAD_ID = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?' + _ID)
_TAIL_ID = re.compile(_ID + rb'\s*\}\s*$')


def overlong_id(line: Overlong) -> "int | str | None":
    """The id of a request too long to parse, when it can be read from the line's ends (else None)."""
    found = _HEAD_ID.match(line.head) or _TAIL_ID.search(line.tail)
    if not found:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def _read_line(stream: BinaryIO) -> "bytes | Overlong | None":
    """The next line (None at EOF); an over-long line is drained and returned as an Overlong."""
    line = stream.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE and not line.endswith(b"\n"):
        tail = line[-4096:]
        while True:
            rest = stream.readline(MAX_LINE)
            if rest:
                tail = (tail + rest)[-4096:]
            if not rest or rest.endswith(b"\n"):
                break
        return Overlong(line[:4096], tail)
    return line


def serve(stdin: BinaryIO, stdout: BinaryIO, tools: ToolContext, *, aside: str | None = None) -> int:
    """Answer requests line by line, in order, until EOF; a malformed line is answered and skipped. With `aside`
    (why), the server offers no tools and says why in its instructions."""
    session = Session(tools, aside=aside)
    try:
        while True:
            line = _read_line(stdin)
            if line is None:
                return 0
            if isinstance(line, Overlong):  # answered with its id when it can be read: the client waits for it
                reply: dict[str, Any] | None = jsonrpc.error(overlong_id(line), jsonrpc.PARSE_ERROR,
                                                             f"Parse error: line longer than {MAX_LINE} bytes",
                                                             {"max_line_bytes": MAX_LINE})
            else:
                parsed = jsonrpc.parse_line(line)
                if parsed is None:
                    continue
                if isinstance(parsed, Fault):
                    reply = jsonrpc.error(parsed.id, parsed.code, parsed.message, parsed.data)
                else:
                    reply = handle(session, parsed)
            if reply is not None:
                stdout.write(jsonrpc.encode(reply))
                stdout.flush()
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


def project_root(environ: Mapping[str, str], explicit: str | None = None) -> Path:
    """Where the server's project is: an explicit `-C DIR`, else Claude Code's `CLAUDE_PROJECT_DIR` (a user-scope
    server may be started in another directory), else the process cwd."""
    return Path(explicit or environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())


def make_context(environ: Mapping[str, str] | None = None, cwd: str | None = None) -> ToolContext:
    """The tool context of a server process: its project is fixed at start, so it can never read another's."""
    env = os.environ if environ is None else environ
    project: Project = detect(project_root(env, cwd))
    named = env.get("CLAUDE_CODE_SESSION_ID") or None
    return ToolContext(project=project, session_id=named, find_session=named is None)


def plugin_aside(environ: Mapping[str, str], cwd: str | None = None) -> str | None:
    """Started as the plugin's server (Claude Code sets CLAUDE_PLUGIN_ROOT for it, our launcher AGENTCTX_PLUGIN_ROOT)
    while `agentctx init` registered a server of its own: why this one offers nothing (claude/aside.py), else None."""
    if not (environ.get("CLAUDE_PLUGIN_ROOT") and environ.get("AGENTCTX_PLUGIN_ROOT")):
        return None
    from ..claude import aside

    where = aside.mcp_registered(str(project_root(environ, cwd)))
    return aside.message(where) if where else None


def main(cwd: str | None = None) -> int:
    """`agentctx mcp`: serve on the process's stdin/stdout; anything else printed goes to stderr."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Stray prints (ours or a library's) would corrupt the protocol stream; send them to stderr instead.
    sys.stdout = sys.stderr
    tools = make_context(cwd=cwd)
    from ..retrieval.vectors import search as vector_search  # imports no extra by itself

    vector_search.PREFER = "numpy"  # a server lives long: the cached matrix beats a per-query SQL scan
    try:
        return serve(stdin, stdout, tools, aside=plugin_aside(os.environ, cwd))
    finally:
        tools.close()
