"""Which lines an edit says it changed: the ones that differ, not the whole old_text."""

import pytest

from coder.tools.regions import changed_span


@pytest.mark.parametrize(
    ("old", "new", "span"),
    [
        ("return a - b", "return a + b", (10, 10)),
        ("def f():\n    x = 1\n    return x\n", "def f():\n    x = 2\n    return x\n", (11, 11)),
        ("a\nb\n", "a\nb\nc\n", (12, 12)),
        ("a\nb\nc\n", "a\nc\n", (11, 11)),
        ("a\n", "", (10, 10)),
        ("a\nb", "x\ny\nz", (10, 12)),
        ("a\r\nb\r\n", "a\r\nB\r\n", (11, 11)),
    ],
    ids=["one line", "middle line", "line added", "line removed", "deleted", "all", "crlf"],
)
def test_the_span_is_the_lines_that_differ(old: str, new: str, span: tuple[int, int]) -> None:
    assert changed_span(10, old, new) == span
