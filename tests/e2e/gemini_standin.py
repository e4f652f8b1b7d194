"""A stand-in for the Gemini API (generativelanguage v1beta) on 127.0.0.1, for the real Gemini CLI (its answers are
HAND-WRITTEN).

It implements the part of the contract Gemini CLI needs to run a turn (vendor-notes/gemini-cli.md, "The model
API"): `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` answered as server-sent events, each a `data:`
line holding one GenerateContentResponse chunk (the last one with `finishReason` and `usageMetadata`);
`:generateContent` answered with one GenerateContentResponse; and `:countTokens`. Any other path gets a 404 in the
API's error shape. Every request is logged (method, path, lower-cased headers, parsed body).

`script` plays the model: it maps a request body to the answer's parts, each `{"type": "text", "text": ...}` or
`{"type": "function_call", "name": ..., "args": {...}}`. The default one, `scripted_model`, answers "create the
branch NAME" with a `run_shell_command` call, "call the tool NAME" with a call of that (MCP) tool, the turn after a
function response with a short text, a request for JSON output (the CLI's model router and its other side
requests) with a minimal object that fits the requested schema, and anything else with "OK.".
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Callable

from standin_http import Exchange, StandIn

Part = dict[str, Any]
Script = Callable[[dict[str, Any]], list[Part]]

MODEL_VERSION = "gemini-standin"
_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_standin{next(_ids):010d}"


def contents(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in body.get("contents") or [] if isinstance(c, dict)]


def text_of(content: object) -> str:
    """The text parts of one Content (`{"role", "parts": [...]}`), joined with newlines."""
    parts = content.get("parts") if isinstance(content, dict) else None
    return "\n".join(str(p["text"]) for p in parts or [] if isinstance(p, dict) and "text" in p)


def user_texts(body: dict[str, Any]) -> list[str]:
    return [text_of(c) for c in contents(body) if c.get("role", "user") == "user"]


def last_user_text(body: dict[str, Any]) -> str:
    texts = user_texts(body)
    return texts[-1] if texts else ""


def ends_with_function_response(body: dict[str, Any]) -> bool:
    """Whether the last Content carries a functionResponse part (the request that follows a tool call)."""
    items = contents(body)
    return bool(items) and any(isinstance(p, dict) and "functionResponse" in p for p in items[-1].get("parts") or [])


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the function declarations offered in `tools`."""
    return [str(f.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)
            for f in tool.get("functionDeclarations") or [] if isinstance(f, dict)]


def offers_tool(body: dict[str, Any], name: str) -> bool:
    return name in tool_names(body)


