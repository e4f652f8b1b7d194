"""Whether one statement already says another in other words: stemmed content-word overlap, aware of negation.

"Use pytest for all tests; never unittest." already says "Tests are written with pytest, not unittest": the second
one's content stems (test, pytest, unittest) are all in the first, and both negate unittest. It does not say "Use
unittest for tests, not pytest" (the same words, opposite polarity), nor "Use pytest with xdist for parallel runs"
(words it lacks), nor "Tests run on Python 3.12" when it says 3.11 (a number it lacks). Deterministic: no model.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..base import text

# A statement is already said when this share of its content stems is in the other one (and at least MIN_SHARED).
COVERS = 0.75
MIN_SHARED = 2

# Words that make the next content words of their clause (SCOPE) what is not done ("do not use X", "X instead of
# Y" -> Y, "prefer X over Y" -> Y), or, with none after them, the one before ("unittest is not used"); an adverb
# later in the clause takes the negation alone ("never call the provider synchronously": the manner, not the call). Contractions split as
# unicode61 splits them: "don't" -> "don", "t".
NEGATORS = frozenset("not no never don doesn didn isn aren wasn weren shouldn mustn won cannot t avoid avoids "
                     "avoiding without instead rather over nor neither none nothing".split())
# Two statements oppose when at least this many shared words are negated in one and affirmed in the other, more
# than they negate alike ("no unittest classes" / "no test classes" share the negated "classes").
OPPOSED_MIN = 2
# How many content words after a negator it covers: "no unittest classes", "never plain python".
SCOPE = 2
# Emphasis and wording that changes no fact ("always use", "are written with", "exclusively").
FILLER = frozenset("always written write writes wrote add adds added prefer prefers preferred directly exclusively"
                   .split())
# Where a negation's reach ends: clause punctuation, brackets, dashes between words, "but".
_CLAUSE = re.compile(r"[,;:!?()\[\]{}—–\n]|\.(?=\s|$)|\s-\s|\bbut\b", re.I)


class Statement(NamedTuple):
    """A statement's content stems, the stems it says are not done, and its numbers."""

    stems: frozenset[str]
    negated: frozenset[str]
    affirmed: frozenset[str]
    numbers: frozenset[str]


def statement(value: str) -> Statement:
    """The stems of `value`, each marked affirmed or negated by the clause it is in."""
    stems: set[str] = set()
    negated: set[str] = set()
    affirmed: set[str] = set()
    numbers: set[str] = set()
    for clause in _CLAUSE.split(value):
        words = text.tokens(clause)
        kept = [w for w in words if w in NEGATORS or not (w in text.STOPWORDS or w in FILLER
                                                          or (len(w) < 2 and not w.isdigit()))]
        content: list[tuple[str, bool]] = []
        reach = 0  # content words the last negator still covers
        for i, word in enumerate(kept):
            if word in NEGATORS:
                after = [w for w in kept[i + 1:] if w not in NEGATORS]
                if not after:  # "unittest is not used": the word before
                    if content:
                        content[-1] = (content[-1][0], True)
                    continue
                # "never call the provider synchronously": the manner is what is negated, not the call
                adverb = next((w for w in after if len(w) >= 6 and w.endswith("ly")), None)
                reach = -1 if adverb else SCOPE
                continue
            negated_here = (reach == -1 and len(word) >= 6 and word.endswith("ly")) or reach > 0
            content.append((word, negated_here))
            if reach > 0:
                reach -= 1
            elif negated_here:
                reach = 0
            if word.isdigit():
                numbers.add(word.lstrip("0") or "0")
        for (word, neg), stem in zip(content, text.stems([w for w, _ in content])):
            stems.add(stem)
            (negated if neg else affirmed).add(stem)
    return Statement(frozenset(stems), frozenset(negated), frozenset(affirmed), frozenset(numbers))


def _opposed(a: Statement, b: Statement, stem: str) -> bool:
    """One says the stem is done and never that it is not; the other only that it is not."""
    a_neg, b_neg = stem in a.negated and stem not in a.affirmed, stem in b.negated and stem not in b.affirmed
    a_pos, b_pos = stem in a.affirmed and stem not in a.negated, stem in b.affirmed and stem not in b.negated
    return (a_neg and b_pos) or (a_pos and b_neg)


def opposes(known: "Statement | str", new: "Statement | str") -> bool:
    """Whether the two say shared things the opposite way ("use pytest, never unittest" / "use unittest, not
    pytest"): OPPOSED_MIN words or more, and more than they negate alike."""
    known = statement(known) if isinstance(known, str) else known
    new = statement(new) if isinstance(new, str) else new
    shared = new.stems & known.stems
    opposed = sum(1 for stem in shared if _opposed(known, new, stem))
    alike = len(shared & new.negated & known.negated)
    return opposed >= OPPOSED_MIN and opposed > alike


def says(known: "Statement | str", new: "Statement | str") -> bool:
    """Whether `known` already says what `new` says: most of its content, none of it reversed, all its numbers."""
    known = statement(known) if isinstance(known, str) else known
    new = statement(new) if isinstance(new, str) else new
    if len(new.stems) < MIN_SHARED or not new.numbers <= known.numbers:
        return False
    shared = new.stems & known.stems
    if len(shared) < MIN_SHARED or len(shared) < COVERS * len(new.stems):
        return False
    return not any(_opposed(known, new, stem) for stem in shared)
