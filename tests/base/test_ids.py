"""ULIDs and ISO timestamps."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from agentctx.base import ids

ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


@pytest.fixture(autouse=True)
def fresh_generator(monkeypatch):
    """Explicit `now_ms` values below would otherwise be clamped by ids made earlier in the run."""
    monkeypatch.setattr(ids, "_last_ms", -1)
    monkeypatch.setattr(ids, "_last_rand", 0)


def test_ulid_shape():
    assert ULID.match(ids.ulid())


def test_ulids_sort_in_creation_order_within_one_millisecond():
    made = [ids.ulid(now_ms=1_700_000_000_000) for _ in range(200)]
    assert made == sorted(made)
    assert len(set(made)) == 200


def test_ulids_sort_across_time():
    early = ids.ulid(now_ms=1_000)
    later = ids.ulid(now_ms=2_000_000_000_000)
    assert early < later
    assert later[:10] > early[:10]


def test_a_clock_going_backwards_keeps_ids_increasing():
    first = ids.ulid(now_ms=5_000)
    second = ids.ulid(now_ms=4_000)
    assert second > first


def test_ulid_encodes_the_timestamp():
    value = ids.ulid(now_ms=1_469_918_176_385)
    assert value[:10] == "01ARYZ6S41"  # the reference example of the ULID spec


def test_many_ulids_are_unique():
    assert len({ids.ulid() for _ in range(5000)}) == 5000


def test_now_iso_is_utc_with_milliseconds():
    text = ids.now_iso()
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", text)
    assert abs(ids.parse_iso(text) - datetime.now(timezone.utc)) < timedelta(seconds=5)


@pytest.mark.parametrize("text, expected", [
    ("2024-05-01T10:00:00Z", datetime(2024, 5, 1, 10, tzinfo=timezone.utc)),
    ("2024-05-01T10:00:00.250Z", datetime(2024, 5, 1, 10, 0, 0, 250000, tzinfo=timezone.utc)),
    ("2024-05-01T12:00:00+02:00", datetime(2024, 5, 1, 10, tzinfo=timezone.utc)),
    ("2024-05-01T10:00:00", datetime(2024, 5, 1, 10, tzinfo=timezone.utc)),
    ("2024-05-01", datetime(2024, 5, 1, tzinfo=timezone.utc)),
])
def test_parse_iso_forms(text, expected):
    assert ids.parse_iso(text) == expected


def test_parse_iso_rejects_garbage():
    with pytest.raises(ValueError):
        ids.parse_iso("yesterday")


def test_to_iso_round_trips():
    dt = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    assert ids.to_iso(dt) == "2024-01-02T03:04:05.678Z"
    assert ids.parse_iso(ids.to_iso(dt)) == dt
