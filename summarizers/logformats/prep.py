"""Turn raw terminal output into clean lines every parser can rely on.

Colour codes, carriage-return progress redraws and runs of identical lines (recursion frames,
retry loops) are terminal artefacts, not information, so they go before any parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
MAX_PERIOD = 6
MIN_REPEATS = 3


@dataclass
class Prepared:
    lines: list[str]
    repeated_dropped: int


def prepare(text: str) -> Prepared:
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    lines = []
    for raw in text.split("\n"):
        if "\r" in raw:
            raw = raw.rstrip("\r")
            if "\r" in raw:
                raw = raw.rsplit("\r", 1)[1]
        lines.append(raw.rstrip())
    if lines and lines[-1] == "":
        lines.pop()
    collapsed, dropped = collapse_repeats(lines)
    return Prepared(collapsed, dropped)


def collapse_repeats(lines: list[str]) -> tuple[list[str], int]:
    """Keep one copy of any run of a 1-6 line group repeated 3+ times, and say so in place."""
    out: list[str] = []
    dropped = 0
    i, n = 0, len(lines)
    while i < n:
        best_period, best_reps = 0, 0
        for period in range(1, MAX_PERIOD + 1):
            if i + 2 * period > n or lines[i] != lines[i + period]:
                continue
            reps = 1
            while i + (reps + 1) * period <= n and _same(lines, i, i + reps * period, period):
                reps += 1
            if reps >= MIN_REPEATS and reps * period > best_reps * best_period:
                best_period, best_reps = period, reps
        if best_reps:
            out.extend(lines[i : i + best_period])
            more = best_reps - 1
            if any(lines[i : i + best_period]):
                noun = "" if best_period == 1 else f" {best_period} lines"
                out.append(f"    [repeated{noun} {more} more times]")
            dropped += more * best_period
            i += best_reps * best_period
        else:
            out.append(lines[i])
            i += 1
    return out, dropped


def _same(lines: list[str], a: int, b: int, period: int) -> bool:
    return all(lines[a + k] == lines[b + k] for k in range(period))
