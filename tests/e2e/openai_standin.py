"""A stand-in for the OpenAI Responses API on 127.0.0.1, for the real Codex CLI (its answers are HAND-WRITTEN).

It implements the part of the contract Codex needs to run a turn (vendor-notes/codex-cli.md, "The model API"):
`POST /v1/responses` with `"stream": true` answered as server-sent events (response.created, response.in_progress,
per output item: output_item.added, the content-part / output_text or function_call_arguments deltas,
output_item.done; then response.completed carrying the whole Response), and the same without `stream` as one
Response object. Any other path gets a 404 in the API's error shape. Every request is logged (method, path,
lower-cased headers, parsed body). `script` plays the model: it maps a request body to the answer's items, each
`{"type": "text", "text": ...}`, `{"type": "function_call", "name": ..., "arguments": {...}}` or
`{"type": "custom_tool_call", "name": ..., "input": "..."}` (a freeform tool such as apply_patch); the default one,
`scripted_model`, answers "create the branch NAME" with an `exec_command` shell call, "call the tool NAME" with a
call of that (MCP) tool, the turn after a tool result with a short text, and anything else with "OK.".
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any, Callable

from standin_http import Exchange, StandIn

Item = dict[str, Any]
Script = Callable[[dict[str, Any]], list[Item]]

MODEL_ECHO = "gpt-standin"  # what `model` says in answers when the request names none
_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_standin{next(_ids):010d}"


def input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's `input` as a list of items (a bare string is one user message)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": raw}]}]
    return [i for i in raw or [] if isinstance(i, dict)]


def text_of(content: object) -> str:
    """The text of a message item's `content` (a string or a list of input_text / output_text parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(p.get("text", "")) for p in content
                     if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text"))


def messages(body: dict[str, Any], role: str) -> list[str]:
    """The texts of the request's message items of one role ("user", "developer", "assistant", "system")."""
    return [text_of(i.get("content")) for i in input_items(body)
            if i.get("type", "message") == "message" and i.get("role") == role]


def last_user_text(body: dict[str, Any]) -> str:
    users = messages(body, "user")
    return users[-1] if users else ""


def ends_with_tool_output(body: dict[str, Any]) -> bool:
    """Whether the last input item is a tool's output (the request that follows a tool call)."""
    items = input_items(body)
    return bool(items) and str(items[-1].get("type", "")).endswith("_call_output")


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the function tools offered, namespaces flattened (`namespace.tool` is listed as `tool`)."""
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            names.extend(str(t.get("name")) for t in tool.get("tools") or [] if isinstance(t, dict))
        elif tool.get("name"):
            names.append(str(tool["name"]))
    return names


def offers_tool(body: dict[str, Any], name: str) -> bool:
    return name in tool_names(body)


def tool_namespace(body: dict[str, Any], name: str) -> str | None:
    """The namespace a function tool is offered in (Codex offers each MCP server's tools as a namespace tool
    `mcp__<server>`), or None for a top-level tool."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "namespace" and any(
                isinstance(t, dict) and t.get("name") == name for t in tool.get("tools") or []):
            return str(tool.get("name"))
    return None


# HAND-WRITTEN behaviour. A prompt asking to "create the branch NAME" (in a request that offers Codex's shell tool,
# `exec_command`) gets one call `git checkout -b NAME`; "call the tool NAME" gets a call of that tool with no
# arguments; the request after a tool result ends the turn with a short text; anything else gets "OK.".
BRANCH_REQUEST = "create the branch "
TOOL_REQUEST = "call the tool "


def _word_after(prompt: str, marker: str) -> str:
    if marker not in prompt:
        return ""
    words = prompt.split(marker, 1)[1].split()
    return words[0].rstrip(".,;:!?") if words else ""


def requested_branch(prompt: str) -> str:
    return _word_after(prompt, BRANCH_REQUEST)


def scripted_model(body: dict[str, Any]) -> list[Item]:
    if ends_with_tool_output(body):
        return [{"type": "text", "text": "Done: the command ran."}]
    prompt = last_user_text(body)
    branch = requested_branch(prompt)
    if branch and offers_tool(body, "exec_command"):
        return [{"type": "text", "text": "Running it."},
                {"type": "function_call", "name": "exec_command", "arguments": {"cmd": f"git checkout -b {branch}"}}]
    tool = _word_after(prompt, TOOL_REQUEST)
    if tool and offers_tool(body, tool):
        return [{"type": "function_call", "name": tool, "namespace": tool_namespace(body, tool), "arguments": {}}]
    return [{"type": "text", "text": "OK."}]


