"""Do two texts say the same thing? Lexical overlap of their stemmed content words, and the differences that make
two similar sentences say different things (a negation, another number, another value). Shared by consolidation's
near-duplicate merge and anything that must not propose what is already said."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from ..base.text import STOPWORDS, porter_stem, tokens

# Negation words, as `tokens` splits them ("don't" -> "don", "t").
NEGATIONS = frozenset("not no never nor none cannot without avoid avoids disable disabled forbid "
                      "forbidden don doesn didn isn aren wasn weren shouldn mustn won can't dont doesnt".split())
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:\s?(?:%|ms|s|m|h|d|kb|mb|gb|k)\b)?(?!\w)(?!\.\d)", re.I)
# A value: something in backticks or quotes, a version, a dotted or snake/kebab name, a flag.
_VALUE = re.compile(r"`([^`]{1,80})`|\"([^\"]{1,80})\"|(?<![\w-])(--?[a-z][\w-]*|[\w]+(?:[._/-][\w]+)+)(?![\w-])", re.I)

# Jaccard of stemmed content words at or above which two texts say the same thing; or, when one's words are all in
# the other's (a restatement with more detail), at least SUBSET_AT_LEAST. Checked on adr-dev (bench/duplicates.py).
SAME_AT_LEAST = 0.75
SUBSET_AT_LEAST = 0.5
# Each text has a word or two the other lacks, and otherwise the same words: a value swapped ("black" for "ruff"),
# not a paraphrase. Merging a swap would keep one of two different facts: it is never merged.
SWAP_MOST = 2
EDIT_WORDS = 5


_stem = lru_cache(maxsize=1 << 16)(porter_stem)  # a store repeats its words: each is stemmed once


def terms(text: str) -> frozenset[str]:
    """Stemmed content words: no stopwords, no numbers (compared apart), no one-letter noise."""
    return frozenset(_stem(t) for t in tokens(text)
                     if t not in STOPWORDS and not t.isdigit() and len(t) > 1 and t not in NEGATIONS)


@lru_cache(maxsize=1 << 14)  # a merge pass compares one record with several
def numbers(text: str) -> frozenset[str]:
    return frozenset(" ".join(m.group(0).lower().replace(",", "").split()) for m in _NUMBER.finditer(text))


@lru_cache(maxsize=1 << 14)  # a merge pass compares one record with several
def values(text: str) -> frozenset[str]:
    out = set()
    for m in _VALUE.finditer(text):
        value = next(g for g in m.groups() if g)
        out.add(value.strip().lower())
    return frozenset(out)


@lru_cache(maxsize=1 << 14)  # a merge pass compares one record with several
def negated(text: str) -> tuple[str, ...]:
    """What is negated, each time: the word after each negation ("not" + "expire" -> "expir"), sorted."""
    toks = tokens(text.replace("n't", " not"))
    out = []
    for i, t in enumerate(toks):
        if t in NEGATIONS:
            nxt = next((w for w in toks[i + 1:i + 4] if w not in STOPWORDS and w not in NEGATIONS), "")
            out.append(_stem(nxt))
    return tuple(sorted(out))


@lru_cache(maxsize=1 << 14)  # a merge pass compares one record with several
def _counts(text: str) -> "Counter[str]":
    return Counter(_stem(t) for t in tokens(text) if len(t) > 1 and not t.isdigit() and t not in STOPWORDS)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard of two term sets (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def containment(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def differ(a: str, b: str, ta: frozenset[str] | None = None, tb: frozenset[str] | None = None) -> str | None:
    """Why two similar texts say different things, or None: one negates what the other states, they give other
    numbers, or each names a value the other does not (`ruff` where the other says `black`, in code spans, quotes,
    versions and dotted names, or one plain word swapped for another)."""
    if negated(a) != negated(b):
        return "negation"
    na, nb = numbers(a), numbers(b)
    if (na or nb) and na != nb:
        return "numbers"
    va, vb = values(a), values(b)
    if va - vb and vb - va:
        return "values"
    ta, tb = terms(a) if ta is None else ta, terms(b) if tb is None else tb
    if 0 < len(ta - tb) <= SWAP_MOST and 0 < len(tb - ta) <= SWAP_MOST:
        return "values"
    ca, cb = _counts(a), _counts(b)
    gone, added = ca - cb, cb - ca
    if len(ta | tb) >= EDIT_WORDS and gone and added and len(gone) + len(added) <= SWAP_MOST:
        return "edited"  # the same text with a word swapped for another: an edit says something else
    return None


def same_fact(a: str, b: str, ta: frozenset[str] | None = None,
              tb: frozenset[str] | None = None) -> tuple[bool, float, str | None]:
    """(says the same thing, similarity, why not when it is similar but differs): high word overlap (Jaccard at
    least SAME_AT_LEAST, or one's words all inside the other's) and no negation, number or value that sets them
    apart."""
    ta, tb = terms(a) if ta is None else ta, terms(b) if tb is None else tb
    sim = similarity(ta, tb)
    close = sim >= SAME_AT_LEAST or (sim >= SUBSET_AT_LEAST and (ta <= tb or tb <= ta))
    if not close:
        return False, sim, None
    why = differ(a, b, ta, tb)
    return why is None, sim, why
