"""Decoding a repository file without loss: every text file encodes back to its own bytes."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coder.tools.textfile import NotText, TextFile, decode_file, printable, with_newlines

PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06"


@pytest.mark.parametrize(
    ("data", "label", "text"),
    [
        (b"caf\xc3\xa9\n", "UTF-8", "café\n"),
        (b"caf\xe9\n", "latin-1", "café\n"),
        (b"\x93quoted\x94 \x80\n", "cp1252", "“quoted” €\n"),
        (codecs.BOM_UTF8 + b"x = 1\n", "UTF-8 with BOM", "x = 1\n"),
        (codecs.BOM_UTF16_LE + "héllo\n".encode("utf-16-le"), "UTF-16", "héllo\n"),
        (codecs.BOM_UTF16_BE + "héllo\n".encode("utf-16-be"), "UTF-16", "héllo\n"),
        (codecs.BOM_UTF32_LE + "𝄞\n".encode("utf-32-le"), "UTF-32", "𝄞\n"),
    ],
)
def test_text_in_any_encoding_decodes_and_encodes_back_exactly(data, label, text):
    file = decode_file(data)
    assert isinstance(file, TextFile)
    assert (file.label, file.text) == (label, text)
    assert file.encode(file.text) == data


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (PNG_HEAD, "binary"),
        (bytes(range(256)) * 4, "binary"),
        (b"\x01\x02\x03\x04\x05\x06\xff\xfe" * 50, "binary"),
        (codecs.BOM_UTF16_LE + b"\x00\xd8", "not valid UTF-16"),  # a lone high surrogate
    ],
)
def test_data_that_is_not_text_is_refused_with_a_reason(data, why):
    file = decode_file(data)
    assert isinstance(file, NotText) and why in file.reason


def test_newline_style_is_what_most_lines_use():
    assert decode_file(b"a\r\nb\r\nc\n").newline == "\r\n"  # type: ignore[union-attr]
    assert decode_file(b"a\nb\nc\r\n").newline == "\n"  # type: ignore[union-attr]
    assert decode_file(b"no newline").newline == "\n"  # type: ignore[union-attr]


def test_view_drops_only_the_cr_of_crlf():
    file = decode_file(b"a\r\nb\rc\n")
    assert isinstance(file, TextFile) and file.view == "a\nb\rc\n"


def test_a_character_the_encoding_lacks_is_a_reason_not_an_exception():
    file = decode_file(b"caf\xe9\n")
    assert isinstance(file, TextFile)
    why = file.encode("price: 5€\n")
    assert isinstance(why, str) and "U+20AC" in why and "latin-1" in why
    assert isinstance(file.encode("bad \udcff"), str)


def test_with_newlines_converts_any_style():
    assert with_newlines("a\nb\r\nc", "\r\n") == "a\r\nb\r\nc"
    assert with_newlines("a\r\nb\nc", "\n") == "a\nb\nc"


@given(st.binary(max_size=600))
def test_every_decodable_file_round_trips_byte_for_byte(data):
    file = decode_file(data)
    if isinstance(file, TextFile):
        assert file.encode(file.text) == data
    else:
        assert file.reason


@given(st.text())
def test_printable_is_always_valid_utf8_and_changes_only_surrogates(text):
    out = printable(text)
    out.encode("utf-8")
    assert len(out) == len(text)
    assert all(a == b or 0xD800 <= ord(a) <= 0xDFFF for a, b in zip(text, out, strict=True))
