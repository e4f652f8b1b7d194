"""Record and replay an ``anthropic`` client's ``messages.create`` (duck-typed; the SDK is never required).

Contract: replay returns the same type the live call returned.

- The live call returned an SDK model (a class from the ``anthropic`` package, e.g. ``anthropic.types.Message``):
  record mode returns that object; the stored value is its ``model_dump(mode="json")`` plus the class's import
  path under ``"__stash_sdk_type__"``; replay imports that class and returns ``Class.model_validate(data)``.
  If the SDK cannot be imported on replay (or the data no longer validates), replay falls back to a ``Response``.
- Anything else (a dict, or another object with ``model_dump``): the plain data is stored, and record and replay
  both return a ``Response``, a ``dict`` that also allows ``resp.usage.input_tokens``.

What comes back never depends on whether something else in the process happened to import ``anthropic``.
Recordings made before the type was stored carry no ``"__stash_sdk_type__"`` and replay as a ``Response``.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Optional

from .errors import StashError
from .facade import Stash
from .interceptors import to_plain

__all__ = ["SDK_TYPE_KEY", "Response", "wrap_anthropic"]

SDK_TYPE_KEY = "__stash_sdk_type__"
"""Key added to a stored response that came from an SDK model: ``"anthropic.types.message:Message"``."""


class Response(dict):  # type: ignore[type-arg]
    """A response that was a dict when recorded (or whose SDK class is unavailable on replay): a dict that also
    allows ``resp.usage.input_tokens``."""

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


def _is_sdk_model(value: Any) -> bool:
    module = getattr(type(value), "__module__", "") or ""
    return (module == "anthropic" or module.startswith("anthropic.")) and callable(
        getattr(value, "model_dump", None)
    )


def _stored(response: Any) -> Any:
    """What is recorded for a live response: its JSON data, tagged with its class when it is an SDK model."""
    data = to_plain(response)
    if isinstance(data, dict) and _is_sdk_model(response):
        cls = type(response)
        data = {**data, SDK_TYPE_KEY: f"{cls.__module__}:{cls.__qualname__}"}
    return data


def _sdk_class(path: Any) -> Optional[Any]:
    # Only classes of the anthropic package are ever looked up; importing it is the caller's SDK, not ours.
    if not isinstance(path, str):
        return None
    module_name, _, qualname = path.partition(":")
    if not (module_name == "anthropic" or module_name.startswith("anthropic.")) or not qualname:
        return None
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found if callable(getattr(found, "model_validate", None)) else None


def _rebuild(data: Any) -> Any:
    """The replayed response: the recorded SDK class when there is one and it is importable, else a Response."""
    if isinstance(data, dict) and SDK_TYPE_KEY in data:
        data = dict(data)
        model = _sdk_class(data.pop(SDK_TYPE_KEY))
        if model is not None:
            try:
                return model.model_validate(data)
            except Exception:  # noqa: BLE001 - a newer/older SDK that rejects the data: fall back to plain data
                pass
    return _attrs(data)


def _returned(live: list[Any], data: Any) -> Any:
    # A live call that returned an SDK model hands back that very object; everything else is rebuilt from the
    # stored data exactly as replay will rebuild it, so record and replay return the same type.
    if live and _is_sdk_model(live[0]):
        return live[0]
    return _rebuild(data)


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
        live: list[Any] = []  # the live response, when this call runs live (record mode or a replay's live tail)
        if self._is_async:

            async def produce_async() -> Any:
                live.append(await self._messages.create(**kwargs))
                return _stored(live[0])

            async def run() -> Any:
                data = await self._stash.aintercept(self._channel, self._key, produce_async, input=kwargs, label=label)
                return _returned(live, data)

            return run()

        def produce() -> Any:
            live.append(self._messages.create(**kwargs))
            return _stored(live[0])

        data = self._stash.intercept(self._channel, self._key, produce, input=kwargs, label=label)
        return _returned(live, data)


class _Client:
    def __init__(self, stash: Stash, client: Any, channel: str, key: str) -> None:
        self._client = client
        self.messages = _Messages(stash, client.messages, channel, key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def wrap_anthropic(stash: Stash, client: Any, *, channel: str = "llm", key: str = "messages.create") -> Any:
    """A client whose ``messages.create(**kwargs)`` is recorded/replayed on ``llm/messages.create``.

    The request kwargs are the call's input (so a changed prompt is a divergence); the response is stored
    as ``model_dump(mode="json")``, usage fields included. Replay returns the type the live call returned: the
    SDK model (``anthropic.types.Message``) when it returned one and the SDK is importable, else a
    :class:`Response` dict with attribute access (see the module docstring). Works with the sync and the async
    client; ``stream=True`` raises ``ERR_INVALID_INPUT`` rather than bypassing the stash."""
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
