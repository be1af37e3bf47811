from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sandbox.output import CappedOutput


def test_small_output_is_kept_whole() -> None:
    out = CappedOutput(100)
    out.feed(b"hello ")
    out.feed("wörld".encode())
    assert out.text() == "hello wörld"
    assert out.dropped == 0


def test_flood_keeps_head_and_tail_and_counts_the_rest() -> None:
    out = CappedOutput(10)
    out.feed(b"HEAD-")
    out.feed(b"x" * 1000)
    out.feed(b"-TAIL")
    assert out.dropped == 1010 - 10
    text = out.text()
    assert text.startswith("HEAD-")
    assert text.endswith("-TAIL")
    assert "1000 bytes of output dropped" in text


@given(st.lists(st.binary(max_size=50), max_size=30), st.integers(min_value=2, max_value=64))
def test_kept_bytes_are_the_true_head_and_tail(chunks: list[bytes], cap: int) -> None:
    out = CappedOutput(cap)
    for chunk in chunks:
        out.feed(chunk)
    data = b"".join(chunks)
    assert out.total == len(data)
    assert out.dropped == max(0, len(data) - cap)
    if out.dropped:
        head, tail = cap // 2, cap - cap // 2
        assert bytes(out._head) == data[:head]
        assert bytes(out._tail) == data[-tail:]
    else:
        assert bytes(out._head + out._tail) == data
