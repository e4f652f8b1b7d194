"""Record and replay an ``anthropic`` client's ``messages.create`` (duck-typed; the SDK is never imported)."""

from __future__ import annotations

import inspect
import sys
from typing import Any, Optional

from .errors import StashError
from .facade import Stash
from .interceptors import to_plain

__all__ = ["Response", "wrap_anthropic"]


class Response(dict):  # type: ignore[type-arg]
    """A replayed response when the SDK is not loaded: a dict that also allows ``resp.usage.input_tokens``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return _attrs(self[name])
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The plain data, mirroring the SDK models."""
        return dict(self)


def _attrs(value: Any) -> Any:
    if isinstance(value, dict) and not isinstance(value, Response):
        return Response(value)
    if isinstance(value, list):
        return [_attrs(item) for item in value]
    return value


def _rebuild(data: Any) -> Any:
    # Use the real SDK model only when the caller already imported the SDK; never import it here.
    sdk = sys.modules.get("anthropic")
    message_type = getattr(getattr(sdk, "types", None), "Message", None)
    if message_type is not None and isinstance(data, dict) and data.get("type") == "message":
        try:
            return message_type.model_validate(data)
        except Exception:
            pass
    return _attrs(data)


class _Messages:
    def __init__(self, stash: Stash, messages: Any, channel: str, key: str) -> None:
        self._stash, self._messages, self._channel, self._key = stash, messages, channel, key
        self._is_async = inspect.iscoroutinefunction(getattr(messages, "create", None))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._messages, name)

    def create(self, **kwargs: Any) -> Any:
        if kwargs.get("stream"):
            raise StashError(
                "ERR_INVALID_INPUT", "streaming messages.create is not recorded; call without stream=True"
            )
        label = kwargs.get("model") if isinstance(kwargs.get("model"), str) else None
        if self._is_async:

            async def produce_async() -> Any:
                return to_plain(await self._messages.create(**kwargs))

            async def run() -> Any:
                data = await self._stash.aintercept(self._channel, self._key, produce_async, input=kwargs, label=label)
                return _rebuild(data)

            return run()
        data = self._stash.intercept(
            self._channel, self._key, lambda: to_plain(self._messages.create(**kwargs)), input=kwargs, label=label
        )
        return _rebuild(data)


class _Client:
    def __init__(self, stash: Stash, client: Any, channel: str, key: str) -> None:
        self._client = client
        self.messages = _Messages(stash, client.messages, channel, key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def wrap_anthropic(stash: Stash, client: Any, *, channel: str = "llm", key: str = "messages.create") -> Any:
    """A client whose ``messages.create(**kwargs)`` is recorded/replayed on ``llm/messages.create``.

    The request kwargs are the call's input (so a changed prompt is a divergence); the response is stored
    as ``model_dump(mode="json")``, usage fields included. On replay the SDK's ``Message`` model is rebuilt
    when ``anthropic`` is already imported, else an attribute-access dict is returned. Works with the sync
    and the async client; ``stream=True`` raises ``ERR_INVALID_INPUT`` rather than bypassing the stash."""
    if client is None:
        if stash.mode != "replay":
            raise StashError("ERR_INVALID_INPUT", "a client is required when recording")
        client = _Offline()
    return _Client(stash, client, channel, key)


class _Offline:
    """Stands in for the client on replay-only runs: any live call is an error."""

    class messages:  # noqa: N801 - mirrors the SDK attribute
        @staticmethod
        def create(**_: Any) -> Any:
            raise StashError("ERR_RECORDING_EXHAUSTED", "no live anthropic client in a replay-only stash")
