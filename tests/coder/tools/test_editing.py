from coder.tools.editing import apply_edit

SOURCE = "def f(a):\n    return a\n\n\ndef g(b):\n    return b\n"


def test_unique_match_is_replaced():
    out = apply_edit(SOURCE, "return a\n", "return a + 1\n")
    assert out.ok and "return a + 1" in out.content and "return b" in out.content


def test_several_matches_name_their_lines():
    out = apply_edit(SOURCE, "    return", "    yield")
    assert not out.ok and "2 times" in out.message and "lines 2, 6" in out.message


def test_whitespace_only_difference_is_explained():
    out = apply_edit(SOURCE, "def f(a):\n  return a", "x")
    assert not out.ok and "whitespace" in out.message


def test_near_miss_suggests_the_closest_lines():
    out = apply_edit(SOURCE, "def g(c):\n    return c", "x")
    assert not out.ok and "did you mean" in out.message and "def g(b):" in out.message


def test_nothing_close_says_to_read_first():
    out = apply_edit(SOURCE, "class Unrelated:\n    pass\n    # zzz", "x")
    assert not out.ok and "read the file" in out.message
