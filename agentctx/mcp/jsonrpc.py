"""JSON-RPC 2.0 over newline-delimited stdio: error codes, message shapes, line parsing and encoding."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypedDict, Union

# -32768..-32000 is reserved by JSON-RPC; -32000..-32019 is ours, -32020..-32099 belongs to MCP.
PARSE_ERROR = -32700
"""The line is not valid UTF-8 JSON (answered with id null)."""
INVALID_REQUEST = -32600
"""Valid JSON that is not a JSON-RPC 2.0 request or notification."""
METHOD_NOT_FOUND = -32601
"""An unknown method, `server/discover` included: clients probe and must get an answer."""
INVALID_PARAMS = -32602
"""Params of the wrong shape, an unknown tool, or a bad cursor."""
INTERNAL_ERROR = -32603
"""A fault in the server itself; the loop keeps going."""

RequestId = Union[str, int]


class ErrorObject(TypedDict, total=False):
    code: int
    message: str
    data: Any


@dataclass(frozen=True)
class Request:
    """A request (`id` set) or a notification (`id` None, never answered)."""

    method: str
    params: Any
    id: RequestId | None

    @property
    def is_notification(self) -> bool:
        return self.id is None


@dataclass(frozen=True)
class Fault(Exception):
    """A protocol error to answer with a JSON-RPC `error` member."""

    code: int
    message: str
    id: RequestId | None = None
    data: Any = None


def parse_line(line: bytes) -> Request | Fault | None:
    """One input line as a Request, a Fault to answer, or None for a blank line (ignored)."""
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Fault(PARSE_ERROR, f"Parse error: invalid UTF-8 at byte {exc.start}")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Fault(PARSE_ERROR, f"Parse error: {exc}")
    return to_request(msg)


def to_request(msg: Any) -> Request | Fault | None:
    """Check the JSON-RPC 2.0 envelope (None: a stray response, nothing to answer).

    Batches were removed from MCP in 2025-06-18, so a list is an invalid request.
    """
    if not isinstance(msg, dict):
        return Fault(INVALID_REQUEST, "Invalid Request: expected a JSON object")
    raw_id = msg.get("id")
    # bool is an int in Python but not a valid id; null ids are not allowed in MCP.
    good_id = isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool)
    reply_id = raw_id if good_id else None
    if msg.get("jsonrpc") != "2.0":
        return Fault(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', reply_id)
    method = msg.get("method")
    if not isinstance(method, str) or not method:
        if "result" in msg or "error" in msg:  # a response to a request we never sent: nothing to answer
            return None
        return Fault(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', reply_id)
    if "id" in msg and not good_id:
        return Fault(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer', None)
    params = msg.get("params")
    if params is not None and not isinstance(params, (dict, list)):
        return Fault(INVALID_REQUEST, 'Invalid Request: "params" must be an object or an array', reply_id)
    return Request(method, params, raw_id if good_id else None)


def result(request_id: RequestId, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id: RequestId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: ErrorObject = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": err}


def encode(message: dict[str, Any]) -> bytes:
    """One line: compact JSON escapes every newline inside strings, so a message never spans lines."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
