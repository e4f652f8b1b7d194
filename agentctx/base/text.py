"""Query text: tokens as SQLite's unicode61 tokenizer splits them, stopwords, porter stems (FTS5's variant, in
Python), per-column counts of stems, safe FTS5 syntax."""

import sqlite3
import _thread

from .models import record_type

# unicode61: letters and digits make tokens, every other character separates them. Translation tables do the split:
# no regular expression, because `re` (with `enum`) costs ~3 ms to import in a hook process.
_ASCII_SEPARATORS = {c: " " for c in range(128) if not chr(c).isalnum()}

# Named tuples, not dataclasses: this runs in the prompt hook, where importing dataclasses costs ~8 ms.
class DocTerms(record_type("DocTerms", "title body title_len body_len questions aliases questions_len aliases_len",
                           defaults=({}, {}, 0, 0))):
    """How often each query stem occurs in one record, per column (stem -> count), and the column lengths in tokens:
    title and body, and how the record will be asked (its questions and aliases; empty when it has none)."""

    __slots__ = ()


# English function words plus the filler of requests to a coding agent ("please can you help me ...").
# Content words, even common ones in code ("test", "file", "error"), stay: the relevance floor handles them.
STOPWORDS = frozenset("""
a about above after again against all almost also am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each either else
ever every few for from further get gets getting go goes going got had hadn has hasn have haven having he her
here hers herself him himself his how however i if in into is isn it its itself just let lets like ll m may me
might more most much must mustn my myself need needs no nor not now of off often on once one only or other our
ours ourselves out over own per please quite rather re really s same shall shan she should shouldn so some such
sure t than that the their theirs them themselves then there these they thing things this those through thus to
too under until up upon us use used uses using ve very via was wasn way we well were weren what when where whether
which while who whom whose why will with within without won would wouldn y yet you your yours yourself yourselves
want wants wanted help could kindly hey hi hello thanks thank ok okay yes yeah also etc e g ie eg
""".split()) | frozenset(
    # Contractions typed without the apostrophe are one token each and no dictionary word, so the background corpus
    # never saw them and they read as the most specific words of a prompt: "now whats the next step ?" matched a
    # decision on file structure through "whats". Chat filler likewise says nothing about a record.
    """
    whats thats theres heres wheres hows whos whys whatre cant cannot dont doesnt didnt isnt arent wasnt werent wont
    wouldnt couldnt shouldnt hasnt havent hadnt mustnt neednt aint im ive youre youve youll youd weve were theyre
    theyve theyll itll hes shes lets ok okey k kk pls plz thx thanx ty tysm np hmm hm um uh umm uhh lol btw imo imho
    fyi gonna wanna gotta lemme gimme kinda sorta yep yup nope nah alright sure cool nice great awesome perfect
    """.split())


def tokens(text: str) -> list[str]:
    """Lower-cased tokens, split where unicode61 splits (anything not a letter or digit)."""
    if text.isascii():
        return text.lower().translate(_ASCII_SEPARATORS).split()
    # str.isalnum is exactly the regular expression [^\W_]; split first, then lower (lowering can add marks).
    spaced = text.translate(_ASCII_SEPARATORS)
    other = {ord(c): " " for c in set(spaced) if not c.isascii() and not c.isalnum()}
    return [t.lower() for t in spaced.translate(other).split()]


def content_tokens(text: str, *, max_tokens: int = 256) -> list[str]:
    """Query tokens in order, repeats kept: no stopwords or one-character noise."""
    out = []
    for tok in tokens(text):
        if tok in STOPWORDS or (len(tok) < 2 and not tok.isdigit()):
            continue
        out.append(tok)
        if len(out) >= max_tokens:
            break
    return out


def query_tokens(text: str, *, head: int = 192, tail: int = 64, tail_chars: int = 4096) -> list[str]:
    """A query's content tokens: all of them up to head + tail, else the first `head` and the last `tail`. A prompt
    that pastes a log or a traceback ends with what matters (the error, the question about it); tokenizing a paste
    of megabytes whole would cost the hook its budget, so the tail comes from the last `tail_chars` characters."""
    first = content_tokens(text, max_tokens=head + tail + 1)
    if len(first) <= head + tail:
        return first
    return first[:head] + content_tokens(text[-tail_chars:], max_tokens=1 << 30)[-tail:]


