from __future__ import annotations

import pytest

from summarizers.tokens import byte_cap, clip_to_bytes, estimate_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("é", 1), ("ééé", 2), ("€" * 4, 3)],
)
def test_estimate_is_ceil_of_utf8_bytes_over_four(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_lone_surrogates_are_counted_not_raised() -> None:
    assert estimate_tokens("a\udcff") == 1


@pytest.mark.parametrize("limit", range(0, 12))
def test_clip_never_exceeds_the_byte_limit_and_keeps_valid_text(limit: int) -> None:
    clipped = clip_to_bytes("héllo wörld €€", limit)
    assert len(clipped.encode()) <= limit
    assert clipped.encode().decode() == clipped


def test_byte_cap_is_four_bytes_per_token() -> None:
    assert byte_cap(10) == 40
    assert estimate_tokens("x" * byte_cap(10)) == 10
    assert estimate_tokens("x" * (byte_cap(10) + 1)) == 11
