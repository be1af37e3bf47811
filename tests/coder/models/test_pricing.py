import pytest

from coder.models.pricing import cost_usd


def test_longest_known_prefix_prices_the_model():
    assert cost_usd("anthropic:claude-sonnet-4-5", 1_000_000, 100_000) == 3.0 + 1.5
    assert cost_usd("openai:gpt-4o-mini", 1_000_000, 0) == 0.15


def test_unknown_models_have_no_cost():
    assert cost_usd("script:fixtures/x.json", 10, 10) is None
    assert cost_usd("openai:qwen2.5-coder:7b", 10, 10) is None


def test_cache_reads_and_writes_are_billed_at_their_providers_price():
    from coder.models.pricing import billed_input

    # Anthropic: 1,000 plain, 8,000 read at a tenth, 2,000 written at 1.25x.
    assert billed_input("anthropic:claude-sonnet-4-5", 11_000, 8_000, 2_000) == 1_000 + 800 + 2_500
    # OpenAI caches by itself: reads at half for gpt-4o, a tenth for gpt-5; writes plain.
    assert billed_input("openai:gpt-4o", 10_000, 8_000) == 2_000 + 4_000
    assert billed_input("openai:gpt-5-mini", 10_000, 8_000) == 2_000 + 800
    # A spec with no known provider: the cache at the plain price, an upper bound.
    assert billed_input("script:x.json", 10_000, 8_000, 1_000) == 10_000


def test_cost_counts_the_cache_at_its_price():
    plain = cost_usd("anthropic:claude-sonnet-4-5", 1_000_000, 0)
    cached = cost_usd("anthropic:claude-sonnet-4-5", 1_000_000, 0, cache_read=1_000_000)
    assert plain == 3.0 and cached == pytest.approx(0.3)
