"""The Responses API stand-in speaks the documented streaming format (vendor-notes/codex-cli.md, "The model API"),
checked with a raw SSE reader."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from openai_standin import ResponsesStandIn, scripted_model

SHELL = {"type": "function", "name": "exec_command", "parameters": {"type": "object"}}
MCP = {"type": "namespace", "name": "mcp__agentctx", "description": "memory",
       "tools": [{"type": "function", "name": "ctx_search", "parameters": {"type": "object"}}]}


def _user(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _post(url: str, body: dict, path: str = "/responses") -> tuple[int, str, str]:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", "authorization": "Bearer k"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["content-type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["content-type"], err.read().decode()


def _events(raw: str) -> list[tuple[str, dict]]:
    out = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_a_streamed_shell_call_follows_the_documented_event_order():
    body = {"model": "m", "stream": True, "input": [_user("please create the branch feature/x now")],
            "tools": [SHELL]}
    with ResponsesStandIn() as api:
        status, ctype, raw = _post(api.base_url, body)
        assert api.response_bodies() == [body]  # logged as sent
    assert status == 200 and ctype == "text/event-stream"
    events = _events(raw)
    assert all(name == data["type"] for name, data in events)
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
    names = [n for n, _ in events]
    assert names[:2] == ["response.created", "response.in_progress"] and names[-1] == "response.completed"
    assert names[2:-1] == [
        "response.output_item.added", "response.content_part.added", "response.output_text.delta",
        "response.output_text.delta", "response.output_text.done", "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.delta",
        "response.function_call_arguments.delta", "response.function_call_arguments.done",
        "response.output_item.done"]
    assert events[0][1]["response"]["status"] == "in_progress" and events[0][1]["response"]["output"] == []
    text = "".join(d["delta"] for n, d in events if n == "response.output_text.delta")
    args = "".join(d["delta"] for n, d in events if n == "response.function_call_arguments.delta")
    assert text == "Running it." and json.loads(args) == {"cmd": "git checkout -b feature/x"}
    final = events[-1][1]["response"]
    assert final["status"] == "completed" and final["usage"]["total_tokens"] >= 2
    message, call = final["output"]
    assert message["content"][0]["text"] == "Running it."
    assert call["type"] == "function_call" and call["name"] == "exec_command" and call["call_id"].startswith("call_")
    assert [d["item"] for n, d in events if n == "response.output_item.done"] == final["output"]


def test_the_turn_after_a_tool_output_ends_and_mcp_tools_are_called_with_their_namespace():
    after = {"input": [_user("create the branch x"),
                       {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
                       {"type": "function_call_output", "call_id": "c1", "output": "ok"}], "tools": [SHELL]}
    assert scripted_model(after) == [{"type": "text", "text": "Done: the command ran."}]
    (call,) = scripted_model({"input": [_user("please call the tool ctx_search")], "tools": [SHELL, MCP]})
    assert call["name"] == "ctx_search" and call["namespace"] == "mcp__agentctx"
    assert scripted_model({"input": "hello", "tools": []}) == [{"type": "text", "text": "OK."}]
    # a branch request without the shell tool offered gets no call
    assert scripted_model({"input": [_user("create the branch x")], "tools": []}) == [{"type": "text", "text": "OK."}]


def test_a_plain_request_gets_one_response_object_and_errors_use_the_api_shape():
    with ResponsesStandIn() as api:
        status, ctype, raw = _post(api.base_url, {"model": "m", "input": "hello"})
        assert status == 200 and ctype == "application/json"
        answer = json.loads(raw)
        assert answer["object"] == "response" and answer["output"][0]["content"][0]["text"] == "OK."
        status, _, raw = _post(api.base_url, {"model": "m"})
        assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
        status, _, raw = _post(api.base_url, {"model": "m", "input": "x"}, path="/chat/completions")
        assert status == 404 and json.loads(raw)["error"]["code"] == "not_found"
        assert [p for _, p, _, _ in api.requests] == ["/v1/responses", "/v1/responses", "/v1/chat/completions"]


def test_a_freeform_tool_call_streams_its_raw_input():
    def patch(body: dict) -> list[dict]:
        return [{"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}]

    with ResponsesStandIn(patch) as api:
        _, _, raw = _post(api.base_url, {"stream": True, "input": "x"})
    events = _events(raw)
    names = [n for n, _ in events]
    assert names[2:-1] == ["response.output_item.added", "response.custom_tool_call_input.delta",
                           "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
                           "response.output_item.done"]
    (item,) = events[-1][1]["response"]["output"]
    assert item["type"] == "custom_tool_call" and item["input"] == "*** Begin Patch\n*** End Patch\n"
    assert "".join(d["delta"] for n, d in events if n.endswith("input.delta")) == item["input"]
