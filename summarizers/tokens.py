"""The one token estimator every budget in coder is measured with.

Providers tokenize differently; a fixed, stated estimate keeps budgets comparable across models
and lets tests check "never over budget" exactly instead of approximately.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def utf8_len(text: str) -> int:
    """Bytes of `text` in UTF-8; lone surrogates count as the 3 bytes they would occupy."""
    return len(text.encode("utf-8", "surrogatepass"))


def estimate_tokens(text: str) -> int:
    """`ceil(len(text.encode()) / 4)`: the stated estimator (issue 4)."""
    return -(-utf8_len(text) // BYTES_PER_TOKEN)


def byte_cap(budget: int) -> int:
    """The largest UTF-8 size that still estimates to at most `budget` tokens."""
    return max(0, budget) * BYTES_PER_TOKEN


def clip_to_bytes(text: str, limit: int, marker: str = "…") -> str:
    """Cut `text` to at most `limit` UTF-8 bytes, ending in `marker` when something was cut."""
    if utf8_len(text) <= limit:
        return text
    room = limit - utf8_len(marker)
    if room <= 0:
        return _prefix_bytes(text, limit)
    return _prefix_bytes(text, room) + marker


def clip_chars(text: str, limit: int, marker: str = "…") -> str:
    """Cut `text` to `limit` characters (a cheap per-line cap before byte accounting)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))] + marker


def _prefix_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8", "surrogatepass")[: max(0, limit)]
    return data.decode("utf-8", "ignore")
