"""How specific a word is to a subject: rare in general software text (the background corpus) means specific."""

from __future__ import annotations

import math
from bisect import bisect_left

_table: tuple[list[str], bytes, float, float] | None = None


def _load() -> tuple[list[str], bytes, float, float]:
    global _table
    if _table is None:
        from . import background

        _table = (background.STEMS.split("\n"), background.BUCKETS, float(background.N), float(background.SCALE))
    return _table


def weight(stems: list[str]) -> dict[str, float]:
    """Each stem's background idf, ln(N / (1 + df)), in units of a word never seen in the background (0..~1)."""
    words, buckets, n, scale = _load()
    top = math.log(n / 2)
    out: dict[str, float] = {}
    for stem in stems:
        i = bisect_left(words, stem)
        df = math.exp(buckets[i] / scale) if i < len(words) and words[i] == stem else 1.0
        out[stem] = max(0.0, math.log(n / (1 + df))) / top
    return out
