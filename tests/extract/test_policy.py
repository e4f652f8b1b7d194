"""Input policy: redaction before sending, private spans, the seed's size windows, the carry-over."""

from __future__ import annotations

from agentctx.extract import policy
from agentctx.base.tokens import estimate
from agentctx.extract.transcript import Turn


def _turns(n: int, chars: int) -> list[Turn]:
    out = []
    for i in range(n):
        role = "developer" if i % 2 == 0 else "assistant"
        out.append(Turn(role, f"turn {i} " + "w" * (chars - 8), i * 100, i * 100 + 99))
    return out


def test_secrets_redacted_and_private_removed():
    t = Turn("developer", "key sk-ant-api03-AAAAAAAAAAAAAAAAAAAA and <private>home 1 Main St</private> done", 0, 1)
    plan = policy.plan([t])
    sent = plan.windows[0]
    assert "sk-ant-api03" not in sent and "Main St" not in sent and "[REDACTED" in sent
    assert "Main St" not in plan.evidence


def test_whole_head_tail_and_map_reduce_windows():
    small = policy.plan(_turns(10, 400))
    assert small.mode == "whole" and len(small.windows) == 1
    # developer turns are capped at 6,000 chars, so build size from many turns
    mid = policy.plan(_turns(60, 1400))  # ~ 60 * (1400 or capped 1500)/4 tokens > 15K
    assert mid.mode == "head_tail"
    assert estimate(mid.windows[0]) <= policy.HEAD_TOKENS + policy.TAIL_TOKENS + 20
    assert "[… transcript truncated …]" in mid.windows[0]
    big = policy.plan(_turns(300, 1400))
    assert big.mode == "map_reduce" and len(big.windows) >= 6
    assert all(estimate(w) <= policy.CHUNK_TOKENS + 50 for w in big.windows)


def test_assistant_turns_are_capped_as_context():
    plan = policy.plan([Turn("developer", "go", 0, 1), Turn("assistant", "x" * 10_000, 2, 3)])
    assert len(plan.windows[0]) < 2_000


def test_carry_over_is_short_and_excluded_from_new():
    earlier = _turns(40, 400)
    new = [Turn("developer", "the new request", 9000, 9100)]
    plan = policy.plan(new, earlier)
    assert estimate(plan.carry) <= policy.CARRY_TOKENS
    assert "turn 39" in plan.carry and "turn 0 " not in plan.carry
    assert plan.windows[0] == "Developer: the new request"


def test_no_developer_turn_means_nothing_to_send():
    assert policy.plan([Turn("assistant", "I did things", 0, 1)]).mode == "empty"
