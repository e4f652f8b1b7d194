"""Bench for agentctx.stash: per-call overhead, seal/verify of 10,000 events, scrubber on 100 KB."""

from __future__ import annotations

import time

from agentctx.stash import create_stash, load_stash, scrub_text, seal_recording, verify_recording

CALLS = 20_000
VALUE = {"role": "assistant", "text": "ok", "n": 1}


def _per_call_us(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    baseline = _per_call_us(lambda: (lambda: VALUE)(), CALLS)
    recorder = create_stash(timestamps=False)
    record_us = _per_call_us(lambda: recorder.intercept("llm", "plan", lambda: VALUE, input={"q": 1}), CALLS)
    replayer = load_stash(recorder.recording())
    replay_us = _per_call_us(lambda: replayer.intercept("llm", "plan", lambda: VALUE, input={"q": 1}), CALLS)
    print(f"intercept overhead (small value, with input): record {record_us - baseline:.1f} µs, replay {replay_us - baseline:.1f} µs")

    big = create_stash(timestamps=False)
    for i in range(10_000):
        big.value("tool", f"k{i % 50}", {"i": i, "text": "result " * 5}, input={"q": i})
    recording = big.recording()
    start = time.perf_counter()
    seal = seal_recording(recording)
    seal_s = time.perf_counter() - start
    start = time.perf_counter()
    assert verify_recording(recording, seal).valid
    verify_s = time.perf_counter() - start
    print(f"seal 10,000 events: {seal_s:.3f} s; verify: {verify_s:.3f} s")

    text = ("2024-05-01 INFO fetched /api/v1/items?page=2 in 31ms; user=alice password field ok\n" * 1300)[:100_000]
    text += "\nAuthorization: Bearer abcdefghijklmnop123456\n"
    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        scrub_text(text)
    scrub_ms = (time.perf_counter() - start) / rounds * 1000
    print(f"scrub_text on 100 KB: {scrub_ms:.2f} ms")
    print(
        f"record_us={record_us - baseline:.1f} replay_us={replay_us - baseline:.1f} "
        f"seal_10k_s={seal_s:.3f} verify_10k_s={verify_s:.3f} scrub_100kb_ms={scrub_ms:.2f}"
    )


if __name__ == "__main__":
    main()
