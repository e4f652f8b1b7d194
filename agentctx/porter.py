"""The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it, for lower-case ASCII tokens.

The index stems with FTS5; the prompt hook stems the query and scores candidates in Python so that it does not
have to build an in-memory FTS5 table on every prompt. Any difference from FTS5 would make a query term miss
its own records, so this follows FTS5's variant rule for rule (tests compare the two on a large vocabulary):
- tokens shorter than 3 or longer than 64 bytes pass unchanged;
- within a step, the first rule whose suffix ends the word (and is shorter than it) decides, even when its
  condition fails: a longer suffix listed first shadows the shorter ones it contains;
- "y" is a vowel after a consonant when measuring, but in the *v* test of steps 1b and 1c any "y" past the
  first letter counts as a vowel.
"""

MAX_TOKEN = 64
_VOWELS = frozenset("aeiou")


def _consonants(word: str, start: int, end: int, prev_consonant: bool) -> list[bool]:
    """Whether each letter of word[start:end] is a consonant ("y" after a consonant is a vowel)."""
    flags = []
    cons = prev_consonant
    for ch in word[start:end]:
        cons = not (ch in _VOWELS or (ch == "y" and cons))
        flags.append(cons)
    return flags


def _skip_vc(word: str, start: int, end: int, prev_consonant: bool) -> int:
    """The index just past the first vowel-then-consonant run in word[start:end], or 0 when there is none."""
    flags = _consonants(word, start, end, prev_consonant)
    try:
        vowel = flags.index(False)
    except ValueError:
        return 0
    try:
        return start + flags.index(True, vowel + 1) + 1
    except ValueError:
        return 0


def _m_gt0(word: str, end: int) -> bool:
    return _skip_vc(word, 0, end, False) != 0


def _m_gt1(word: str, end: int) -> bool:
    first = _skip_vc(word, 0, end, False)
    return bool(first) and _skip_vc(word, first, end, True) != 0


def _m_eq1(word: str, end: int) -> bool:
    first = _skip_vc(word, 0, end, False)
    return bool(first) and _skip_vc(word, first, end, True) == 0


def _cvc(word: str, end: int) -> bool:
    """*o: the stem ends consonant, vowel, consonant, and the last is not w, x or y."""
    if word[end - 1] in "wxy":
        return False
    flags = _consonants(word, 0, end, False)
    return flags[-3:] == [True, False, True]


def _has_vowel(word: str, end: int) -> bool:
    """*v*, as FTS5 tests it: a vowel, or a "y" anywhere but the first letter."""
    return any(ch in _VOWELS or (ch == "y" and i > 0) for i, ch in enumerate(word[:end]))


def _m_gt1_st(word: str, end: int) -> bool:
    return word[end - 1] in "st" and _m_gt1(word, end)


# (suffix, condition on the stem before it, replacement), in FTS5's order of trial.
_STEP2 = (
    ("ational", _m_gt0, "ate"), ("tional", _m_gt0, "tion"), ("enci", _m_gt0, "ence"), ("anci", _m_gt0, "ance"),
    ("izer", _m_gt0, "ize"), ("logi", _m_gt0, "log"), ("bli", _m_gt0, "ble"), ("alli", _m_gt0, "al"),
    ("entli", _m_gt0, "ent"), ("eli", _m_gt0, "e"), ("ousli", _m_gt0, "ous"), ("ization", _m_gt0, "ize"),
    ("ation", _m_gt0, "ate"), ("ator", _m_gt0, "ate"), ("alism", _m_gt0, "al"), ("iveness", _m_gt0, "ive"),
    ("fulness", _m_gt0, "ful"), ("ousness", _m_gt0, "ous"), ("aliti", _m_gt0, "al"), ("iviti", _m_gt0, "ive"),
    ("biliti", _m_gt0, "ble"),
)
_STEP3 = (
    ("ical", _m_gt0, "ic"), ("ness", _m_gt0, ""), ("icate", _m_gt0, "ic"), ("iciti", _m_gt0, "ic"),
    ("ful", _m_gt0, ""), ("ative", _m_gt0, ""), ("alize", _m_gt0, "al"),
)
_STEP4 = (
    ("al", _m_gt1, ""), ("ance", _m_gt1, ""), ("ence", _m_gt1, ""), ("er", _m_gt1, ""), ("ic", _m_gt1, ""),
    ("able", _m_gt1, ""), ("ible", _m_gt1, ""), ("ant", _m_gt1, ""), ("ement", _m_gt1, ""), ("ment", _m_gt1, ""),
    ("ent", _m_gt1, ""), ("ion", _m_gt1_st, ""), ("ou", _m_gt1, ""), ("ism", _m_gt1, ""), ("ate", _m_gt1, ""),
    ("iti", _m_gt1, ""), ("ous", _m_gt1, ""), ("ive", _m_gt1, ""), ("ize", _m_gt1, ""),
)


def _by_penultimate(rules: tuple) -> dict:  # type: ignore[type-arg]
    """Rules grouped by their suffix's next-to-last letter, order kept: only that group can match a word."""
    groups: dict = {}  # type: ignore[type-arg]
    for rule in rules:
        groups.setdefault(rule[0][-2], []).append(rule)
    return groups


def _apply(word: str, groups: dict) -> str:  # type: ignore[type-arg]
    for suffix, condition, replacement in groups.get(word[-2:-1], ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem_end = len(word) - len(suffix)
            return word[:stem_end] + replacement if condition(word, stem_end) else word
    return word


_STEP2_GROUPS, _STEP3_GROUPS, _STEP4_GROUPS = _by_penultimate(_STEP2), _by_penultimate(_STEP3), _by_penultimate(_STEP4)


def _step1ab(word: str) -> str:
    if word[-1] == "s":
        if word[-2] == "e":
            word = word[:-2] if (len(word) > 4 and word[-4:-2] == "ss") or (len(word) > 3 and word[-3] == "i") \
                else word[:-1]
        elif word[-2] != "s":
            word = word[:-1]
    if len(word) > 3 and word.endswith("eed"):
        return word[:-1] if _m_gt0(word, len(word) - 3) else word
    if len(word) > 2 and word.endswith("ed") and _has_vowel(word, len(word) - 2):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("ing") and _has_vowel(word, len(word) - 3):
        word = word[:-3]
    else:
        return word
    if len(word) > 2 and word[-2:] in ("at", "bl", "iz"):
        return word + "e"
    last = word[-1]
    if last not in _VOWELS and last not in "lsz" and len(word) > 1 and last == word[-2]:
        return word[:-1]
    if _m_eq1(word, len(word)) and _cvc(word, len(word)):
        return word + "e"
    return word


def stem(token: str) -> str:
    """The FTS5 porter stem of one lower-case ASCII token (letters and digits)."""
    if len(token) < 3 or len(token) > MAX_TOKEN:
        return token
    word = _step1ab(token)
    if word[-1] == "y" and _has_vowel(word, len(word) - 1):
        word = word[:-1] + "i"
    word = _apply(word, _STEP2_GROUPS)
    word = _apply(word, _STEP3_GROUPS)
    word = _apply(word, _STEP4_GROUPS)
    if word[-1] == "e":
        end = len(word) - 1
        if _m_gt1(word, end) or (_m_eq1(word, end) and not _cvc(word, end)):
            word = word[:-1]
    if len(word) > 1 and word.endswith("ll") and _m_gt1(word, len(word) - 1):
        word = word[:-1]
    return word
