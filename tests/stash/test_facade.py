"""Tests for the Stash facade: record modes on a path, failed runs, context managers."""

from __future__ import annotations

import asyncio

import pytest

from agentctx.stash import StashError, create_stash, read_recording


def test_once_records_then_replays(tmp_path):
    path = tmp_path / "rec.json"
    with create_stash(path=path, record_mode="once") as stash:
        assert stash.mode == "record"
        stash.intercept("llm", "a", lambda: 1)
    assert path.exists()
    with create_stash(path=path, record_mode="once") as stash:
        assert stash.mode == "replay"
        assert stash.intercept("llm", "a", lambda: 2) == 1
        with pytest.raises(StashError) as info:
            stash.intercept("llm", "new", lambda: 3)
        assert info.value.code == "ERR_RECORDING_EXHAUSTED"


def test_none_mode_requires_a_recording(tmp_path):
    with pytest.raises(StashError) as info:
        create_stash(path=tmp_path / "missing.json", record_mode="none")
    assert info.value.code == "ERR_NOT_FOUND" and "record_mode='once'" in info.value.message


def test_new_episodes_appends(tmp_path):
    path = tmp_path / "rec.json"
    with create_stash(path=path) as stash:
        stash.value("llm", "a", 1)
    with create_stash(path=path, record_mode="new_episodes") as stash:
        assert stash.value("llm", "a", 99) == 1
        assert stash.value("llm", "b", 2) == 2
    assert [e.key for e in read_recording(path).events] == ["a", "b"]


def test_all_rerecords(tmp_path):
    path = tmp_path / "rec.json"
    with create_stash(path=path) as stash:
        stash.value("llm", "a", 1)
    with create_stash(path=path, record_mode="all") as stash:
        assert stash.mode == "record"
        stash.value("llm", "a", 5)
    rec = read_recording(path)
    assert rec.blobs[rec.events[0].ref] == 5


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_failed_run_is_not_written_unless_asked(tmp_path, suffix):
    (tmp_path / "out").mkdir()
    path = tmp_path / "out" / f"rec{suffix}"
    with pytest.raises(RuntimeError):
        with create_stash(path=path) as stash:
            stash.value("llm", "a", 1)
            raise RuntimeError("test failed")
    assert not path.exists() and list(path.parent.iterdir()) == []
    with pytest.raises(RuntimeError):
        with create_stash(path=path, record_on_error=True) as stash:
            stash.value("llm", "a", 1)
            raise RuntimeError("test failed")
    assert len(read_recording(path).events) == 1


def test_async_context_manager(tmp_path):
    path = tmp_path / "rec.json"

    async def run():
        async with create_stash(path=path) as stash:
            await stash.aintercept("llm", "a", lambda: 1)

    asyncio.run(run())
    assert path.exists()


def test_replay_from_text_and_write_requires_path():
    stash = create_stash()
    stash.value("a", "b", 1)
    replay = create_stash(replay=stash.save())
    assert replay.mode == "replay" and replay.value("a", "b", 0) == 1
    with pytest.raises(StashError):
        stash.write()
    with pytest.raises(StashError):
        create_stash(record_mode="sometimes")  # type: ignore[arg-type]
    assert stash.report().ok and stash.close() is None
