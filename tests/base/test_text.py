"""Query text: tokens, stopwords, stems and FTS5-safe quoting."""

from __future__ import annotations

import sqlite3

import pytest

from agentctx.base import text


def test_tokens_split_like_unicode61():
    assert text.tokens("Auth-tokens rotate_daily, v2.1 Ünïcode") == ["auth", "tokens", "rotate", "daily", "v2", "1", "ünïcode"]


def test_ascii_tokens_split_exactly_like_the_unicode_rule():
    import random
    import re

    rng = random.Random(2)
    alphabet = [chr(c) for c in range(128)]
    for _ in range(500):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert text.tokens(sample) == [t.lower() for t in re.findall(r"[^\W_]+", sample)], sample


def test_unicode_tokens_split_exactly_like_the_unicode_rule():
    # Without a regular expression (the hook path does not import re): isalnum, then lower each token.
    import random
    import re

    rng = random.Random(3)
    alphabet = [chr(c) for c in range(128)] + list("ÜéßİıǅΣσςЖж中文ー٣₂²½\u0301\u200b\xa0\u2028\u3000—’“”😀🎉_") + [
        chr(rng.randrange(0x80, 0x30000)) for _ in range(400)]
    for _ in range(1000):
        sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
        assert text.tokens(sample) == [t.lower() for t in re.findall(r"[^\W_]+", sample)], ascii(sample)


def test_content_terms_drop_stopwords_and_noise_and_duplicates():
    assert text.content_terms("Please can you help me: how do we rotate the auth tokens, tokens?") == [
        "rotate", "auth", "tokens"]
    assert text.content_terms("a b c 7") == ["7"]
    assert text.content_terms("the and of") == []
    assert text.content_terms("") == []


def test_content_terms_are_capped():
    assert len(text.content_terms(" ".join(f"w{i}" for i in range(500)))) == 64


def test_stems_match_the_index_tokenizer():
    assert text.stems(["running", "tokens", "services"]) == ["run", "token", "servic"]
    assert text.stems([]) == []


@pytest.mark.parametrize("term", ['"', 'a"b', "AND", "NOT", "(x)", "NEAR", "*", "col:x", "^x"])
def test_quoted_terms_are_safe_fts5(term):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    conn.execute("INSERT INTO t VALUES ('plain words')")
    conn.execute("SELECT * FROM t WHERE t MATCH ?", (text.or_query([term, "plain"]),)).fetchall()


def test_or_query_joins_quoted_terms():
    assert text.or_query(["a", 'b"c']) == '"a" OR "b""c"'


def test_query_tokens_keep_everything_up_to_head_and_tail():
    words = [f"w{i}" for i in range(256)]
    assert text.query_tokens(" ".join(words)) == words


def test_query_tokens_keep_the_head_and_the_tail_of_a_long_paste():
    paste = "Traceback (most recent call last):\n" + '  File "app.py", line 12, in handler\n    run()\n' * 3000
    tokens = text.query_tokens(paste + "ValueError: price must be integer cents")
    assert len(tokens) == 256
    assert tokens[:4] == ["traceback", "recent", "call", "last"]
    assert tokens[-4:] == ["valueerror", "price", "integer", "cents"]  # the error at the end of the log


def test_query_tokens_tail_comes_from_the_end_only():
    long = "alpha " * 500 + "omega " * 10
    tokens = text.query_tokens(long * 200)  # ~1.2 MB: only the last 4 KB are tokenized for the tail
    assert tokens[:192] == ["alpha"] * 192 and tokens[-10:] == ["omega"] * 10
