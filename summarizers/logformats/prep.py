"""Turn raw terminal output into clean lines every parser can rely on.

Colour codes, carriage-return progress redraws and runs of identical lines (recursion frames,
retry loops) are terminal artefacts, not information, so they go before any parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_LINE_CHARS = 10_000
MAX_PERIOD = 6
MIN_REPEATS = 3


@dataclass
class Prepared:
    lines: list[str]
    repeated_dropped: int


def strip_terminal(text: str) -> str:
    """What a terminal would leave on screen: colour and cursor codes gone, carriage-return
    redraws resolved to their last state, other control characters dropped (tabs and
    newlines stay). A repository's `--color=yes` must not cost the model kilobytes of `[0m`."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = "\n".join(_last_redraw(line) for line in text.split("\n"))
    return _CONTROL.sub("", text)


def prepare(text: str) -> Prepared:
    lines = strip_terminal(text).split("\n")
    if lines and max(map(len, lines)) > MAX_LINE_CHARS:
        lines = [_clip_line(line) for line in lines]
    lines = [line.rstrip() for line in lines]
    if lines and lines[-1] == "":
        lines.pop()
    collapsed, dropped = collapse_repeats(lines)
    return Prepared(collapsed, dropped)


def _last_redraw(line: str) -> str:
    """What a terminal shows after carriage-return redraws: the text after the last CR."""
    line = line.rstrip("\r")
    return line.rsplit("\r", 1)[1] if "\r" in line else line


def _clip_line(line: str) -> str:
    """Minified output can be megabytes on one line; cutting it keeps per-line regexes cheap."""
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]} [... {len(line) - MAX_LINE_CHARS} more characters]"


def collapse_repeats(lines: list[str]) -> tuple[list[str], int]:
    """Keep one copy of any run of a 1-6 line group repeated 3+ times, and say so in place.

    The shortest repeating period wins, which keeps this linear: each line is compared a
    bounded number of times.
    """
    out: list[str] = []
    dropped = 0
    i, n = 0, len(lines)
    while i < n:
        period, reps = _repetition(lines, i, n)
        if reps:
            out.extend(lines[i : i + period])
            if any(lines[i : i + period]):
                noun = "" if period == 1 else f" {period} lines"
                out.append(f"    [repeated{noun} {reps - 1} more times]")
            dropped += (reps - 1) * period
            i += reps * period
        else:
            out.append(lines[i])
            i += 1
    return out, dropped


def _repetition(lines: list[str], i: int, n: int) -> tuple[int, int]:
    for period in range(1, MAX_PERIOD + 1):
        if i + MIN_REPEATS * period > n or lines[i] != lines[i + period]:
            continue
        if period == 1:
            j = i + 1
            first = lines[i]
            while j < n and lines[j] == first:
                j += 1
            reps = j - i
        else:
            group = lines[i : i + period]
            reps = 1
            while (
                i + (reps + 1) * period <= n
                and lines[i + reps * period : i + (reps + 1) * period] == group
            ):
                reps += 1
        if reps >= MIN_REPEATS:
            return period, reps
    return 0, 0
