"""Ready-made interceptors: deterministic clock, seeded random, function wrappers and the MCP bridge."""

from __future__ import annotations

import functools
import inspect
import random as _random
import secrets
import time
from typing import Any, Awaitable, Callable, Optional, TypeVar

from .facade import Stash

__all__ = [
    "DeterministicClock",
    "McpClientProxy",
    "SeededRandom",
    "create_deterministic_clock",
    "create_seeded_random",
    "intercept_mcp_client",
    "record_mcp_tool",
    "to_plain",
    "wrap",
    "wrap_sync",
]

T = TypeVar("T")


class DeterministicClock:
    """A clock whose readings are recorded, then served back on replay."""

    def __init__(self, stash: Stash, source: Callable[[], float], key: str) -> None:
        self._stash, self._source, self._key = stash, source, key

    def now(self) -> float:
        """The next reading: the live source when recording, the recorded reading on replay."""
        return self._stash.intercept("clock", self._key, self._source)

    __call__ = now


def create_deterministic_clock(
    stash: Stash, source: Optional[Callable[[], float]] = None, key: str = "now"
) -> DeterministicClock:
    """A clock over ``source`` (default ``time.time``) recorded on channel ``clock``."""
    return DeterministicClock(stash, source or time.time, key)


class SeededRandom(_random.Random):
    """A :class:`random.Random` whose seed is recorded, so replay yields the same sequence."""

    seed_value: int


def create_seeded_random(stash: Stash, seed: Optional[int] = None, key: str = "seed") -> SeededRandom:
    """A seeded generator; the seed (given or drawn from ``secrets``) is recorded on channel ``random``."""
    chosen = stash.intercept("random", key, lambda: seed if seed is not None else secrets.randbits(63))
    generator = SeededRandom(chosen)
    generator.seed_value = chosen
    return generator


def to_plain(value: Any) -> Any:
    """Turn SDK objects into JSON data: ``model_dump(mode="json")`` for pydantic-style models, else as is."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    return value


def _call_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return {"args": list(args), "kwargs": kwargs} if args or kwargs else None


def wrap(
    stash: Stash, channel: str, key: str, fn: Callable[..., Awaitable[T]], *, with_input: bool = True
) -> Callable[..., Awaitable[T]]:
    """An async function that records/replays ``fn``; its arguments are the call's input when ``with_input``."""

    @functools.wraps(fn)
    async def wrapped(*args: Any, **kwargs: Any) -> T:
        return await stash.aintercept(
            channel, key, lambda: fn(*args, **kwargs), input=_call_input(args, kwargs) if with_input else None
        )

    return wrapped


def wrap_sync(
    stash: Stash, channel: str, key: str, fn: Callable[..., T], *, with_input: bool = True
) -> Callable[..., T]:
    """The synchronous counterpart of :func:`wrap`."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        return stash.intercept(
            channel, key, lambda: fn(*args, **kwargs), input=_call_input(args, kwargs) if with_input else None
        )

    return wrapped


class McpClientProxy:
    """Wraps any object with ``call_tool(name, arguments)``; other attributes pass through untouched."""

    def __init__(
        self, stash: Stash, client: Any, decode: Optional[Callable[[Any], Any]] = None, channel: str = "mcp"
    ) -> None:
        self._stash, self._client, self._decode, self._channel = stash, client, decode, channel
        self._is_async = inspect.iscoroutinefunction(getattr(client, "call_tool", None))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def call_tool(self, name: str, arguments: Optional[dict[str, Any]] = None, **kwargs: Any) -> Any:
        """Record or replay one tool call on channel ``mcp`` with key = tool name and input = arguments."""
        args = arguments if arguments is not None else {}
        decode = self._decode or (lambda value: value)
        if self._is_async:

            async def produce_async() -> Any:
                return to_plain(await self._client.call_tool(name, arguments, **kwargs))

            async def run() -> Any:
                return decode(await self._stash.aintercept(self._channel, name, produce_async, input=args))

            return run()
        produced = self._stash.intercept(
            self._channel, name, lambda: to_plain(self._client.call_tool(name, arguments, **kwargs)), input=args
        )
        return decode(produced)


def intercept_mcp_client(stash: Stash, client: Any, *, decode: Optional[Callable[[Any], Any]] = None) -> Any:
    """Wrap a duck-typed MCP client (sync or async ``call_tool``); results are stored as plain JSON and
    passed through ``decode`` (e.g. ``CallToolResult.model_validate``) on the way out."""
    return McpClientProxy(stash, client, decode)


def record_mcp_tool(stash: Stash, name: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a server-side MCP tool handler so its results are recorded under ``mcp/<name>``."""

    def call_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            return args[0]
        return _call_input(args, kwargs) or {}

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            return await stash.aintercept(
                "mcp", name, lambda: _plain_async(handler(*args, **kwargs)), input=call_input(args, kwargs)
            )

        return wrapped_async

    @functools.wraps(handler)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return stash.intercept("mcp", name, lambda: to_plain(handler(*args, **kwargs)), input=call_input(args, kwargs))

    return wrapped


async def _plain_async(awaitable: Awaitable[Any]) -> Any:
    return to_plain(await awaitable)