# Scripts written without spaces between words (CJK ideographs, kana, Hangul syllables, Thai, Lao, Khmer, Myanmar):
# FTS5's unicode61 keeps a whole run of them as one token, so their words are found only as substrings.
_UNSEGMENTED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x3040, 0x30FF), (0x3400, 0x4DBF),
                (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))


def unsegmented(token: str) -> bool:
    """Whether a token is (or holds) a run of a script written without spaces."""
    return any(lo <= ord(c) <= hi for c in token if ord(c) > 0x0DFF for lo, hi in _UNSEGMENTED)


def content_terms(text: str, *, max_terms: int = 64) -> list[str]:
    """Query terms: content tokens de-duplicated, first occurrence order."""
    return list(dict.fromkeys(content_tokens(text)))[:max_terms]


def quote(term: str) -> str:
    """A term as an FTS5 string: operators and quotes inside it lose their meaning."""
    return '"' + term.replace('"', '""') + '"'


def or_query(terms: list[str]) -> str:
    return " OR ".join(quote(t) for t in terms)


class _Fts5:
    """Porter stems and per-column counts of text that is not plain ASCII, from FTS5 itself (an in-memory table):
    unicode61's folding of other scripts and diacritics is not worth re-implementing for them."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()  # threading costs ~2 ms to import on the hook path
        self._conn: "sqlite3.Connection | None" = None

    def _open(self) -> sqlite3.Connection:
        # One contentless table serves both jobs (each virtual table costs ~0.2 ms to create).
        conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        conn.execute(
            "CREATE VIRTUAL TABLE d USING fts5(title, body, questions, aliases, "
            "tokenize='porter unicode61 remove_diacritics 2', content='')"
        )
        conn.execute("CREATE VIRTUAL TABLE dv USING fts5vocab(d, 'instance')")
        return conn

    def _tokenize(self, docs: "list[tuple[str, ...]]", query: str, args: "list[str]") -> "tuple[list[tuple], list[tuple]]":
        """Load (title, body[, questions, aliases]) as rows 1..n, run `query` on the instance vocabulary; (its rows,
        the sizes)."""
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.execute("INSERT INTO d(d) VALUES ('delete-all')")
                conn.executemany("INSERT INTO d(rowid, title, body, questions, aliases) VALUES (?, ?, ?, ?, ?)",
                                 [(i + 1, *doc, *("",) * (4 - len(doc))) for i, doc in enumerate(docs)])
                rows = conn.execute(query, args).fetchall()
                sizes = conn.execute("SELECT id, sz FROM d_docsize").fetchall()
            finally:
                conn.execute("COMMIT")
        return rows, sizes

    def analyze(self, docs: "list[tuple[str, ...]]", stems: "list[str]") -> "list[DocTerms]":
        marks = ",".join("?" * len(stems))
        rows, sizes = self._tokenize(docs, f"SELECT term, doc, col FROM dv WHERE term IN ({marks})", stems)
        cols: "list[tuple[dict[str, int], ...]]" = [({}, {}, {}, {}) for _ in docs]
        index = {"title": 0, "body": 1, "questions": 2, "aliases": 3}
        for term, doc, col in rows:
            counts = cols[doc - 1][index[col]]
            counts[term] = counts.get(term, 0) + 1
        lengths = [(0, 0, 0, 0)] * len(docs)
        for rowid, blob in sizes:
            values = varints(bytes(blob))
            if len(values) >= 4:
                lengths[rowid - 1] = tuple(values[:4])
        return [DocTerms(t, b, lengths[i][0], lengths[i][1], q, a, lengths[i][2], lengths[i][3])
                for i, (t, b, q, a) in enumerate(cols)]

    def stems(self, terms: "list[str]") -> "list[str]":
        rows, _ = self._tokenize([(" ".join(terms), "")], "SELECT term, offset FROM dv", [])
        by_offset = {off: term for term, off in rows}
        return [by_offset.get(i, t) for i, t in enumerate(terms)]


_fts5 = _Fts5()


class _Counter:
    """Counts, per column, the tokens of plain-ASCII text whose porter stem is one of `stems`.

    A token can only stem to S if it starts with S minus its last letter (porter removes or rewrites the end of a
    word, and only a stem's last letter can differ from the word), so only the tokens with one of those prefixes
    are worth stemming; each is stemmed once per query.
    """

    def __init__(self, stems: "list[str]") -> None:
        self.wanted = set(stems)
        self.prefixes = tuple(s[:-1] for s in self.wanted)
        self.stem_of: "dict[str, str]" = {}

    def column(self, text: str) -> "tuple[dict[str, int], int]":
        counts: "dict[str, int]" = {}
        stem_of = self.stem_of
        found_tokens = text.lower().translate(_ASCII_SEPARATORS).split()
        for tok in found_tokens:
            found = stem_of.get(tok)
            if found is None:
                found = porter_stem(tok) if tok.startswith(self.prefixes) else ""
                found = stem_of[tok] = found if found in self.wanted else ""
            if found:
                counts[found] = counts.get(found, 0) + 1
        return counts, len(found_tokens)


def stems(terms: "list[str]") -> "list[str]":
    """The porter stem of each term (same order), as the index makes them."""
    if not terms:
        return []
    if all(t.isascii() for t in terms):
        return [porter_stem(t) for t in terms]
    return _fts5.stems(terms)


def analyze(docs: "list[tuple[str, ...]]", stems: "list[str]") -> "list[DocTerms]":
    """Per-column counts of `stems` and column lengths (tokens) of (title, body[, questions, aliases]) tuples,
    tokenized as the index does."""
    if not docs or not stems:
        return [DocTerms({}, {}, 0, 0, {}, {}, 0, 0) for _ in docs]
    out: "list[DocTerms | None]" = [None] * len(docs)
    other: "list[int]" = []
    counter = _Counter(stems)
    for i, doc in enumerate(docs):
        if all(c.isascii() for c in doc):
            (t_counts, t_len), (b_counts, b_len) = counter.column(doc[0]), counter.column(doc[1])
            q_counts, q_len = counter.column(doc[2]) if len(doc) > 2 and doc[2] else ({}, 0)
            a_counts, a_len = counter.column(doc[3]) if len(doc) > 3 and doc[3] else ({}, 0)
            out[i] = DocTerms(t_counts, b_counts, t_len, b_len, q_counts, a_counts, q_len, a_len)
        else:
            other.append(i)
    if other:
        for i, doc in zip(other, _fts5.analyze([docs[i] for i in other], stems)):
            out[i] = doc
    return out  # type: ignore[return-value]


def varints(blob: bytes) -> list[int]:
    """Decode SQLite's big-endian varints (FTS5 stores sizes and averages this way)."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


# The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it, for lower-case ASCII tokens.
#
# The index stems with FTS5; the prompt hook stems the query and scores candidates in Python so that it does not
# have to build an in-memory FTS5 table on every prompt. Any difference from FTS5 would make a query term miss
# its own records, so this follows FTS5's variant rule for rule (tests compare the two on a large vocabulary):
# - tokens shorter than 3 or longer than 64 bytes pass unchanged;
# - within a step, the first rule whose suffix ends the word (and is shorter than it) decides, even when its
#   condition fails: a longer suffix listed first shadows the shorter ones it contains;
# - "y" is a vowel after a consonant when measuring, but in the *v* test of steps 1b and 1c any "y" past the
#   first letter counts as a vowel.

PORTER_MAX_TOKEN = 64
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


def porter_stem(token: str) -> str:
    """The FTS5 porter stem of one lower-case ASCII token (letters and digits)."""
    if len(token) < 3 or len(token) > PORTER_MAX_TOKEN:
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
