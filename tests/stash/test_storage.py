"""Tests for the envelope, the JSONL form, validation and stats."""

from __future__ import annotations

import json

import pytest

from agentctx.stash import (
    StashError,
    create_stash,
    decode_recording,
    encode_jsonl,
    encode_recording,
    load_stash,
    read_recording,
    recording_stats,
    write_recording,
)


def _recording():
    stash = create_stash(id="rec-1", meta={"who": "test"})
    stash.value("llm", "plan", {"steps": [1]}, input={"q": "x"})
    stash.value("tool", "search", [1, 2])
    stash.value("tool", "search", [1, 2])
    return stash.recording()


def test_envelope_shape_keeps_seed_field_names():
    data = json.loads(encode_recording(_recording()))
    assert set(data) == {"version", "id", "events", "blobs", "meta"}
    assert data["version"] == 1 and data["id"] == "rec-1" and data["meta"] == {"who": "test"}
    assert "inputRef" in data["events"][0]


def test_round_trip_both_forms():
    rec = _recording()
    assert decode_recording(encode_recording(rec)) == rec
    assert decode_recording(encode_jsonl(rec)) == rec
    assert decode_recording(encode_recording(rec).encode("utf-8")) == rec


def _envelope():
    return json.loads(encode_recording(_recording()))


def _mutate(fn):
    data = _envelope()
    fn(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("not json", "not valid JSON"),
        ("[]", "JSON object"),
        (_mutate(lambda d: d.update(version=2)), "version 2"),
        (_mutate(lambda d: d["events"][0].update(ref="missing")), "missing from blobs"),
        (_mutate(lambda d: d["events"][2].update(ordinal=0)), "duplicates tool/search#0"),
        (_mutate(lambda d: d["events"][1].update(seq=5)), "contiguous"),
        (_mutate(lambda d: d["events"][0].update(outcome="maybe")), "outcome"),
        (_mutate(lambda d: d["events"][0].pop("channel")), "'channel'"),
        (_mutate(lambda d: d["events"][0].update(extra=1)), "unknown field"),
        (_mutate(lambda d: d.update(id="")), "id"),
        (_mutate(lambda d: d.update(events={})), "events must be a list"),
        ('{"version": 1, "version": 1}', "duplicate JSON member"),
        ('{"version": 1, "id": "x", "events": [], "blobs": {"a": NaN}}', "NaN"),
    ],
)
def test_decode_rejects_invalid(text, fragment):
    with pytest.raises(StashError) as info:
        decode_recording(text)
    assert info.value.code == "ERR_INVALID_RECORDING"
    assert fragment in info.value.message


def test_stats():
    stats = recording_stats(_recording())
    assert (stats.events, stats.blobs, stats.throws, stats.with_input) == (3, 3, 0, 1)
    assert stats.channels == {"llm": 1, "tool": 2}
    assert stats.keys == {"llm/plan": 1, "tool/search": 2}


def test_write_and_read_files(tmp_path):
    rec = _recording()
    write_recording(tmp_path / "a.json", rec)
    write_recording(tmp_path / "b.jsonl", rec)
    assert read_recording(tmp_path / "a.json") == read_recording(tmp_path / "b.jsonl") == rec
    assert (tmp_path / "b.jsonl").read_text(encoding="utf-8").startswith('{"format":"agentctx.stash/jsonl"')


def test_jsonl_recording_survives_a_crash(tmp_path):
    path = tmp_path / "run.jsonl"
    stash = create_stash(path=path)
    stash.value("llm", "a", 1)
    stash.value("llm", "b", {"big": "x" * 100})
    partial = tmp_path / "run.jsonl.partial"
    # Simulate a crash mid-write: a torn final line.
    torn = partial.read_text(encoding="utf-8") + '{"event": {"seq": 2, "chan'
    recovered = decode_recording(torn)
    assert [e.key for e in recovered.events] == ["a", "b"]
    assert load_stash(partial.read_text(encoding="utf-8")).intercept("llm", "b", None) == {"big": "x" * 100}
    stash.close()
    assert path.exists() and not partial.exists()
    assert read_recording(path).events == recovered.events


def test_jsonl_torn_line_in_the_middle_is_invalid():
    text = encode_jsonl(_recording()).split("\n")
    text[1] = text[1][:10]
    with pytest.raises(StashError):
        decode_recording("\n".join(text))
