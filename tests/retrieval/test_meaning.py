"""The prompt hook's static meaning data (agentctx/retrieval/meaning.py): the WordPiece tokenizer, the vector file
format (a truncated or damaged file means the lexical gate, never a crash), the record file consolidation writes
and the gate's semantic features. The token tables here are tiny and written by hand (no model is loaded)."""

import os
import struct

import pytest

from agentctx.base import paths
from agentctx.base.models import NewRecord
from agentctx.retrieval import meaning, relevance, search
from agentctx.retrieval.vectors import static
from agentctx.store import db, records

P = "proj"
DIMS = 4
# A hand-written vocabulary in BERT's WordPiece form, each token with a hand-picked direction: cache words one way,
# database words another, release words a third.
VOCAB = {
    "cache": (100, 0, 0, 0), "caching": (90, 10, 0, 0), "redis": (80, 0, 0, 20), "##is": (5, 5, 5, 5),
    "red": (0, 0, 50, 0), "un": (0, 0, 0, 10), "##aff": (0, 0, 0, 30), "##able": (0, 0, 0, 5), "affable": (0, 0, 0, 90),
    "postgres": (0, 100, 0, 0), "database": (0, 90, 0, 10), "schema": (0, 80, 10, 0), "cafe": (10, 10, 10, 10),
    "release": (0, 0, 100, 0), "notes": (0, 10, 80, 0), "changelog": (0, 0, 90, 10), "tag": (0, 5, 60, 0),
}


@pytest.fixture(autouse=True)
def fresh_maps():
    meaning.reset()
    yield
    meaning.reset()


def write_table(path, vocab=VOCAB):
    keys = [k.encode() for k in vocab]
    rows = b"".join(struct.pack(f"<{DIMS}b", *(round(v * 127 / 100) for v in vec)) for vec in vocab.values())
    data = static.pack(meaning.TABLE_MAGIC, DIMS, keys, [100 / 127] * len(keys), rows, ident=7)
    static.write_private(str(path), data)
    return str(path)


def table(tmp_path):
    return meaning._open(write_table(tmp_path / "t.bin"), meaning.TABLE_MAGIC)


def ids(t, word):
    return [t.find(k.encode()) for k in word]


def test_wordpiece_takes_the_whole_word_when_the_vocabulary_has_it(tmp_path):
    t = table(tmp_path)
    assert meaning.wordpiece(t, "affable") == ids(t, ["affable"])
    assert meaning.wordpiece(t, "redis") == ids(t, ["redis"])


def test_wordpiece_splits_longest_prefix_first_with_continuations(tmp_path):
    t = table(tmp_path)
    assert meaning.wordpiece(t, "unaffable") == ids(t, ["un", "##aff", "##able"])
    assert meaning.wordpiece(t, "redis" + "is") == ids(t, ["redis", "##is"])


def test_wordpiece_gives_nothing_for_a_word_with_an_unknown_part_or_too_long(tmp_path):
    t = table(tmp_path)
    assert meaning.wordpiece(t, "unxyz") == []
    assert meaning.wordpiece(t, "") == []
    assert meaning.wordpiece(t, "cache" * 30) == []  # over BERT's 100 characters: one unknown token


def test_wordpiece_strips_accents_as_bert_uncased_does(tmp_path):
    t = table(tmp_path)
    assert meaning.wordpiece(t, "café") == ids(t, ["cafe"])


def test_a_texts_vector_is_unit_length_and_points_where_its_words_do(tmp_path):
    t = table(tmp_path)
    v = meaning.vector(t, [("caching", 1.0), ("redis", 1.0)])
    assert abs(sum(x * x for x in v) - 1.0) < 1e-9
    assert v[0] == max(v)
    assert meaning.vector(t, [("unknownword", 1.0)]) is None
    assert meaning.vector(t, [("cache", 0.0)]) is None  # weightless words say nothing


def test_a_file_that_is_not_whole_is_refused(tmp_path):
    path = write_table(tmp_path / "t.bin")
    data = open(path, "rb").read()
    for n, bad in enumerate([data[:10], data[:-1], data + b"\0", b"XXXXXXXX" + data[8:], b""]):
        broken = tmp_path / f"bad{n}.bin"
        broken.write_bytes(bad)
        assert meaning._open(str(broken), meaning.TABLE_MAGIC) is None
    assert meaning._open(str(tmp_path / "missing.bin"), meaning.TABLE_MAGIC) is None
    assert meaning._open(path, meaning.RECORDS_MAGIC) is None  # a token table is no record file


def test_damaged_offsets_and_slots_raise_value_error_never_index_error(tmp_path):
    path = write_table(tmp_path / "t.bin")
    data = bytearray(open(path, "rb").read())
    header = struct.calcsize("<8sIIIII")
    slots = struct.unpack_from("<I", data, 16)[0]
    for i in range(slots):  # every slot points past the rows
        struct.pack_into("<I", data, header + 4 * i, 10_000)
    (tmp_path / "d.bin").write_bytes(bytes(data))
    t = meaning._open(str(tmp_path / "d.bin"), meaning.TABLE_MAGIC)
    with pytest.raises(ValueError):
        meaning.wordpiece(t, "cache")


