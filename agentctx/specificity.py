"""How specific a word is to a subject: rare in general software text (the background corpus) means specific."""

import math

_table: tuple[str, bytes, float, float] | None = None


def _load() -> tuple[str, bytes, float, float]:
    global _table
    if _table is None:
        from . import background

        # The stem list stays one string: splitting 5,600 lines costs a prompt hook ~0.4 ms, a lookup ~20 µs.
        _table = ("\n" + background.STEMS + "\n", background.BUCKETS, float(background.N), float(background.SCALE))
    return _table


def _find(table: str, stem: str) -> int:
    """The line number of `stem` in the sorted, newline-framed `table`, or -1: a binary search on the string."""
    lo, hi = 0, len(table) - 1  # both are framing newlines; the lines still in play lie between them
    while lo < hi:
        start = table.rfind("\n", lo, (lo + hi) // 2 + 1)  # the newline opening the line at the middle
        end = table.find("\n", start + 1)
        word = table[start + 1:end]
        if word == stem:
            return table.count("\n", 0, start)
        if word < stem:
            lo = end
        else:
            hi = start
    return -1


def weight(stems: list[str]) -> dict[str, float]:
    """Each stem's background idf, ln(N / (1 + df)), in units of a word never seen in the background (0..~1)."""
    table, buckets, n, scale = _load()
    top = math.log(n / 2)
    out: dict[str, float] = {}
    for stem in stems:
        i = _find(table, stem) if "\n" not in stem else -1
        df = math.exp(buckets[i] / scale) if i >= 0 else 1.0
        out[stem] = max(0.0, math.log(n / (1 + df))) / top
    return out
