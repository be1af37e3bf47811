from coder.models.pricing import cost_usd


def test_longest_known_prefix_prices_the_model():
    assert cost_usd("anthropic:claude-sonnet-4-5", 1_000_000, 100_000) == 3.0 + 1.5
    assert cost_usd("openai:gpt-4o-mini", 1_000_000, 0) == 0.15


def test_unknown_models_have_no_cost():
    assert cost_usd("script:fixtures/x.json", 10, 10) is None
    assert cost_usd("openai:qwen2.5-coder:7b", 10, 10) is None
