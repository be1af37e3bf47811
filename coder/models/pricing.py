"""Rough list prices, so progress can show what a run costs as it goes, and what a provider's
prompt cache makes of the input: billed input, beside raw input.

USD per million tokens (input, output) by model-id prefix; an unknown model shows no cost
rather than a guess. Cache reads and writes are priced as multiples of the input price, by
provider (the longest prefix of the model spec that names one).
"""

from __future__ import annotations

PRICES: dict[str, tuple[float, float]] = {
    "anthropic:claude-opus-4": (15.0, 75.0),
    "anthropic:claude-sonnet-4": (3.0, 15.0),
    "anthropic:claude-3-7-sonnet": (3.0, 15.0),
    "anthropic:claude-3-5-haiku": (0.8, 4.0),
    "anthropic:claude-haiku-4": (1.0, 5.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
    "openai:gpt-4o": (2.5, 10.0),
}

CACHE_RATES: dict[str, tuple[float, float]] = {
    "anthropic:": (0.1, 1.25),
    "openai:": (0.5, 1.0),
    "openai:gpt-4.1": (0.25, 1.0),
    "openai:gpt-5": (0.1, 1.0),
}
"""(cache read, cache write) as multiples of the input price. Anthropic reads at a tenth and
writes (five-minute cache) at 1.25x; OpenAI caches by itself, writes at the plain price and
reads at half (gpt-4o), a quarter (gpt-4.1) or a tenth (gpt-5). Any other spec: both at the
plain price, an upper bound."""


def _longest(table: dict[str, tuple[float, float]], model_spec: str) -> tuple[float, float] | None:
    matches = [prefix for prefix in table if model_spec.startswith(prefix)]
    return table[max(matches, key=len)] if matches else None


def cache_rates(model_spec: str) -> tuple[float, float]:
    return _longest(CACHE_RATES, model_spec) or (1.0, 1.0)


def billed_input(
    model_spec: str, input_tokens: int, cache_read: int = 0, cache_write: int = 0
) -> float:
    """Input tokens as the provider bills them, in plain-input tokens: `input_tokens` is the
    whole prompt (coder.models.base.Usage), of which `cache_read` came from the cache and
    `cache_write` went into it."""
    read_rate, write_rate = cache_rates(model_spec)
    plain = max(0, input_tokens - cache_read - cache_write)
    return plain + cache_read * read_rate + cache_write * write_rate


def cost_usd(
    model_spec: str,
    input_tokens: int,
    output_tokens: int,
    cache_read: int = 0,
    cache_write: int = 0,
) -> float | None:
    prices = _longest(PRICES, model_spec)
    if prices is None:
        return None
    per_in, per_out = prices
    billed = billed_input(model_spec, input_tokens, cache_read, cache_write)
    return (billed * per_in + output_tokens * per_out) / 1_000_000
