"""Tests for the duck-typed anthropic messages.create adapter."""

from __future__ import annotations

import asyncio

import pytest

from agentctx.stash import StashError, create_stash, load_stash, wrap_anthropic

RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "hello"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 0},
}


class FakeMessage(dict):
    def model_dump(self, mode="python"):
        return dict(self)


class FakeMessages:
    def __init__(self):
        self.calls = []

    def create(self, **kwargs):
        self.calls.append(kwargs)
        return FakeMessage(RESPONSE)


class FakeClient:
    def __init__(self):
        self.messages = FakeMessages()
        self.api_key = "sk-ant-secret"


class AsyncMessages(FakeMessages):
    async def create(self, **kwargs):
        self.calls.append(kwargs)
        return FakeMessage(RESPONSE)


REQUEST = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


def test_records_and_replays_with_usage():
    stash = create_stash()
    client = wrap_anthropic(stash, FakeClient())
    response = client.messages.create(**REQUEST)
    assert response.content[0].text == "hello" and response.usage.input_tokens == 12
    assert client.api_key == "sk-ant-secret"
    event = stash.recording().events[0]
    assert (event.channel, event.key, event.label) == ("llm", "messages.create", "claude-x")
    live = FakeClient()
    replayed = wrap_anthropic(load_stash(stash.save()), live).messages.create(**REQUEST)
    assert replayed.usage.output_tokens == 3 and replayed["usage"]["input_tokens"] == 12
    assert live.messages.calls == []
    assert replayed.model_dump()["id"] == "msg_1"


def test_changed_prompt_diverges():
    stash = create_stash()
    wrap_anthropic(stash, FakeClient()).messages.create(**REQUEST)
    changed = dict(REQUEST, messages=[{"role": "user", "content": "bye"}])
    with pytest.raises(StashError) as info:
        wrap_anthropic(load_stash(stash.save()), None).messages.create(**changed)
    assert info.value.code == "ERR_DIVERGENCE"


def test_async_client():
    client = FakeClient()
    client.messages = AsyncMessages()
    stash = create_stash()
    response = asyncio.run(wrap_anthropic(stash, client).messages.create(**REQUEST))
    assert response.usage.input_tokens == 12


def test_stream_is_refused_and_record_needs_client():
    with pytest.raises(StashError):
        wrap_anthropic(create_stash(), FakeClient()).messages.create(stream=True, **REQUEST)
    with pytest.raises(StashError):
        wrap_anthropic(create_stash(), None)


def test_scrubbed_request_still_matches_on_replay():
    stash = create_stash(scrub_secrets=True)
    request = dict(REQUEST, messages=[{"role": "user", "content": "my key is sk-ant-api03-abcdefghijklmnop"}])
    wrap_anthropic(stash, FakeClient()).messages.create(**request)
    text = stash.save()
    assert "abcdefghijklmnop" not in text
    replay = load_stash(text, scrub_secrets=True)
    assert wrap_anthropic(replay, None).messages.create(**request).content[0].text == "hello"
