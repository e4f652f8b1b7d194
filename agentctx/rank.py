"""Scoring candidates: BM25F over title and body with squared, always-positive idf, and query-term coverage."""

from __future__ import annotations

import math
from dataclasses import dataclass

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


@dataclass(frozen=True)
class DocTerms:
    """Where each stem occurs in one record: per column, stem -> token positions; and the column lengths."""

    title: dict[str, list[int]]
    body: dict[str, list[int]]
    title_len: int
    body_len: int


@dataclass(frozen=True)
class Corpus:
    """Index-wide statistics and the query: record count, average column lengths, and each query stem's weight."""

    n_docs: int
    avg_title: float
    avg_body: float
    weight: dict[str, float]  # idf, scaled by how often the query repeats the stem

    @classmethod
    def build(cls, n_docs: int, avg_title: float, avg_body: float, df: dict[str, int],
              qtf: dict[str, int] | None = None) -> "Corpus":
        qtf = qtf or {}
        return cls(n_docs, avg_title, avg_body,
                   {s: idf(n_docs, d) * qtf.get(s, 1) ** QTF_EXPONENT for s, d in df.items()})


def idf(n_docs: int, df: int) -> float:
    """Lucene's BM25 idf: always positive, so a term in most records still counts a little (small stores)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) ** IDF_EXPONENT


def bm25f(doc: DocTerms, stems: list[str], corpus: Corpus) -> tuple[float, float]:
    """(BM25F score, idf-weighted share of the query's stems the record contains)."""
    avg = TITLE_WEIGHT * corpus.avg_title + BODY_WEIGHT * corpus.avg_body or 1.0
    length = TITLE_WEIGHT * doc.title_len + BODY_WEIGHT * doc.body_len
    norm = K1 * (1 - B + B * length / avg)
    total = 0.0
    matched = 0.0
    possible = 0.0
    weights = corpus.weight
    for stem in stems:
        weight = weights[stem]
        possible += weight
        tf = TITLE_WEIGHT * len(doc.title.get(stem, ())) + BODY_WEIGHT * len(doc.body.get(stem, ()))
        if tf:
            matched += weight
            total += weight * tf * (K1 + 1) / (tf + norm)
    return total, (matched / possible if possible else 0.0)


def score(doc: DocTerms, stems: list[str], corpus: Corpus) -> tuple[float, float]:
    """(query score, coverage) of one record."""
    base, coverage = bm25f(doc, stems, corpus)
    return (base, coverage) if base else (0.0, 0.0)