@pytest.fixture
def store(tmp_path):
    conn = db.connect(paths.db_path(), create=True)
    records.insert(conn, NewRecord(type="decision", title="Redis for the session cache",
                                   body="Sessions are cached in Redis; the caching layer expires them after a day.",
                                   project_id=P, confidence="explicit"))
    records.insert(conn, NewRecord(type="decision", title="Postgres schema migrations",
                                   body="Every database schema change is a numbered Postgres migration.",
                                   project_id=P, confidence="explicit"))
    records.insert(conn, NewRecord(type="convention", title="Release notes in the changelog",
                                   body="Each release tag gets its notes in the changelog.", project_id=P,
                                   confidence="explicit"))
    yield conn
    conn.close()


def built(conn, tmp_path):
    report = static.build_records(conn, paths.db_file(), write_table(tmp_path / "t.bin"))
    assert report["records"] == 3 and os.stat(meaning.records_path(paths.db_file())).st_mode & 0o077 == 0
    return report


def test_the_record_file_answers_each_current_record_by_id_and_text(store, tmp_path):
    built(store, tmp_path)
    result = search.search(store, "redis caching", P, limit=6, floor=0.0, expand=False)
    found = meaning.for_prompt(paths.db_file(), list(result.terms), result.specific)
    sims = {h.record.title: found.similarity(h.record.id, meaning.checksum(h.record.title, h.record.body))
            for h in result.hits}
    assert sims["Redis for the session cache"] > 0.9
    # A record edited since (another text) has no vector: the stored one was made from other words.
    hit = result.hits[0]
    assert found.similarity(hit.record.id, meaning.checksum(hit.record.title, "other text")) is None
    assert found.similarity("no-such-record", 0) is None


def test_rebuilding_keeps_the_rows_of_unchanged_records(store, tmp_path):
    built(store, tmp_path)
    again = static.build_records(store, paths.db_file(), str(tmp_path / "t.bin"))
    assert again["reused"] == 3


def test_the_gate_reads_the_semantic_features_when_the_data_is_there(store, tmp_path, monkeypatch):
    built(store, tmp_path)
    monkeypatch.setattr(relevance, "reads_meaning", lambda: True)  # a model file with the `_m` classes
    weighed = relevance.decide(store, "redis caching for sessions", P)
    assert "semantic" in weighed[0].features and "semantic_gap" in weighed[0].features
    assert weighed[0].features["semantic"] > 0.9


@pytest.mark.parametrize("damage", ["truncate", "garbage", "remove", "other-table"])
def test_missing_or_damaged_meaning_data_means_the_lexical_gate(store, tmp_path, damage, monkeypatch):
    built(store, tmp_path)
    monkeypatch.setattr(relevance, "reads_meaning", lambda: True)
    lexical = relevance.assess(search.search(store, "redis caching for sessions", P, limit=6, floor=0.0,
                                             expand=False), "redis caching for sessions")
    path = meaning.records_path(paths.db_file())
    if damage == "truncate":
        data = open(path, "rb").read()
        open(path, "wb").write(data[: len(data) // 2])
    elif damage == "garbage":
        data = bytearray(open(path, "rb").read())
        data[40:] = b"\xff" * (len(data) - 40)
        open(path, "wb").write(bytes(data))
    elif damage == "remove":
        os.remove(path)
    else:
        write_table(tmp_path / "t.bin", dict(VOCAB, extra=(1, 2, 3, 4)))
        data = open(str(tmp_path / "t.bin"), "rb").read()
        open(str(tmp_path / "t.bin"), "wb").write(data[:20] + struct.pack("<I", 8) + data[24:])
    meaning.reset()
    weighed = relevance.decide(store, "redis caching for sessions", P)
    assert [a.klass for a in weighed] == [a.klass for a in lexical]
    assert all("semantic" not in a.features for a in weighed)
    assert [a.inject for a in weighed] == [a.inject for a in lexical]


def test_the_shipped_gate_without_semantic_models_neither_reads_nor_builds_the_data(store, tmp_path):
    if relevance.reads_meaning():
        pytest.skip("the shipped model file reads the semantic features")
    built(store, tmp_path)
    weighed = relevance.decide(store, "redis caching for sessions", P)
    assert weighed and all("semantic" not in a.features for a in weighed)
    assert "skipped" in static.update_records(store, "any/model")


def test_the_prompt_hook_survives_a_damaged_record_file(store, tmp_path, repo, monkeypatch):
    monkeypatch.setattr(relevance, "reads_meaning", lambda: True)
    from agentctx.hooks import Payload
    from agentctx.hooks.prompt import user_prompt_submit

    built(store, tmp_path)
    path = meaning.records_path(paths.db_file())
    open(path, "r+b").write(b"\0" * 64)
    meaning.reset()
    out = user_prompt_submit(Payload(session_id="s1", cwd=str(repo), prompt="redis caching for sessions"))
    assert out is None or "additionalContext" in out["hookSpecificOutput"]
