"""The file tools on files that are not plain UTF-8 with LF line ends, over a real git repository.

Every byte outside the edited text stays as it was (encoding, newline style, a lone `\\r`);
binary files are refused by every text tool; nothing a file holds makes a tool raise.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest
from gitrepo import git, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coder.tools.toolbox import ToolBox
from sandbox.confine import make_sandbox
from sandbox.policy import PathPolicy

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\r\n\x00\x02\x00\x01\xe2!\xbc3\x00"
    b"\x00\x00\x00IEND\xaeB`\x82"
)


def _box(repo: Path) -> ToolBox:
    return ToolBox(repo, make_sandbox("none", repo), PathPolicy(repo, None, []), 5.0)


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    return _box(make_repo(tmp_path / "repo", {"README.md": "hello\n"}))


def _put(box: ToolBox, rel: str, data: bytes) -> Path:
    path = box.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_crlf_file_stays_crlf_and_a_one_line_edit_changes_one_line(box):
    lines = [f"line {i}" for i in range(20)]
    path = _put(box, "win.txt", ("\r\n".join(lines) + "\r\n").encode())
    git(box.root, "add", "win.txt")
    git(box.root, "commit", "-qm", "crlf")
    shown = box.execute("read_file", {"path": "win.txt"})
    assert "\r" not in shown.text and "CRLF" in shown.text
    obs = box.execute(
        "edit_file", {"path": "win.txt", "old_text": "line 4\nline 5", "new_text": "line 4\nFIVE"}
    )
    assert obs.status == "ok", obs.text
    assert path.read_bytes() == ("\r\n".join(lines).replace("line 5", "FIVE") + "\r\n").encode()
    numstat = git(box.root, "diff", "--numstat", "win.txt").split()
    assert numstat[:2] == ["1", "1"]


def test_added_lines_in_a_crlf_file_get_crlf(box):
    path = _put(box, "win.txt", b"a\r\nb\r\n")
    obs = box.execute("edit_file", {"path": "win.txt", "old_text": "b", "new_text": "b\nc\nd"})
    assert obs.status == "ok" and path.read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"


def test_lone_cr_and_mixed_line_ends_outside_the_edit_are_untouched(box):
    data = b"first\rstill first\r\nsecond\nthird\r\n"
    path = _put(box, "mixed.txt", data)
    obs = box.execute("edit_file", {"path": "mixed.txt", "old_text": "second", "new_text": "2nd"})
    assert obs.status == "ok"
    assert path.read_bytes() == data.replace(b"second", b"2nd")


def test_latin1_file_is_read_edited_and_written_back_as_latin1(box):
    path = _put(box, "legacy.py", "# café crème\nname = 'Zoë'\n".encode("latin-1"))
    shown = box.execute("read_file", {"path": "legacy.py"})
    assert shown.status == "ok" and "café crème" in shown.text and "latin-1" in shown.text
    obs = box.execute(
        "edit_file", {"path": "legacy.py", "old_text": "'Zoë'", "new_text": "'Zoë Noël'"}
    )
    assert obs.status == "ok"
    assert path.read_bytes() == "# café crème\nname = 'Zoë Noël'\n".encode("latin-1")
    found = box.execute("search", {"pattern": "Noël"})
    assert found.text.startswith("legacy.py:2:")


def test_a_character_latin1_lacks_is_refused_and_the_file_is_unchanged(box):
    data = "prix = 'café'\n".encode("latin-1")
    path = _put(box, "legacy.py", data)
    obs = box.execute("edit_file", {"path": "legacy.py", "old_text": "café", "new_text": "5 €"})
    assert obs.status == "error" and "U+20AC" in obs.text
    assert path.read_bytes() == data


def test_utf16_with_bom_keeps_its_encoding_and_bom(box):
    data = codecs.BOM_UTF16_LE + "x = 'ü'\r\ny = 2\r\n".encode("utf-16-le")
    path = _put(box, "wide.txt", data)
    shown = box.execute("read_file", {"path": "wide.txt"})
    assert shown.status == "ok" and "x = 'ü'" in shown.text and "UTF-16" in shown.text
    obs = box.execute("edit_file", {"path": "wide.txt", "old_text": "y = 2", "new_text": "y = 3"})
    assert obs.status == "ok"
    assert path.read_bytes() == codecs.BOM_UTF16_LE + "x = 'ü'\r\ny = 3\r\n".encode("utf-16-le")


def test_png_is_refused_by_edit_and_write_and_left_byte_identical(box):
    path = _put(box, "img/logo.png", PNG)
    identity = box.execute(
        "edit_file", {"path": "img/logo.png", "old_text": "IHDR", "new_text": "IHDR"}
    )
    assert identity.status == "error" and "binary" in identity.text
    write = box.execute("write_file", {"path": "img/logo.png", "content": "not a png"})
    assert write.status == "error" and "binary" in write.text
    read = box.execute("read_file", {"path": "img/logo.png"})
    assert read.status == "error" and "binary" in read.text
    assert path.read_bytes() == PNG


def test_write_file_over_a_text_file_keeps_its_encoding_and_line_ends(box):
    path = _put(box, "legacy.txt", "été\r\n".encode("latin-1"))
    obs = box.execute("write_file", {"path": "legacy.txt", "content": "hiver\nété\n"})
    assert obs.status == "ok"
    assert path.read_bytes() == "hiver\r\nété\r\n".encode("latin-1")
    new = box.execute("write_file", {"path": "fresh.txt", "content": "a\r\nb\n"})
    assert new.status == "ok" and (box.root / "fresh.txt").read_bytes() == b"a\r\nb\n"


def test_search_says_how_many_files_it_could_not_read_as_text(box):
    _put(box, "logo.png", PNG)
    _put(box, "broken.txt", codecs.BOM_UTF16_LE + b"\x00\xd8")
    _put(box, "notes.txt", b"needle\r\n")
    found = box.execute("search", {"pattern": r"needle$"})
    assert found.status == "ok"
    assert found.text.splitlines() == [
        "notes.txt:1: needle",
        "(2 file(s) skipped: binary or not decodable as text)",
    ]


def test_identity_edit_on_text_leaves_the_file_untouched(box):
    data = b"a\r\nb\r\n"
    path = _put(box, "same.txt", data)
    before = path.stat().st_mtime_ns
    assert box.execute("edit_file", {"path": "same.txt", "old_text": "a", "new_text": "a"}).status
    assert path.read_bytes() == data and path.stat().st_mtime_ns == before


def test_lone_surrogates_from_a_model_are_answered_not_raised(box):
    path = _put(box, "f.txt", b"abc\n")
    obs = box.execute("edit_file", {"path": "f.txt", "old_text": "abc", "new_text": "\udcff"})
    assert obs.status == "error"
    obs.text.encode("utf-8")
    assert path.read_bytes() == b"abc\n"
    odd = box.execute("read_file", {"path": "\udcff.txt"})
    assert odd.status == "error"
    odd.text.encode("utf-8")


# Property: random bytes and random calls never escape the tool box, and an edit changes
# the file only inside a window no larger than the text it replaced.

_ENCODINGS = {
    "utf-8": (b"", "utf-8", st.characters(exclude_characters="\r\n\x00\ufeff", codec="utf-8")),
    "utf-8-bom": (
        codecs.BOM_UTF8,
        "utf-8",
        st.characters(exclude_characters="\r\n\x00\ufeff", codec="utf-8"),
    ),
    "utf-16": (
        codecs.BOM_UTF16_LE,
        "utf-16-le",
        st.characters(exclude_characters="\r\n\x00", codec="utf-8"),
    ),
    # latin-1 letters that cannot start a UTF-8 sequence, so the file cannot pass for UTF-8
    "latin-1": (b"", "latin-1", st.sampled_from(list("abc xyz=_()'") + list("àéîõüÿ"))),
    "cp1252": (b"", "cp1252", st.sampled_from(list("abc xyz=_()'") + list("€‘’“”"))),
}
_MARK = {"latin-1": "é", "cp1252": "€"}


@st.composite
def text_files(draw):
    name = draw(st.sampled_from(sorted(_ENCODINGS)))
    bom, codec, chars = _ENCODINGS[name]
    line = st.text(chars, max_size=12)
    lines = draw(st.lists(line, min_size=2, max_size=6))
    lines[0] += _MARK.get(name, "")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    view = "\n".join(lines) + "\n"
    start = draw(st.integers(0, len(view) - 1))
    end = draw(st.integers(start + 1, len(view)))
    new = draw(st.text(st.one_of(chars, st.just("\n")), max_size=12))
    return bom, codec, newline, view, view[start:end], new


_BOX: dict[str, ToolBox] = {}


def _shared_box(tmp_path_factory: pytest.TempPathFactory) -> ToolBox:
    if "box" not in _BOX:
        _BOX["box"] = _box(make_repo(tmp_path_factory.mktemp("bytes") / "repo"))
    return _BOX["box"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=text_files())
def test_edits_keep_encoding_and_newlines_exactly(tmp_path_factory, case):
    bom, codec, newline, view, old, new = case
    box = _shared_box(tmp_path_factory)
    original = bom + view.replace("\n", newline).encode(codec)
    path = _put(box, "t.txt", original)
    obs = box.execute("edit_file", {"path": "t.txt", "old_text": old, "new_text": new})
    if view.count(old) != 1:
        assert obs.status == "error" and path.read_bytes() == original
        return
    assert obs.status == "ok", obs.text
    expected = view.replace(old, new, 1).replace("\n", newline)
    assert path.read_bytes() == bom + expected.encode(codec)


_TEXT = st.text(max_size=20)  # any code point, lone surrogates included
_CALLS = st.one_of(
    st.tuples(st.just("read_file"), st.fixed_dictionaries({"path": st.just("f.bin")})),
    st.tuples(
        st.just("search"),
        st.fixed_dictionaries({"pattern": _TEXT.filter(bool).map(re.escape)}),
    ),
    st.tuples(
        st.just("edit_file"),
        st.fixed_dictionaries(
            {"path": st.just("f.bin"), "old_text": _TEXT.filter(bool), "new_text": _TEXT}
        ),
    ),
    st.tuples(
        st.just("write_file"), st.fixed_dictionaries({"path": st.just("f.bin"), "content": _TEXT})
    ),
    st.tuples(st.just("delete_file"), st.fixed_dictionaries({"path": st.just("f.bin")})),
)


def _changed_window(before: bytes, after: bytes) -> tuple[int, int]:
    """How many bytes of each differ once the common prefix and suffix are set aside."""
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    return len(before) - prefix - suffix, len(after) - prefix - suffix


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.builds(
            lambda t, c: t.encode(c, "replace"), _TEXT, st.sampled_from(["utf-8", "latin-1"])
        ),
        st.builds(lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le", "replace"), _TEXT),
    ),
    calls=st.lists(_CALLS, min_size=1, max_size=4),
)
def test_random_bytes_and_calls_never_escape_and_edits_stay_local(tmp_path_factory, data, calls):
    box = _shared_box(tmp_path_factory)
    path = _put(box, "f.bin", data)
    for tool, args in calls:
        before = path.read_bytes() if path.exists() else None
        obs = box.execute(tool, args)  # must not raise
        obs.text.encode("utf-8")  # and must be sendable as it is
        assert obs.status in ("ok", "error", "denied") and obs.text
        after = path.read_bytes() if path.exists() else None
        if tool in ("read_file", "search") or obs.status != "ok":
            assert after == before, (tool, obs.text)
        elif tool == "edit_file":
            assert before is not None and after is not None
            removed, added = _changed_window(before, after)
            # a code point is at most 4 bytes; a line end may gain or lose a CR; a BOM stays
            assert removed <= 8 * len(args["old_text"]), obs.text
            assert added <= 8 * len(args["new_text"]), obs.text
