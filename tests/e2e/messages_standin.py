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
from typing import Any, Callable

from standin_http import Exchange, StandIn

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


class MessagesStandIn(StandIn):
    """`with MessagesStandIn() as api:` serves on api.base_url; api.requests holds (method, path, headers, body)."""

    def __init__(self, script: Script = scripted_model, *, delay: float = 0.0,
                 hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        super().__init__(script, delay=delay, hold=hold)

    def extra_headers(self) -> list[tuple[str, str]]:
        return [("request-id", _id("req"))]

    def error_body(self, status: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"type": "error", "error": {"type": kind, "message": text}}

    def answer(self, ex: Exchange) -> None:
        body = ex.body
        if ex.path == "/v1/messages/count_tokens":
            return ex.json(200, {"input_tokens": _usage(body, [])["input_tokens"]})
        if ex.path != "/v1/messages":
            return self.not_found(ex, "POST")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return ex.error(400, "invalid_request_error", "messages: field required")
        if ex.held(529, "overloaded_error"):
            return None
        blocks = self.script(body)
        if not body.get("stream"):
            return ex.json(200, message(body, blocks))
        return ex.sse(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in sse_events(body, blocks))

    def message_bodies(self) -> list[dict[str, Any]]:
        """The parsed bodies of every POST /v1/messages, in arrival order."""
        return self.posted(lambda path: path == "/v1/messages")
