"""Scoring candidates: BM25F over title and body with squared, always-positive idf; relevance by specificity.

A word is specific when it is rare in general software text: its idf in the background corpus (agentctx.background).
"""

import math
from .frozen import record_type

# BM25F parameters. Title matches count double: a title says what the record is about.
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
# idf counted twice, as in tf-idf cosine (once for the query, once for the record): one specific shared
# identifier outweighs several common words, which long prompts are full of.
IDF_EXPONENT = 2.0
# A stem the query repeats matters more to the asker (a long prompt says its subject more than once).
QTF_EXPONENT = 1.0
MIN_SHARED = 2
# Specificity below which a shared word does not count towards MIN_SHARED ("add", "make", "run", "file").
TELLING = 0.1  # about: a word found in fewer than half of all software documents


# Named tuples, not dataclasses: this runs in the prompt hook, where importing dataclasses costs ~8 ms.
class DocTerms(record_type("DocTerms", "title body title_len body_len")):
    """How often each query stem occurs in one record, per column (stem -> count), and the column lengths in tokens."""

    __slots__ = ()


class Corpus(record_type("Corpus", "n_docs avg_title avg_body weight")):
    """Index-wide statistics and the query: record count, average column lengths, and each query stem's weight
    (idf, scaled by how often the query repeats the stem)."""

    __slots__ = ()

    @classmethod
    def build(cls, n_docs: int, avg_title: float, avg_body: float, df: dict[str, int],
              qtf: dict[str, int] | None = None) -> "Corpus":
        qtf = qtf or {}
        return cls(n_docs, avg_title, avg_body,
                   {s: idf(n_docs, d) * qtf.get(s, 1) ** QTF_EXPONENT for s, d in df.items()})


def idf(n_docs: int, df: int) -> float:
    """Lucene's BM25 idf: always positive, so a term in most records still counts a little (small stores)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) ** IDF_EXPONENT


def bm25f(doc: DocTerms, stems: list[str], corpus: Corpus) -> "tuple[float, dict[str, float]]":
    """(BM25F score, the query stems the record contains, each with the weight of the best field it is in)."""
    avg = TITLE_WEIGHT * corpus.avg_title + BODY_WEIGHT * corpus.avg_body or 1.0
    length = TITLE_WEIGHT * doc.title_len + BODY_WEIGHT * doc.body_len
    norm = K1 * (1 - B + B * length / avg)
    total = 0.0
    matched: "dict[str, float]" = {}
    weights = corpus.weight
    for stem in stems:
        tf = TITLE_WEIGHT * doc.title.get(stem, 0) + BODY_WEIGHT * doc.body.get(stem, 0)
        if tf:
            matched[stem] = TITLE_WEIGHT if stem in doc.title else BODY_WEIGHT
            total += weights[stem] * tf * (K1 + 1) / (tf + norm)
    return total, matched


def relevance(matched: "dict[str, float]", n_query: int, specific: dict[str, float]) -> float:
    """How surely a record is about the query: the specificity of the query words it shares, a word in the title
    counting TITLE_WEIGHT times (as in BM25F: a title says what the record is about).

    Generic words ("add", "fix", "run") are shared by unrelated text; words rare in general software text are
    not. A record must share at least two telling (not generic) words with the query, unless it has only one.
    """
    telling = [s for s in matched if specific.get(s, 1.0) >= TELLING]
    if len(telling) < min(MIN_SHARED, n_query):
        return 0.0
    return sum(specific.get(s, 1.0) * weight for s, weight in matched.items())


# Word specificity: background idf, looked up in the sorted stem list of agentctx.background.
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


def specificity(stems: list[str]) -> dict[str, float]:
    """Each stem's background idf, ln(N / (1 + df)), in units of a word never seen in the background (0..~1)."""
    table, buckets, n, scale = _load()
    top = math.log(n / 2)
    out: dict[str, float] = {}
    for stem in stems:
        i = _find(table, stem) if "\n" not in stem else -1
        df = math.exp(buckets[i] / scale) if i >= 0 else 1.0
        out[stem] = max(0.0, math.log(n / (1 + df))) / top
    return out
