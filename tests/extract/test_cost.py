"""Cost from usage fields and the price table."""

from __future__ import annotations

import pytest

from agentctx.extract import cost


def test_haiku_45_cost_from_usage():
    u = cost.usage_of({"input_tokens": 1000, "output_tokens": 500, "cache_creation_input_tokens": 2000,
                       "cache_read_input_tokens": 0})
    assert cost.usd(u, "claude-haiku-4-5-20251001") == pytest.approx(0.006)  # the original's acceptance case 25


def test_cache_split_by_ttl_and_none_fields():
    u = cost.usage_of({"input_tokens": None, "output_tokens": 10, "cache_creation_input_tokens": 300,
                       "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200},
                       "cache_read_input_tokens": 1000})
    assert (u.input, u.cache_write_5m, u.cache_write_1h, u.cache_read) == (0, 100, 200, 1000)
    assert cost.usd(u, "claude-haiku-4-5") == pytest.approx((10 * 5 + 100 * 1.25 + 200 * 2 + 1000 * 0.1) / 1e6)


def test_unknown_model_priced_as_default_and_cache_minimum():
    assert cost.price("claude-mystery")[1] is False
    assert cost.cache_minimum("claude-haiku-4-5-20251001") == 4096
    assert cost.cache_minimum("claude-mystery") is None
