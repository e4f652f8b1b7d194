"""Tests for the SHA-256 hash-chain seal and verification, with tampering at each position."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agentctx.stash import (
    RecordingSeal,
    StashError,
    create_stash,
    decode_recording,
    encode_recording,
    seal_recording,
    verify_recording,
)


def _recording(n=4):
    stash = create_stash(id="sealed")
    for i in range(n):
        stash.intercept("tool", f"k{i % 2}", lambda i=i: {"i": i}, input={"n": i})
    return stash.recording()


def test_seal_happy_path_and_round_trip():
    rec = _recording()
    seal = seal_recording(rec)
    assert len(seal.root) == 64 and int(seal.root, 16) >= 0 and seal.count == 4
    assert verify_recording(rec, seal).valid
    again = decode_recording(encode_recording(rec))
    assert seal_recording(again).root == seal.root
    assert RecordingSeal.from_json(json.loads(json.dumps(seal.to_json()))) == seal


def _with_events(rec, events):
    return dataclasses.replace(rec, events=tuple(events))


@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_altered_value_at_each_position_is_found(position):
    rec = _recording()
    seal = seal_recording(rec)
    blobs = dict(rec.blobs)
    blobs[rec.events[position].ref] = {"i": "tampered"}
    result = verify_recording(dataclasses.replace(rec, blobs=blobs), seal)
    assert not result.valid and result.first_broken == position


@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_altered_input_at_each_position_is_found(position):
    rec = _recording()
    seal = seal_recording(rec)
    blobs = dict(rec.blobs)
    blobs[rec.events[position].input_ref] = {"n": -1}
    result = verify_recording(dataclasses.replace(rec, blobs=blobs), seal)
    assert not result.valid and result.first_broken == position


def test_swapped_events_changed_id_and_truncation():
    rec = _recording()
    seal = seal_recording(rec)
    events = list(rec.events)
    events[1], events[2] = events[2], events[1]
    assert verify_recording(_with_events(rec, events), seal).first_broken == 1
    changed_id = verify_recording(dataclasses.replace(rec, id="other"), seal)
    assert not changed_id.valid and changed_id.first_broken == 0
    truncated = verify_recording(_with_events(rec, rec.events[:-1]), seal)
    assert not truncated.valid and truncated.first_broken == 3 and "count" in truncated.reason
    label = dataclasses.replace(rec.events[2], label="x")
    assert verify_recording(_with_events(rec, rec.events[:2] + (label,) + rec.events[3:]), seal).first_broken == 2


def test_keyed_seal():
    rec = _recording()
    seal = seal_recording(rec, key=b"k1")
    assert seal.algorithm == "hmac-sha256-chain-v1"
    assert verify_recording(rec, seal, key=b"k1").valid
    assert not verify_recording(rec, seal, key=b"k2").valid
    with pytest.raises(StashError):
        verify_recording(rec, seal)


def test_malformed_seal():
    with pytest.raises(StashError):
        RecordingSeal.from_json({"root": "x"})


def test_empty_recording_seals():
    rec = _recording(0)
    assert verify_recording(rec, seal_recording(rec)).valid
