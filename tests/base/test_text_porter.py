"""The Python porter stemmer against FTS5's own, and the ASCII analysis path against the FTS5 one."""

import random
import re
import sqlite3
from pathlib import Path

from agentctx.base import text

LETTERS = "aeiouybcdlmnrstwxz0"


def _vocabulary() -> list[str]:
    words: set[str] = set()
    for path in sorted(Path(re.__file__).parent.glob("*.py"))[:150]:  # real English and code words
        words.update(re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8", errors="ignore").lower()))
    rng = random.Random(11)
    for length in range(1, 10):  # every suffix rule's edge: short words, y after a consonant, digits
        words.update("".join(rng.choice(LETTERS) for _ in range(length)) for _ in range(3000))
    words.update(["a" * 64, "b" * 65 + "ing", "relational", "conditional", "possibility", "hoping", "aed", "eed",
                  "byed", "sky", "skies", "agreed", "feed", "controlling", "generalizations", "oscillators"])
    return sorted(words)


def _fts5_stems(words: list[str]) -> dict[str, str]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE d USING fts5(x, tokenize='porter unicode61 remove_diacritics 2', content='')")
    conn.execute("CREATE VIRTUAL TABLE dv USING fts5vocab(d, 'instance')")
    conn.executemany("INSERT INTO d(rowid, x) VALUES (?, ?)", [(i + 1, w) for i, w in enumerate(words)])
    return {words[doc - 1]: term for term, doc in conn.execute("SELECT term, doc FROM dv")}


def test_stems_equal_fts5_porter_on_a_large_vocabulary():
    words = _vocabulary()
    assert len(words) > 20_000
    expected = _fts5_stems(words)
    wrong = [(w, expected[w], text.porter_stem(w)) for w in words if text.porter_stem(w) != expected[w]]
    assert wrong == []


def test_a_stem_differs_from_its_word_only_in_its_last_letter():
    # text._Counter relies on this to stem only the tokens that start with a wanted stem minus its last letter.
    words = _vocabulary()
    assert [w for w in words if not w.startswith(text.porter_stem(w)[:-1]) or len(text.porter_stem(w)) > len(w)] == []


def test_ascii_analysis_equals_the_fts5_analysis():
    rng = random.Random(5)
    vocab = _vocabulary()[::5]
    for _ in range(60):
        docs = [(" ".join(rng.choices(vocab, k=rng.randint(0, 8))).title(),
                 " ".join(rng.choices(vocab, k=rng.randint(0, 60))) + " X-ray, foo_bar 3.14 HTTPServer")
                for _ in range(rng.randint(1, 12))]
        query = list(dict.fromkeys(text.stems(rng.choices(vocab, k=6) + ["a", "1", "x", "server"])))
        assert text.analyze(docs, query) == text._fts5.analyze(docs, query)


def test_non_ascii_text_goes_through_fts5_and_mixes_with_ascii_documents():
    docs = [("Café crème", "Über naïve résumé parsing"), ("plain title", "parsing resumes"), ("", "")]
    got = text.analyze(docs, text.stems(["resume", "parsing", "cafe"]))
    assert got == text._fts5.analyze(docs, text.stems(["resume", "parsing", "cafe"]))
    assert got[0].title == {"cafe": 1} and got[1].body == {"pars": 1, "resum": 1}
    assert text.stems(["naïve", "running"]) == ["naiv", "run"]
