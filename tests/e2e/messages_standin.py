"""A stand-in for the Messages API on 127.0.0.1, for the real Claude Code client (its answers are HAND-WRITTEN).

It implements the part of the contract Claude Code needs to run a turn (vendor-notes/messages-api-standin.md):
`POST /v1/messages` with `"stream": true` answered as server-sent events (message_start, content blocks with
text_delta / input_json_delta, message_delta with the stop reason, message_stop), the same without `stream` as one
JSON Message, and `POST /v1/messages/count_tokens`. Any other path gets a 404 in the API's error shape. Every request
is logged (path, headers, parsed body). `script` plays the model: it maps a request body to the content blocks of
the answer; the default one, `scripted_model`, answers "create the branch NAME" with a Bash tool call and anything
else with a short text.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Block = dict[str, Any]
Script = Callable[[dict[str, Any]], list[Block]]

MODEL_ECHO = "claude-standin"  # what `model` says in answers when the request names none
_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_standin{next(_ids):010d}"


def text_of(content: object) -> str:
    """The text of a message's `content` (a string or a list of blocks; tool results included)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                parts.append(text_of(block.get("content")))
    return "\n".join(parts)


def last_user_content(body: dict[str, Any]) -> object:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    return messages[-1].get("content") if messages else ""


def has_tool_result(content: object) -> bool:
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def offers_tool(body: dict[str, Any], name: str) -> bool:
    return any(isinstance(t, dict) and t.get("name") == name for t in body.get("tools") or [])


# HAND-WRITTEN behaviour: a prompt asking to "create the branch NAME" (in a request that offers the Bash tool) gets one
# Bash call `git checkout -b NAME`; the turn after the tool result ends with a short text; anything else gets "OK.".
BRANCH_REQUEST = "create the branch "


def requested_branch(prompt: str) -> str:
    if BRANCH_REQUEST not in prompt:
        return ""
    words = prompt.split(BRANCH_REQUEST, 1)[1].split()
    return words[0].rstrip(".,;:!?") if words else ""


def scripted_model(body: dict[str, Any]) -> list[Block]:
    content = last_user_content(body)
    if has_tool_result(content):
        return [{"type": "text", "text": "Done: the command ran."}]
    branch = requested_branch(text_of(content))
    if branch and offers_tool(body, "Bash"):
        return [{"type": "text", "text": "Running it."},
                {"type": "tool_use", "id": _id("toolu"), "name": "Bash",
                 "input": {"command": f"git checkout -b {branch}", "description": "Create the branch"}}]
    return [{"type": "text", "text": "OK."}]


def _usage(body: dict[str, Any], blocks: list[Block]) -> dict[str, Any]:
    sent = len(json.dumps(body.get("system", ""))) + len(json.dumps(body.get("messages", "")))
    out = len(json.dumps(blocks))
    return {"input_tokens": max(1, sent // 4), "output_tokens": max(1, out // 4), "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0}


def sse_events(body: dict[str, Any], blocks: list[Block]) -> list[tuple[str, dict[str, Any]]]:
    """The event sequence of one streamed answer, in the documented order."""
    usage = _usage(body, blocks)
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": _id("msg"), "type": "message", "role": "assistant", "model": body.get("model") or MODEL_ECHO,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1}}}),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            text = block["text"]
            for chunk in (text[: len(text) // 2], text[len(text) // 2:]):  # two deltas: clients must accumulate
                if chunk:
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "text_delta", "text": chunk}}))
        elif block["type"] == "tool_use":
            events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
            raw = json.dumps(block["input"])
            for chunk in (raw[: len(raw) // 2], raw[len(raw) // 2:]):  # partial JSON strings, parsed at block stop
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "input_json_delta", "partial_json": chunk}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": usage["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def message(body: dict[str, Any], blocks: list[Block]) -> dict[str, Any]:
    """The same answer as one JSON Message (a request without `stream`)."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {"id": _id("msg"), "type": "message", "role": "assistant", "model": body.get("model") or MODEL_ECHO,
            "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": _usage(body, blocks)}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up (or was killed) is no news
            super().handle_error(request, client_address)


class MessagesStandIn:
    """`with MessagesStandIn() as api:` serves on api.base_url; api.requests holds (method, path, headers, body)."""

    def __init__(self, script: Script = scripted_model, *, delay: float = 0.0,
                 hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """`delay`: seconds before each answer. `hold`: requests it accepts are not answered until `release` is set
        (or the stand-in stops): `holding` is set when one arrives, so a test can kill the client mid-turn."""
        self.script, self.delay, self.hold = script, delay, hold
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.lock = threading.Lock()
        self.holding, self.release = threading.Event(), threading.Event()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send_json(self, status: int, data: dict[str, Any]) -> None:
                out = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("request-id", _id("req"))
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def _error(self, status: int, kind: str, text: str) -> None:
                self._send_json(status, {"type": "error", "error": {"type": kind, "message": text}})

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                with standin.lock:
                    standin.requests.append(("GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None))
                self._error(404, "not_found_error", f"the stand-in serves no GET {self.path}")

            do_HEAD = do_GET  # noqa: N815

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                path = self.path.split("?", 1)[0]
                with standin.lock:
                    standin.requests.append(("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if path == "/v1/messages/count_tokens":
                    return self._send_json(200, {"input_tokens": _usage(body, [])["input_tokens"]})
                if path != "/v1/messages":
                    return self._error(404, "not_found_error", f"the stand-in serves no POST {path}")
                if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                    return self._error(400, "invalid_request_error", "messages: field required")
                if standin.delay:
                    time.sleep(standin.delay)
                if standin.hold is not None and standin.hold(body):
                    standin.holding.set()
                    standin.release.wait(60)
                    return self._error(529, "overloaded_error", "held by the test")
                blocks = standin.script(body)
                if not body.get("stream"):
                    return self._send_json(200, message(body, blocks))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("request-id", _id("req"))
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                for name, data in sse_events(body, blocks):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "MessagesStandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def message_bodies(self) -> list[dict[str, Any]]:
        """The parsed bodies of every POST /v1/messages, in arrival order."""
        with self.lock:
            return [b for m, p, _, b in self.requests if m == "POST" and p.split("?", 1)[0] == "/v1/messages"]
