"""Outside text on a terminal: control sequences gone, markup shown as written."""

from __future__ import annotations

import io
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from coder.bench.report import runs_table
from coder.display import map_strings, markup_safe, plain

FAKE_RESULT = "\x1b[1A\x1b[2K\x1b[32mverified (completed)\x1b[0m"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (FAKE_RESULT, "verified (completed)"),
        ("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "click"),
        ("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"),
        ("\x1b]0;new window title\x07after", "after"),
        ("\x1bPdevice control\x1b\\after", "after"),
        ("\x9b2Kc1 csi", "c1 csi"),
        ("\x1bcreset", "reset"),
        ("bell\x07 back\x08 del\x7f cr\r", "bell back del cr"),
        ("\u202eevil\u202c \u2066iso\u2069", "evil iso"),
        ("tabs\tand\nnewlines stay", "tabs\tand\nnewlines stay"),
        ("unterminated \x1b]0;swallows the rest", "unterminated "),
        ("naïve café ✓ 日本", "naïve café ✓ 日本"),
    ],
)
def test_plain_strips_control_sequences_and_characters(raw, shown):
    assert plain(raw) == shown


BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@given(st.text(st.one_of(st.characters(), st.sampled_from(sorted(BIDI) + ["\x1b", "\x9b"]))))
def test_plain_leaves_no_control_character_but_tab_and_newline(text):
    out = plain(text)
    assert not [c for c in out if unicodedata.category(c) == "Cc" and c not in "\t\n"]
    assert not BIDI & set(out)


def _printed(markup: str) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(markup, highlight=False)
    return out.getvalue()


def test_markup_in_outside_text_prints_literally():
    text = "keep [len(c) for c in x] and [/] and [bold red]this[/]"
    assert _printed(f"[bold]why:[/] {markup_safe(text)}") == f"why: {text}\n"


def test_markup_safety_reaches_every_string_of_an_event():
    event = {"type": "x", "nested": [{"why": FAKE_RESULT + " [b]"}], "n": 3}
    safe = map_strings(event, markup_safe)
    assert safe["n"] == 3 and _printed(safe["nested"][0]["why"]) == "verified (completed) [b]\n"


def test_bench_report_shows_fixture_names_as_written():
    row = {
        "fixture": "odd[bold]name\x1b[2K",
        "mode": "contract",
        "resolved": True,
        "claimed_success": True,
        "shipped_broken": False,
        "stop_reason": "completed",
        "steps": 1,
        "rollbacks": 0,
        "revisions": 0,
        "turns": 3,
        "tokens": {"input": 1, "output": 2},
        "wall_s": 1.0,
    }
    out = io.StringIO()
    Console(file=out, width=300, color_system=None).print(runs_table([row]))
    assert "odd[bold]name" in out.getvalue() and "\x1b" not in out.getvalue()
