"""Any other log: keep the lines that look like errors, the lines around them and the tail.

The fallback when no known format is recognised; it must still never come back empty for a
failing log, so with nothing error-like it keeps the last lines, where runners put their verdict.
"""

from __future__ import annotations

import re

from summarizers.logformats.context import add_unique, references, windows
from summarizers.logformats.model import Failure, ParsedLog

_ERROR = re.compile(
    r"error\b|\bFAIL(?:ED|URE|URES)?\b|\bfailed\b|Traceback|\bfatal\b|"
    r"\bpanic(?:ked)?\b|\bException\b|Segmentation fault|\bnot ok\b|✖|Killed|\bERR!",
    re.IGNORECASE,
)
_NOT_ERROR = re.compile(
    r"\b0 (?:errors?|failed|failures?)\b|\bno errors?\b|\berrors?=0\b", re.IGNORECASE
)
_SUMMARY = re.compile(
    r"\b\d{1,9} (?:passed|failed|failures?|errors?|tests?|warnings?|passing|failing|pending|skipped|"
    r"succeeded|ok)\b|test result:|\bTests?:\s+\d+",
    re.IGNORECASE,
)
TAIL_LINES = 15
ID_CHARS = 160


def sniff(lines: list[str]) -> float:
    return 0.5


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="generic", lines=lines)
    hits = [
        i for i, line in enumerate(lines) if _ERROR.search(line) and not _NOT_ERROR.search(line)
    ]
    summary = [i for i in range(max(0, len(lines) - 60), len(lines)) if _SUMMARY.search(lines[i])]
    if summary:
        log.counts = [lines[summary[-1]].strip()]
    seen: dict[str, Failure] = {}
    k = 0
    for start, end in windows(hits, 0, len(lines)):
        inside = []
        while k < len(hits) and hits[k] < end:
            inside.append(hits[k])
            k += 1
        ident = lines[inside[0]].strip()[:ID_CHARS]
        blocks = windows(inside, start, end, radius=1) + [(start, end)]  # the core lines first
        if ident in seen:
            seen[ident].blocks += blocks
            continue
        failure = Failure(id=ident, label="", blocks=blocks)
        for i in inside[:50]:
            add_unique(failure.locations, references(lines[i], None), cap=4)
        seen[ident] = failure
        log.failures.append(failure)
    if not log.failures and lines:
        n = len(lines)
        tails = [(max(0, n - k), n) for k in (3, 8, TAIL_LINES)]  # the very end first
        log.failures.append(Failure(id="last lines of output", label="", blocks=tails))
    return log
