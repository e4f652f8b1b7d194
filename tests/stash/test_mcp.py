"""Tests for the duck-typed MCP bridge."""

from __future__ import annotations

import asyncio

import pytest

from agentctx.stash import StashError, create_stash, intercept_mcp_client, load_stash, record_mcp_tool


class FakeResult:
    def __init__(self, text):
        self.text = text

    def model_dump(self, mode="python"):
        return {"content": [{"type": "text", "text": self.text}], "isError": False}


class SyncClient:
    def __init__(self):
        self.calls = 0
        self.server_name = "fake"

    def call_tool(self, name, arguments=None):
        self.calls += 1
        return FakeResult(f"{name}:{arguments['q']}")


class AsyncClient(SyncClient):
    async def call_tool(self, name, arguments=None):
        self.calls += 1
        return FakeResult(f"{name}:{arguments['q']}")


def test_sync_client_records_and_replays_without_calling():
    stash = create_stash()
    client = intercept_mcp_client(stash, SyncClient())
    result = client.call_tool("search", {"q": "cats"})
    assert result["content"][0]["text"] == "search:cats"
    assert client.server_name == "fake"
    event = stash.recording().events[0]
    assert (event.channel, event.key) == ("mcp", "search") and event.input_ref
    live = SyncClient()
    replayed = intercept_mcp_client(load_stash(stash.save()), live)
    assert replayed.call_tool("search", {"q": "cats"}) == result and live.calls == 0
    with pytest.raises(StashError) as info:
        intercept_mcp_client(load_stash(stash.save()), live).call_tool("search", {"q": "dogs"})
    assert info.value.code == "ERR_DIVERGENCE"


def test_async_client_with_decode():
    stash = create_stash()
    client = intercept_mcp_client(stash, AsyncClient(), decode=lambda data: data["content"][0]["text"])
    assert asyncio.run(client.call_tool("search", {"q": "x"})) == "search:x"
    live = AsyncClient()
    replayed = intercept_mcp_client(load_stash(stash.save()), live, decode=lambda d: d["content"][0]["text"])
    assert asyncio.run(replayed.call_tool("search", {"q": "x"})) == "search:x" and live.calls == 0


def test_record_mcp_tool_sync_and_async():
    stash = create_stash()
    handler = record_mcp_tool(stash, "add", lambda args: {"sum": args["a"] + args["b"]})

    async def ahandler(args):
        return {"echo": args}

    ahandled = record_mcp_tool(stash, "echo", ahandler)
    assert handler({"a": 1, "b": 2}) == {"sum": 3}
    assert asyncio.run(ahandled({"x": 1})) == {"echo": {"x": 1}}
    replay = load_stash(stash.save())
    assert record_mcp_tool(replay, "add", lambda args: pytest.fail("live"))({"a": 1, "b": 2}) == {"sum": 3}
