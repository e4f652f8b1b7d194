"""Tests for the recorder: transparency, ordinals, errors, redaction, DROP, dedup, copies."""

from __future__ import annotations

import json
import threading

import pytest

from agentctx.stash import DROP, StashError, create_recorder, create_stash, recording_stats


def test_transparency_and_event_shape():
    recorder = create_recorder()
    assert recorder.record("llm", "plan", lambda: {"steps": [1, 2]}) == {"steps": [1, 2]}
    (event,) = recorder.recording().events
    assert (event.seq, event.channel, event.key, event.ordinal, event.outcome) == (0, "llm", "plan", 0, "return")
    assert recorder.recording().blobs[event.ref] == {"steps": [1, 2]}


def test_ordinals_per_channel_and_key():
    recorder = create_recorder()
    for channel, key in [("llm", "plan"), ("tool", "search"), ("llm", "plan"), ("llm", "plan")]:
        recorder.record(channel, key, lambda: 1)
    events = recorder.recording().events
    assert [e.seq for e in events] == [0, 1, 2, 3]
    assert [e.ordinal for e in events if e.key == "plan"] == [0, 1, 2]
    assert [e.ordinal for e in events if e.key == "search"] == [0]


class RateLimitError(Exception):
    pass


def test_thrown_error_propagates_and_is_recorded_without_traceback():
    recorder = create_recorder()

    def boom():
        raise RateLimitError("429")

    with pytest.raises(RateLimitError, match="429"):
        recorder.record("llm", "plan", boom)
    (event,) = recorder.recording().events
    assert event.outcome == "throw"
    payload = recorder.recording().blobs[event.ref]
    assert payload["type"] == "RateLimitError" and payload["message"] == "429"
    assert "Traceback" not in json.dumps(payload)


def test_redaction_masks_value_and_input_but_caller_gets_raw():
    def redact(value, context):
        return json.loads(json.dumps(value).replace("sk-live-123", "[REDACTED]"))

    stash = create_stash(redact=redact)
    assert stash.intercept("llm", "plan", lambda: "key sk-live-123", input={"k": "sk-live-123"}) == "key sk-live-123"
    text = stash.save()
    assert "sk-live" not in text
    from agentctx.stash import load_stash

    assert load_stash(text, redact=redact).intercept("llm", "plan", None, input={"k": "sk-live-123"}) == "key [REDACTED]"


def test_drop_keeps_metadata_only():
    def redact(value, context):
        return DROP if context.channel == "secrets" else value

    stash = create_stash(redact=redact)
    assert stash.intercept("secrets", "vault", lambda: {"password": "pw-xyz"}) == {"password": "pw-xyz"}
    text = stash.save()
    assert "pw-xyz" not in text
    event = stash.recording().events[0]
    assert (event.channel, event.key, event.ordinal, event.outcome, event.dropped) == ("secrets", "vault", 0, "return", True)
    assert recording_stats(stash.recording()).dropped == 1
    from agentctx.stash import load_stash

    assert load_stash(text).intercept("secrets", "vault", None) is None


def test_scrub_secrets_option():
    stash = create_stash(scrub_secrets=True)
    stash.intercept("tool", "env", lambda: "Authorization: Bearer abc123def456")
    assert "abc123def456" not in stash.save()


def test_dedup_in_recording_stats():
    recorder = create_recorder()
    recorder.value("a", "x", {"v": 1})
    recorder.value("b", "y", {"v": 1})
    rec = recorder.recording()
    assert rec.events[0].ref == rec.events[1].ref
    stats = recording_stats(rec)
    assert (stats.events, stats.blobs) == (2, 1)


def test_mutating_recorded_value_does_not_change_blob():
    recorder = create_recorder()
    value = {"items": [1]}
    recorder.value("a", "x", value)
    value["items"].append(2)
    assert recorder.recording().blobs[recorder.recording().events[0].ref] == {"items": [1]}


@pytest.mark.parametrize("bad", [lambda: None, float("nan"), threading.Lock()])
def test_non_serializable_value_appends_nothing(bad):
    recorder = create_recorder()
    with pytest.raises(StashError) as info:
        recorder.record("tool", "x", lambda: bad)
    assert info.value.code == "ERR_INVALID_INPUT"
    assert recorder.size() == 0


def test_invalid_channel_or_key():
    with pytest.raises(StashError):
        create_recorder().value("", "x", 1)


def test_threads_record_without_losing_events():
    recorder = create_recorder()

    def work(n):
        for i in range(200):
            recorder.value("t", f"k{n}", i)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = recorder.recording().events
    assert len(events) == 800 and [e.seq for e in events] == list(range(800))


def test_timestamps_can_be_disabled():
    recorder = create_recorder(timestamps=False, id="fixed", meta={"run": 1})
    recorder.value("a", "b", 1)
    rec = recorder.recording()
    assert rec.events[0].at is None and rec.id == "fixed" and rec.meta == {"run": 1}
