"""The stand-in speaks the documented streaming format (vendor-notes/messages-api-standin.md), checked with a raw
SSE reader and, when the [llm] extra is installed, with the real `anthropic` SDK's stream accumulator."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from messages_standin import MessagesStandIn

BRANCH_PROMPT = {"role": "user", "content": [{"type": "text", "text": "please create the branch feature/x now"}]}
BASH = {"name": "Bash", "description": "run a command", "input_schema": {"type": "object"}}


def _post(url: str, body: dict, path: str = "/v1/messages?beta=true") -> tuple[int, str, str]:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", "x-api-key": "k"})
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


def test_a_streamed_tool_call_follows_the_documented_event_order():
    with MessagesStandIn() as api:
        status, ctype, raw = _post(api.base_url, {"model": "m", "max_tokens": 10, "stream": True,
                                                  "messages": [BRANCH_PROMPT], "tools": [BASH]})
    assert status == 200 and ctype == "text/event-stream"
    events = _events(raw)
    assert all(name == data["type"] for name, data in events)
    names = [n for n, _ in events if n != "ping"]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names[1:-2] == ["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"] * 2
    start = events[0][1]["message"]
    assert start["content"] == [] and start["stop_reason"] is None
    tool_start = [d for n, d in events if n == "content_block_start"][1]
    assert tool_start["index"] == 1 and tool_start["content_block"]["type"] == "tool_use"
    partial = "".join(d["delta"]["partial_json"] for n, d in events
                      if n == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
    assert json.loads(partial)["command"] == "git checkout -b feature/x"
    assert [d for n, d in events if n == "message_delta"][0]["delta"]["stop_reason"] == "tool_use"
    assert api.message_bodies()[0]["messages"] == [BRANCH_PROMPT]  # logged as sent


def test_errors_use_the_api_error_shape():
    with MessagesStandIn() as api:
        status, _, raw = _post(api.base_url, {"model": "m"})
        assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
        status, _, raw = _post(api.base_url, {"model": "m"}, path="/v1/complete")
        assert status == 404 and json.loads(raw)["type"] == "error"
        status, _, raw = _post(api.base_url, {"model": "m", "messages": []}, path="/v1/messages/count_tokens")
        assert status == 200 and json.loads(raw)["input_tokens"] >= 1


def test_the_real_anthropic_sdk_accumulates_the_stream():
    anthropic = pytest.importorskip("anthropic")
    with MessagesStandIn() as api:
        client = anthropic.Anthropic(base_url=api.base_url, api_key="sk-standin", max_retries=0)
        with client.messages.stream(model="claude-standin", max_tokens=50, messages=[BRANCH_PROMPT],
                                    tools=[BASH]) as stream:
            final = stream.get_final_message()
        assert final.stop_reason == "tool_use"
        assert final.content[0].text == "Running it."
        assert final.content[1].name == "Bash" and final.content[1].input["command"] == "git checkout -b feature/x"
        plain = client.messages.create(model="claude-standin", max_tokens=50,
                                       messages=[{"role": "user", "content": "hello"}])
        assert plain.content[0].text == "OK." and plain.stop_reason == "end_turn"