def wants_json(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks its answer to follow (the CLI's router and side requests), or None."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") != "application/json":
        return None
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return schema if isinstance(schema, dict) else {}


def fill_schema(schema: dict[str, Any], name: str = "") -> Any:
    """A minimal value that satisfies a (Gemini-flavoured) JSON schema: required properties only, the first enum
    value, 1 for numbers, "stand-in" for strings; a `next_speaker` is always "user" (the turn ends)."""
    if name == "next_speaker":
        return "user"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {key: fill_schema(props.get(key) or {}, key) for key in schema.get("required") or props}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "stand-in"


# HAND-WRITTEN behaviour. A prompt asking to "create the branch NAME" (in a request that offers Gemini CLI's shell
# tool, `run_shell_command`) gets one call `git checkout -b NAME`; "call the tool NAME" gets a call of that tool with
# no arguments; the request after a function response ends the turn with a short text; anything else gets "OK.".
BRANCH_REQUEST = "create the branch "
TOOL_REQUEST = "call the tool "


def _word_after(prompt: str, marker: str) -> str:
    if marker not in prompt:
        return ""
    words = prompt.split(marker, 1)[1].split()
    return words[0].rstrip(".,;:!?") if words else ""


def requested_branch(prompt: str) -> str:
    return _word_after(prompt, BRANCH_REQUEST)


def scripted_model(body: dict[str, Any]) -> list[Part]:
    schema = wants_json(body)
    if schema is not None:
        return [{"type": "text", "text": json.dumps(fill_schema(schema))}]
    if ends_with_function_response(body):
        return [{"type": "text", "text": "Done: the command ran."}]
    prompt = last_user_text(body)
    branch = requested_branch(prompt)
    if branch and offers_tool(body, "run_shell_command"):
        return [{"type": "text", "text": "Running it."},
                {"type": "function_call", "name": "run_shell_command",
                 "args": {"command": f"git checkout -b {branch}", "description": "Create the branch"}}]
    tool = _word_after(prompt, TOOL_REQUEST)
    if tool and offers_tool(body, tool):
        return [{"type": "function_call", "name": tool, "args": {}}]
    return [{"type": "text", "text": "OK."}]


def api_parts(parts: list[Part]) -> list[dict[str, Any]]:
    """The script's parts as Gemini API Parts."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if part["type"] == "text":
            out.append({"text": part["text"]})
        elif part["type"] == "function_call":
            out.append({"functionCall": {"id": part.get("id") or _id("call"), "name": part["name"],
                                         "args": part.get("args") or {}}})
        else:
            raise ValueError(f"the stand-in cannot answer with a part of type {part['type']!r}")
    return out


def _usage(body: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any]:
    sent = len(json.dumps(body.get("contents", ""))) + len(json.dumps(body.get("systemInstruction", "")))
    prompt, out = max(1, sent // 4), max(1, len(json.dumps(parts)) // 4)
    return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}


def chunk(parts: list[dict[str, Any]], *, finish: bool, usage: dict[str, Any] | None, response_id: str) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = "STOP"
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": MODEL_VERSION, "responseId": response_id}
    if usage is not None:
        out["usageMetadata"] = usage
    return out


def stream_chunks(body: dict[str, Any], parts: list[Part]) -> list[dict[str, Any]]:
    """The chunks of one streamed answer: each text split in two (clients must accumulate), a function call whole,
    the last chunk with finishReason STOP and the usage."""
    answer = api_parts(parts)
    response_id = _id("resp")
    pieces: list[dict[str, Any]] = []
    for part in answer:
        if "text" in part and len(part["text"]) > 1:
            half = len(part["text"]) // 2
            pieces += [{"text": part["text"][:half]}, {"text": part["text"][half:]}]
        else:
            pieces.append(part)
    usage = _usage(body, answer)
    return [chunk([piece], finish=i == len(pieces) - 1, usage=usage if i == len(pieces) - 1 else None,
                  response_id=response_id) for i, piece in enumerate(pieces)]


def response(body: dict[str, Any], parts: list[Part]) -> dict[str, Any]:
    """The same answer as one GenerateContentResponse (`:generateContent`)."""
    answer = api_parts(parts)
    return chunk(answer, finish=True, usage=_usage(body, answer), response_id=_id("resp"))


class GeminiStandIn(StandIn):
    """`with GeminiStandIn() as api:` serves on api.base_url (no path: the CLI adds /v1beta/...); api.requests holds
    (method, path, headers, body)."""

    json_type = "application/json; charset=UTF-8"

    def __init__(self, script: Script = scripted_model, *, delay: float = 0.0,
                 hold: Callable[[dict[str, Any]], bool] | None = None) -> None:
        super().__init__(script, delay=delay, hold=hold)

    def error_body(self, status: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"error": {"code": status, "message": text, "status": kind}}

    def not_found(self, ex: Exchange, method: str) -> None:
        ex.error(404, "NOT_FOUND", f"the stand-in serves no {method} {ex.path}")

    def answer(self, ex: Exchange) -> None:
        body = ex.body
        model, _, method = ex.path.rpartition(":")
        if not model.startswith("/v1beta/models/") or method not in (
                "streamGenerateContent", "generateContent", "countTokens"):
            return self.not_found(ex, "POST")
        if method == "countTokens":
            return ex.json(200, {"totalTokens": _usage(body, [])["promptTokenCount"]})
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            return ex.error(400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified")
        if ex.held(503, "UNAVAILABLE"):
            return None
        parts = self.script(body)
        if method == "generateContent":
            return ex.json(200, response(body, parts))
        return ex.sse(f"data: {json.dumps(piece)}\r\n\r\n".encode() for piece in stream_chunks(body, parts))

    def bodies(self, method: str = "streamGenerateContent") -> list[dict[str, Any]]:
        """The parsed bodies of every POST to one method (`streamGenerateContent` by default), in arrival order."""
        return self.posted(lambda path: path.rpartition(":")[2] == method)

    def turn_bodies(self) -> list[dict[str, Any]]:
        """The main-loop requests: streamed, and not a side request for JSON output."""
        return [b for b in self.bodies() if wants_json(b) is None]
