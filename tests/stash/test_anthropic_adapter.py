"""Tests for the duck-typed anthropic messages.create adapter.

Contract under test: replay returns the type the live call returned (an SDK model when the live call returned
one and the SDK is importable, else a ``Response`` dict), whatever else the process has imported. Each test
sets up the SDK state it needs (loaded, or hidden from imports), so no test depends on test order.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.stash import StashError, create_stash, load_stash, wrap_anthropic
from agentctx.stash.anthropic_adapter import SDK_TYPE_KEY, Response, _rebuild

RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-x",
    "content": [{"type": "text", "text": "hello"}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 0},
}
REQUEST = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


class FakeMessages:
    def __init__(self, response):
        self.response = response
        self.calls = []

    def create(self, **kwargs):
        self.calls.append(kwargs)
        return self.response


class AsyncMessages(FakeMessages):
    async def create(self, **kwargs):
        self.calls.append(kwargs)
        return self.response


class FakeClient:
    def __init__(self, response=None, messages=FakeMessages):
        self.messages = messages(dict(RESPONSE) if response is None else response)
        self.api_key = "sk-ant-secret"


def hide_sdk(monkeypatch):
    """Make `anthropic` unimportable for the rest of the test, as in a process without the SDK installed."""
    for name in [n for n in sys.modules if n == "anthropic" or n.startswith("anthropic.")] + ["anthropic"]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError):
        __import__("anthropic.types")


def set_sdk(state, monkeypatch):
    if state == "loaded":
        pytest.importorskip("anthropic")  # loaded before the adapter runs: the situation of the original bug
    else:
        hide_sdk(monkeypatch)


def sdk_message():
    anthropic = pytest.importorskip("anthropic")
    return anthropic.types.Message.model_validate(RESPONSE)


@pytest.mark.parametrize("sdk", ["loaded", "hidden"])
def test_records_and_replays_with_usage(sdk, monkeypatch):
    # The live client returns a plain dict: record and replay both return a Response, SDK loaded or not.
    set_sdk(sdk, monkeypatch)
    stash = create_stash()
    client = wrap_anthropic(stash, FakeClient())
    response = client.messages.create(**REQUEST)
    assert type(response) is Response and response == RESPONSE
    assert response.content[0].text == "hello" and response.usage.input_tokens == 12
    assert client.api_key == "sk-ant-secret"
    event = stash.recording().events[0]
    assert (event.channel, event.key, event.label) == ("llm", "messages.create", "claude-x")
    assert stash.recording().blob(event.ref) == RESPONSE  # stored as is: no type tag for a dict
    live = FakeClient()
    replayed = wrap_anthropic(load_stash(stash.save()), live).messages.create(**REQUEST)
    assert type(replayed) is Response and isinstance(replayed, dict) and replayed == RESPONSE
    assert replayed.usage.output_tokens == 3 and replayed["usage"]["input_tokens"] == 12
    assert live.messages.calls == []
    assert replayed.model_dump()["id"] == "msg_1"


@pytest.mark.parametrize("sdk_on_replay", ["loaded", "hidden"])
def test_sdk_response_replays_as_the_sdk_model(sdk_on_replay, monkeypatch):
    message = sdk_message()
    stash = create_stash()
    response = wrap_anthropic(stash, FakeClient(message)).messages.create(**REQUEST)
    assert response is message  # record mode hands back the live object itself
    event = stash.recording().events[0]
    stored = stash.recording().blob(event.ref)
    assert stored[SDK_TYPE_KEY] == "anthropic.types.message:Message"
    assert stored["usage"]["input_tokens"] == 12
    text = stash.save()
    set_sdk(sdk_on_replay, monkeypatch)
    replayed = wrap_anthropic(load_stash(text), None).messages.create(**REQUEST)
    if sdk_on_replay == "loaded":
        assert type(replayed) is type(message) and replayed == message
        assert replayed.content[0].text == "hello" and replayed.usage.input_tokens == 12
    else:  # the SDK cannot be imported: the same data, as a Response, without the tag
        assert type(replayed) is Response and SDK_TYPE_KEY not in replayed
        assert replayed.content[0].text == "hello" and replayed["usage"]["input_tokens"] == 12


def test_sdk_model_is_rebuilt_even_when_the_sdk_is_not_yet_imported(tmp_path):
    # A fresh interpreter that has not imported anthropic: replay imports the recorded class itself.
    message = sdk_message()
    stash = create_stash()
    wrap_anthropic(stash, FakeClient(message)).messages.create(**REQUEST)
    (tmp_path / "rec.json").write_text(stash.save())
    script = (
        "import sys, json\n"
        "from agentctx.stash import load_stash, wrap_anthropic\n"
        "assert 'anthropic' not in sys.modules\n"
        f"stash = load_stash(open({str(tmp_path / 'rec.json')!r}).read())\n"
        f"r = wrap_anthropic(stash, None).messages.create(**{REQUEST!r})\n"
        "print(type(r).__module__, type(r).__qualname__, r.usage.output_tokens)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["anthropic.types.message", "Message", "3"]


def test_type_tag_outside_the_sdk_is_ignored():
    for tag in ("os:getcwd", "anthropic.types.message:NoSuchClass", 42):
        replayed = _rebuild(dict(RESPONSE, **{SDK_TYPE_KEY: tag}))
        assert type(replayed) is Response and replayed == RESPONSE


def test_changed_prompt_diverges():
    stash = create_stash()
    wrap_anthropic(stash, FakeClient()).messages.create(**REQUEST)
    changed = dict(REQUEST, messages=[{"role": "user", "content": "bye"}])
    with pytest.raises(StashError) as info:
        wrap_anthropic(load_stash(stash.save()), None).messages.create(**changed)
    assert info.value.code == "ERR_DIVERGENCE"


def test_async_client():
    stash = create_stash()
    response = asyncio.run(wrap_anthropic(stash, FakeClient(messages=AsyncMessages)).messages.create(**REQUEST))
    assert type(response) is Response and response.usage.input_tokens == 12
    live = FakeClient(messages=AsyncMessages)
    replayed = asyncio.run(wrap_anthropic(load_stash(stash.save()), live).messages.create(**REQUEST))
    assert type(replayed) is Response and replayed == RESPONSE and live.messages.calls == []


def test_async_client_with_sdk_response():
    message = sdk_message()
    client = FakeClient(message, messages=AsyncMessages)
    stash = create_stash()
    assert asyncio.run(wrap_anthropic(stash, client).messages.create(**REQUEST)) is message
    live = FakeClient(message, messages=AsyncMessages)
    replayed = asyncio.run(wrap_anthropic(load_stash(stash.save()), live).messages.create(**REQUEST))
    assert type(replayed) is type(message) and replayed == message and replayed is not message
    assert live.messages.calls == []


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