def _usage(body: dict[str, Any], items: list[Item]) -> dict[str, Any]:
    sent = len(json.dumps(body.get("instructions", ""))) + len(json.dumps(body.get("input", "")))
    out = len(json.dumps(items))
    inp, outp = max(1, sent // 4), max(1, out // 4)
    return {"input_tokens": inp, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": outp,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": inp + outp}


def output_items(items: list[Item]) -> list[dict[str, Any]]:
    """The script's items as finished Responses output items (ids and call ids filled in)."""
    out: list[dict[str, Any]] = []
    for item in items:
        if item["type"] == "text":
            out.append({"id": _id("msg"), "type": "message", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": item["text"], "annotations": []}]})
        elif item["type"] == "function_call":
            args = item["arguments"] if isinstance(item["arguments"], str) else json.dumps(item["arguments"])
            call = {"id": _id("fc"), "type": "function_call", "status": "completed",
                    "call_id": item.get("call_id") or _id("call"), "name": item["name"], "arguments": args}
            if item.get("namespace"):  # a tool offered inside a namespace tool is called with its namespace
                call["namespace"] = item["namespace"]
            out.append(call)
        elif item["type"] == "custom_tool_call":  # a freeform tool (Codex's apply_patch): raw text input
            out.append({"id": _id("ctc"), "type": "custom_tool_call", "status": "completed",
                        "call_id": item.get("call_id") or _id("call"), "name": item["name"], "input": item["input"]})
        else:
            raise ValueError(f"the stand-in cannot answer with an item of type {item['type']!r}")
    return out


def response(body: dict[str, Any], items: list[Item], output: list[dict[str, Any]] | None = None,
             status: str = "completed") -> dict[str, Any]:
    """A Response object (the non-streamed answer, and the payload of response.created / completed)."""
    return {"id": _id("resp"), "object": "response", "created_at": int(time.time()), "status": status,
            "error": None, "incomplete_details": None, "model": body.get("model") or MODEL_ECHO,
            "output": output_items(items) if output is None else output, "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"), "tools": [], "usage": _usage(body, items)}


def sse_events(body: dict[str, Any], items: list[Item]) -> list[dict[str, Any]]:
    """The event sequence of one streamed answer, in the documented order, each with its `sequence_number`."""
    final = response(body, items)
    start = {**final, "status": "in_progress", "output": [], "usage": None}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": start},
                                    {"type": "response.in_progress", "response": start}]
    for index, item in enumerate(final["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "content": []}})
            events.append({"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": part})
            for chunk in (text[: len(text) // 2], text[len(text) // 2:]):  # two deltas: clients must accumulate
                if chunk:
                    events.append({"type": "response.output_text.delta", "item_id": item["id"],
                                   "output_index": index, "content_index": 0, "delta": chunk, "logprobs": []})
            events.append({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "text": text, "logprobs": []})
            events.append({"type": "response.content_part.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": {**part, "text": text}})
        elif item["type"] == "custom_tool_call":
            raw = item["input"]
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "input": ""}})
            for chunk in (raw[: len(raw) // 2], raw[len(raw) // 2:]):
                if chunk:
                    events.append({"type": "response.custom_tool_call_input.delta", "item_id": item["id"],
                                   "output_index": index, "delta": chunk})
            events.append({"type": "response.custom_tool_call_input.done", "item_id": item["id"],
                           "output_index": index, "input": raw})
        else:
            raw = item["arguments"]
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "arguments": ""}})
            for chunk in (raw[: len(raw) // 2], raw[len(raw) // 2:]):
                if chunk:
                    events.append({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                                   "output_index": index, "delta": chunk})
            events.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                           "output_index": index, "arguments": raw})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": final})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


class ResponsesStandIn(StandIn):
    """`with ResponsesStandIn() as api:` serves on api.base_url (ending in /v1); api.requests holds
    (method, path, headers, body)."""

    url_path = "/v1"

    def __init__(self, script: Script = scripted_model, *, delay: float = 0.0,
                 hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        super().__init__(script, delay=delay, hold=hold)

    def extra_headers(self) -> list[tuple[str, str]]:
        return [("x-request-id", _id("req"))]

    def error_body(self, status: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"error": {"message": text, "type": kind, "param": None, "code": extra.get("code")}}

    def not_found(self, ex: Exchange, method: str) -> None:
        ex.error(404, "invalid_request_error", f"the stand-in serves no {method} {ex.path}", code="not_found")

    def answer(self, ex: Exchange) -> None:
        body = ex.body
        if ex.path != "/v1/responses":
            return self.not_found(ex, "POST")
        if not isinstance(body, dict) or "input" not in body:
            return ex.error(400, "invalid_request_error", "Missing required parameter: 'input'.",
                            code="missing_required_parameter")
        if ex.held(503, "server_error"):
            return None
        items = self.script(body)
        if not body.get("stream"):
            return ex.json(200, response(body, items))
        return ex.sse(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                      for event in sse_events(body, items))

    def response_bodies(self) -> list[dict[str, Any]]:
        """The parsed bodies of every POST /v1/responses, in arrival order."""
        return self.posted(lambda path: path == "/v1/responses")
