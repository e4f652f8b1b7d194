"""The Messages API call: the `anthropic` SDK imported lazily, structured output, our own bounded retries, usage."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Literal

from ..base.errors import MissingExtraError
from ..base.tokens import estimate
from . import cost, prompt

OutputMode = Literal["json_schema", "tool"]

TIMEOUT_S = 60.0
MAX_TOKENS = 4096
# Waits before each retry of a 408/409/429/5xx/529 or a connection failure; then the call gives up quietly.
RETRY_DELAYS: tuple[float, ...] = (2.0, 8.0, 20.0)
RETRY_AFTER_CAP_S = 30.0
_RETRY_STATUS = {408, 409, 429}

_fallback: dict[str, OutputMode] = {}  # models that rejected output_config: use the forced tool from then on

# What a call asks the model for: the forced tool's name and description, and the output schema. Extraction's is the
# default; the expansion pass has its own (extract/expand.py).
Contract = tuple[str, str, dict[str, Any]]
EXTRACTION: Contract = (prompt.TOOL_NAME, "Record what was extracted from the transcript.", prompt.SCHEMA)


@dataclass(frozen=True)
class Answer:
    """One call's outcome: the decoded object (None if the call failed or the answer was unusable)."""

    data: dict[str, Any] | None
    usage: cost.Usage
    model: str
    error: str | None = None
    mode: OutputMode = "json_schema"
    cost_usd: float | None = None  # what the backend reported it cost (the Claude Code CLI does); else priced here
    backs_off: bool = False  # a rate limit or a login problem (Claude Code CLI): wait, do not count a failure


def api_key() -> str | None:
    """The key extraction uses: `ANTHROPIC_API_KEY` only (no profile files: a background process must be explicit)."""
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    return key or None


def make(key: str | None = None) -> Any:
    """A client with no SDK-level retries (ours are bounded and testable); `ANTHROPIC_BASE_URL` as the SDK reads it."""
    try:
        import anthropic
    except ImportError:
        raise MissingExtraError("LLM extraction", "llm") from None
    return anthropic.Anthropic(api_key=key or api_key(), max_retries=0, timeout=TIMEOUT_S)


def should_cache(model: str, system: str, mode: OutputMode, calls: int, contract: Contract = EXTRACTION) -> bool:
    """Set a breakpoint only when it can pay: the prefix reaches the model's minimum and several calls share it."""
    minimum = cost.cache_minimum(model)
    prefix = estimate(system) + (estimate(str(contract[2])) if mode == "tool" else 0)
    return minimum is not None and prefix >= minimum and calls >= 2


def request(model: str, system: str, user: str, *, mode: OutputMode, cache: bool,
            contract: Contract = EXTRACTION) -> dict[str, Any]:
    """The `messages.create` keyword arguments (no sampling parameters: SDK 2.x rejects them)."""
    tool, description, schema = contract
    block: dict[str, Any] = {"type": "text", "text": system}
    if cache:
        block["cache_control"] = {"type": "ephemeral"}
    kwargs: dict[str, Any] = {"model": model, "max_tokens": MAX_TOKENS, "system": [block],
                              "messages": [{"role": "user", "content": user}]}
    if mode == "json_schema":
        kwargs["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    else:
        kwargs["tools"] = [{"name": tool, "description": description, "input_schema": schema}]
        kwargs["tool_choice"] = {"type": "tool", "name": tool, "disable_parallel_tool_use": True}
    return kwargs


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _decode(message: Any, mode: OutputMode, tool: str = prompt.TOOL_NAME) -> dict[str, Any] | None:
    from .validate import decode

    for block in _get(message, "content") or []:
        kind = _get(block, "type")
        if mode == "tool" and kind == "tool_use" and _get(block, "name") == tool:
            data = _get(block, "input")
            return dict(data) if isinstance(data, dict) else None
        if kind == "text":
            text = _get(block, "text")
            return decode(text) if isinstance(text, str) else None
    return None


def _status(exc: Exception) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        value = headers.get("retry-after") if headers is not None else None
        return min(float(value), RETRY_AFTER_CAP_S) if value is not None else None
    except (TypeError, ValueError):
        return None


def _retryable(exc: Exception) -> bool:
    if getattr(exc, "backs_off", None) is not None:  # the Claude Code CLI retried already: its errors are final
        return False
    status = _status(exc)
    if status is None:  # connection errors and timeouts carry no status
        return type(exc).__name__ in ("APIConnectionError", "APITimeoutError") or any(
            c.__name__ == "APIConnectionError" for c in type(exc).__mro__)
    return status in _RETRY_STATUS or status >= 500


def _describe(exc: Exception) -> str:
    if getattr(exc, "backs_off", None) is not None:
        return str(exc)
    status = _status(exc)
    return f"{type(exc).__name__} {status}" if status else f"{type(exc).__name__}: {exc}"


def _once(client: Any, kwargs: dict[str, Any], sleep: Any) -> tuple[Any, Exception | None]:
    """(message, None) or (None, the last failure): retries what is worth retrying first."""
    delays = list(RETRY_DELAYS)
    while True:
        try:
            return client.messages.create(**kwargs), None
        except Exception as exc:  # the SDK's errors, plus anything a wrapper (stash) raises
            if not _retryable(exc) or not delays:
                return None, exc
            delay = delays.pop(0)
            after = _retry_after(exc)
            sleep(max(delay, after) if after is not None else delay)


def complete(client: Any, model: str, system: str, user: str, *, calls: int = 1, sleep: Any = None,
             contract: Contract = EXTRACTION) -> Answer:
    """One structured-output call; a model that rejects `output_config` is retried once with a forced tool."""
    sleep = sleep or time.sleep
    mode: OutputMode = _fallback.get(model, "json_schema")
    while True:
        kwargs = request(model, system, user, mode=mode, cache=should_cache(model, system, mode, calls, contract),
                         contract=contract)
        message, failure = _once(client, kwargs, sleep)
        if failure is not None:
            if _status(failure) == 400 and mode == "json_schema":
                _fallback[model] = mode = "tool"
                continue
            return Answer(None, cost.Usage(), model, _describe(failure), mode,
                          backs_off=bool(getattr(failure, "backs_off", False)))
        usage = cost.usage_of(_get(message, "usage"))
        priced = _get(message, "model")
        reported = _get(message, "total_cost_usd")
        data = _decode(message, mode, contract[0])
        return Answer(data, usage, priced if isinstance(priced, str) else model,
                      None if data is not None else "unparseable", mode,
                      cost_usd=float(reported) if isinstance(reported, (int, float)) else None)
