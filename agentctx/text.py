"""Query text: tokens as SQLite's unicode61 tokenizer splits them, stopwords, porter stems, safe FTS5 syntax."""

from __future__ import annotations

import re
import sqlite3
import threading

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

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
""".split())


def tokens(text: str) -> list[str]:
    """Lower-cased tokens, split where unicode61 splits (anything not a letter or digit)."""
    return [t.lower() for t in _TOKEN.findall(text)]


def content_terms(text: str, *, max_terms: int = 64) -> list[str]:
    """Query terms: tokens without stopwords or one-character noise, first occurrence order, de-duplicated."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        if tok in STOPWORDS or (len(tok) < 2 and not tok.isdigit()):
            continue
        seen.setdefault(tok, None)
        if len(seen) >= max_terms:
            break
    return list(seen)


def quote(term: str) -> str:
    """A term as an FTS5 string: operators and quotes inside it lose their meaning."""
    return '"' + term.replace('"', '""') + '"'


def or_query(terms: list[str]) -> str:
    return " OR ".join(quote(t) for t in terms)


class _Stemmer:
    """Porter stems exactly as the index makes them, by asking FTS5 itself (an in-memory table)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        conn.execute("CREATE VIRTUAL TABLE s USING fts5(t, tokenize='porter unicode61 remove_diacritics 2')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(s, 'instance')")
        return conn

    def stems(self, terms: list[str]) -> list[str]:
        if not terms:
            return []
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            conn = self._conn
            conn.execute("DELETE FROM s")
            conn.execute("INSERT INTO s(rowid, t) VALUES (1, ?)", (" ".join(terms),))
            by_offset = {off: term for term, off in conn.execute("SELECT term, offset FROM v")}
        return [by_offset.get(i, t) for i, t in enumerate(terms)]


_stemmer = _Stemmer()


def stems(terms: list[str]) -> list[str]:
    """The porter stem of each term (same order); needs FTS5."""
    return _stemmer.stems(terms)
