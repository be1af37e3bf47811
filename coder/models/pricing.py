"""Rough list prices, so progress can show what a run costs as it goes.

USD per million tokens (input, output) by model-id prefix; an unknown model shows no cost
rather than a guess. Cache reads and writes are priced as plain input: an upper bound.
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


def cost_usd(model_spec: str, input_tokens: int, output_tokens: int) -> float | None:
    matches = [prefix for prefix in PRICES if model_spec.startswith(prefix)]
    if not matches:
        return None
    per_in, per_out = PRICES[max(matches, key=len)]
    return (input_tokens * per_in + output_tokens * per_out) / 1_000_000
