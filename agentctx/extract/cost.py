"""What an extraction call cost: usage fields from the response times a per-model price table (USD per MTok)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


@dataclass(frozen=True)
class Usage:
    """Token counts of one or more calls (uncached input, output, cache writes by TTL, cache reads)."""

    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    calls: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input + other.input, self.output + other.output, self.cache_write_5m + other.cache_write_5m,
                     self.cache_write_1h + other.cache_write_1h, self.cache_read + other.cache_read,
                     self.calls + other.calls)

    @property
    def sent(self) -> int:
        """Every input token the API processed, cached or not."""
        return self.input + self.cache_write_5m + self.cache_write_1h + self.cache_read


def _p(inp: float, out: float) -> Price:
    # Anthropic's cache multipliers: 5-minute write 1.25x, 1-hour write 2x, read 0.1x of the input price.
    return Price(inp, out, inp * 1.25, inp * 2, inp * 0.1)


# Keyed by model-name prefix; the longest matching prefix wins, so dated snapshots price like their alias.
PRICES: dict[str, Price] = {
    "claude-haiku-4-5": _p(1.0, 5.0),
    "claude-haiku-5-5": Price(0.10, 0.50, 0.125, 0.20, 0.01),
    "claude-3-5-haiku": _p(0.80, 4.0),
    "claude-sonnet-4": _p(3.0, 15.0),
    "claude-opus-4-5": _p(5.0, 25.0),
    "claude-opus-4-6": _p(5.0, 25.0),
}
DEFAULT_MODEL = "claude-haiku-4-5"

# Smallest prefix the API will cache, per model family (below it cache_control is silently ignored).
CACHE_MINIMUM: dict[str, int] = {
    "claude-haiku-4-5": 4096,
    "claude-opus-4-5": 4096,
    "claude-opus-4-6": 4096,
    "claude-3-5-haiku": 2048,
    "claude-sonnet-4": 1024,
}


def _lookup(table: dict[str, Any], model: str) -> Any:
    keys = [k for k in table if model.startswith(k)]
    return table[max(keys, key=len)] if keys else None


def price(model: str) -> tuple[Price, bool]:
    """The model's price and whether it is known; unknown models are priced as the default model."""
    found = _lookup(PRICES, model)
    return (found, True) if found is not None else (PRICES[DEFAULT_MODEL], False)


def cache_minimum(model: str) -> int | None:
    """Minimum cacheable prefix in tokens, or None when unknown (then no breakpoint is set)."""
    return _lookup(CACHE_MINIMUM, model)


def _field(obj: Any, name: str) -> int:
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return int(value) if isinstance(value, (int, float)) else 0


def usage_of(raw: Any) -> Usage:
    """Usage from an SDK `Usage` object or its dict form; absent fields (None) count as 0."""
    if raw is None:
        return Usage(calls=1)
    written = _field(raw, "cache_creation_input_tokens")
    split = raw.get("cache_creation") if isinstance(raw, dict) else getattr(raw, "cache_creation", None)
    w5, w1 = written, 0
    if split is not None:
        s5, s1 = _field(split, "ephemeral_5m_input_tokens"), _field(split, "ephemeral_1h_input_tokens")
        if s5 or s1:
            w5, w1 = s5, s1
    return Usage(_field(raw, "input_tokens"), _field(raw, "output_tokens"), w5, w1,
                 _field(raw, "cache_read_input_tokens"), 1)


def usd(usage: Usage, model: str) -> float:
    p, _ = price(model)
    return (usage.input * p.input + usage.output * p.output + usage.cache_write_5m * p.cache_write_5m
            + usage.cache_write_1h * p.cache_write_1h + usage.cache_read * p.cache_read) / 1e6


def estimate_usd(input_tokens: int, output_tokens: int, model: str) -> float:
    """A dry-run estimate: everything as uncached input."""
    return usd(Usage(input=input_tokens, output=output_tokens), model)
