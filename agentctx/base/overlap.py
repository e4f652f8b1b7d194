"""Do two texts say the same thing? Lexical overlap of their stemmed content words, and the differences that make
two similar sentences say different things (a negation, another number, another value). Shared by consolidation's
near-duplicate merge and anything that must not propose what is already said."""

from __future__ import annotations

import re

from .text import STOPWORDS, porter_stem, tokens

# Negation words, as `tokens` splits them ("don't" -> "don", "t").
NEGATIONS = frozenset("not no never nor none cannot without avoid avoids stop stopped disable disabled forbid "
                      "forbidden don doesn didn isn aren wasn weren shouldn mustn won can't dont doesnt".split())
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*(?:\s?(?:%|ms|s|m|h|d|kb|mb|gb|k))?(?![\w.])", re.I)
# A value: something in backticks or quotes, a version, a dotted or snake/kebab name, a flag.
_VALUE = re.compile(r"`([^`]{1,80})`|\"([^\"]{1,80})\"|(?<![\w-])(--?[a-z][\w-]*|[\w]+(?:[._/-][\w]+)+)(?![\w-])", re.I)

SAME_AT_LEAST = 0.75  # Jaccard of stemmed content words at or above which two texts are candidates (fitted: see docs)
CONTAINED_AT_LEAST = 0.85  # ...or the shorter's words at least this much inside the longer's, and Jaccard >= 0.5


def terms(text: str) -> frozenset[str]:
    """Stemmed content words: no stopwords, no numbers (compared apart), no one-letter noise."""
    return frozenset(porter_stem(t) for t in tokens(text)
                     if t not in STOPWORDS and not t.isdigit() and len(t) > 1 and t not in NEGATIONS)


def numbers(text: str) -> frozenset[str]:
    return frozenset(" ".join(m.group(0).lower().replace(",", "").split()) for m in _NUMBER.finditer(text))


def values(text: str) -> frozenset[str]:
    out = set()
    for m in _VALUE.finditer(text):
        value = next(g for g in m.groups() if g)
        out.add(value.strip().lower())
    return frozenset(out)


def negated(text: str) -> bool:
    return any(t in NEGATIONS for t in tokens(text.replace("n't", " not")))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard of two term sets (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def containment(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def differ(a: str, b: str) -> str | None:
    """Why two similar texts say different things, or None: one negates what the other states, they give other
    numbers, or each names a value the other does not (`ruff` where the other says `black`)."""
    if negated(a) != negated(b):
        return "negation"
    na, nb = numbers(a), numbers(b)
    if (na or nb) and na != nb:
        return "numbers"
    va, vb = values(a), values(b)
    if va - vb and vb - va:
        return "values"
    return None


def same_fact(a: str, b: str) -> tuple[bool, float, str | None]:
    """(says the same thing, similarity, why not when it is similar but differs): high word overlap (Jaccard at
    least SAME_AT_LEAST, or one inside the other) and no negation, number or value that sets them apart."""
    ta, tb = terms(a), terms(b)
    sim = similarity(ta, tb)
    close = sim >= SAME_AT_LEAST or (sim >= 0.5 and containment(ta, tb) >= CONTAINED_AT_LEAST)
    if not close:
        return False, sim, None
    why = differ(a, b)
    return why is None, sim, why
