"""Text from a model or a repository, made safe for a person's terminal.

A stop reason, a plan, a file name or a command's output can carry terminal control sequences
(`ESC[1A ESC[2K` moves up and erases a line, so a failed run could draw a green "verified" over
its own result line; OSC 8 plants hidden links; OSC 0 retitles the window) and rich markup
(`[len(c) for c in x]` would lose its brackets, `[/]` would end a style). Everything that came
from outside the harness passes through `plain` before it reaches a terminal, and through
`markup_safe` when it is printed inside rich markup. A field is one line: a newline (or any
other character a terminal or `splitlines` breaks a line at: CR, VT, FF, FS/GS/RS, NEL, U+2028,
U+2029) inside a stop reason or a file name is shown as an escape (`\\n`), so text from outside
cannot draw a line of its own, such as a fake "verified (completed)" result line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console
from rich.markup import escape

_SEQUENCES = re.compile(
    r"""
      \x1b\[ [0-?]* [ -/]* [@-~]?                 # CSI: cursor moves, erases, colours
    | \x9b [0-?]* [ -/]* [@-~]?                   # the same, as one C1 byte
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])        # OSC, DCS, SOS, PM, APC ...
      .*? (?:\x07|\x1b\\|\x9c|\Z)                 # ... up to their terminator
    | \x1b [ -/]* [0-~]?                          # any other escape (ESC c resets the screen)
    """,
    re.VERBOSE | re.DOTALL,
)
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"  # bidi marks, embeddings, overrides, isolates
)


_LINE_BREAKS = {
    "\n": "\\n",
    "\r": "\\r",
    "\v": "\\v",
    "\f": "\\f",
    "\x1c": "\\x1c",
    "\x1d": "\\x1d",
    "\x1e": "\\x1e",
    "\x85": "\\x85",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_BREAKS = re.compile("[" + "".join(_LINE_BREAKS) + "]")


def one_line(text: str) -> str:
    """`text` on one line: every line break in it shown as its escape."""
    return _BREAKS.sub(lambda found: _LINE_BREAKS[found.group()], text)


def plain(text: str) -> str:
    """`text` without control sequences or characters; tabs and newlines stay."""
    if text.isprintable():
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))


def markup_lines(text: object) -> str:
    """Outside text for a table cell, which wraps anyway: printable, its line breaks kept."""
    return escape(plain(str(text).replace("\r\n", "\n")))


def markup_safe(text: object) -> str:
    """Outside text to put inside a rich markup string: shown exactly as printable text, on
    one line."""
    return escape(plain(one_line(str(text))))


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """`fn` applied to every string of a JSON-like value (a trace event, a tool call's input)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_strings(v, fn) for k, v in value.items()}
    return value


def detach_closed(stream: IO[str] | None = None) -> None:
    """After a write to a closed pipe (`coder run … | head`): send the rest of what goes to
    `stream` (standard output by default) to /dev/null, so the run goes on and still writes
    its outputs instead of dying mid-step."""
    stream = stream or sys.stdout
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError):
        pass  # not a real file descriptor (a test's capture): nothing to protect
    finally:
        os.close(devnull)


class LastingConsole(Console):
    """A console whose reader may go away mid-run (`coder run … | head`). Rich's own answer to
    a closed pipe is SystemExit(1), which would end the run half way; this one drops the rest
    of its output and lets the run finish and write its outputs."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        detach_closed(self.file)
