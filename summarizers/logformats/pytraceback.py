"""Python tracebacks: the raw format and the parser that treats a log of them as failures.

Test runners' native tracebacks and crashing scripts all print the interpreter's own traceback,
so the analysis of one traceback block lives here once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from summarizers.logformats.context import (
    add_unique,
    assertion_site,
    prioritize,
    references,
    windows,
)
from summarizers.logformats.model import Failure, ParsedLog

TRACEBACK_HEAD = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s+File "([^"]+)", line (\d+)(?:, in (.+))?$')
_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(?:: (.*)|:)?$")
_CHAIN = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
DETAIL_CAP = 10


@dataclass
class TracebackFacts:
    exc_type: str = ""
    message: str = ""
    message_line: int | None = None
    details: list[int] = field(default_factory=list)
    details_dropped: int = 0
    locations: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)
    """Every repository frame in order, outermost first (locations is deduplicated and capped)."""
    interesting: list[int] = field(default_factory=list)


def analyze(lines: list[str], start: int, end: int, root: str | None) -> TracebackFacts:
    """Facts about the last exception raised in lines[start:end] and where it came from."""
    facts = TracebackFacts()
    in_frames = False
    for i in range(start, end):
        line = lines[i]
        if line.startswith(TRACEBACK_HEAD):
            in_frames = True
            continue
        frame = _FRAME.match(line)
        if frame:
            refs = references(line, root)
            if refs:
                add_unique(facts.locations, refs)
                facts.frames += refs
                facts.interesting.append(i)
            continue
        if in_frames and line and not line[0].isspace():
            m = _EXC_LINE.match(line)
            if m and not line.startswith(_CHAIN):
                facts.exc_type, facts.message = m.group(1), (m.group(2) or "").strip()
                facts.message_line = i
                facts.interesting.append(i)
                in_frames = False
                facts.details, facts.details_dropped = _following(lines, i + 1, end)
        elif "[Previous line repeated" in line:
            facts.interesting.append(i)
    return facts


def _following(lines: list[str], start: int, end: int) -> tuple[list[int], int]:
    """Lines that continue an exception message ('Lists differ' diffs and the like)."""
    taken: list[int] = []
    dropped = 0
    for i in range(start, end):
        line = lines[i]
        if line.startswith((TRACEBACK_HEAD, *_CHAIN)) or line.startswith("-" * 20):
            break
        if not line.strip():
            continue
        if len(taken) < DETAIL_CAP:
            taken.append(i)
        else:
            dropped += 1
    return taken, dropped


def sniff(lines: list[str]) -> float:
    heads = sum(1 for line in lines if line.startswith(TRACEBACK_HEAD))
    return 4.0 * min(heads, 3)


def parse(lines: list[str]) -> ParsedLog:
    """Each traceback (with the ones chained to it) is one failure named after its exception."""
    log = ParsedLog(format="python-traceback", lines=lines)
    starts = [i for i, line in enumerate(lines) if line.startswith(TRACEBACK_HEAD)]
    groups: list[tuple[int, int]] = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(lines)
        if groups and _chained(lines, s):
            groups[-1] = (groups[-1][0], e)
        else:
            groups.append((s, e))
    for s, e in groups:
        facts = analyze(lines, s, e, None)
        end = _block_end(lines, facts, e)
        where = facts.locations[-1] if facts.locations else ""
        ident = f"{facts.exc_type or 'Traceback'}" + (f" at {where}" if where else "")
        failure = Failure(
            id=ident,
            label="ERROR",
            exc_type=facts.exc_type,
            message=facts.message,
            locations=facts.locations,
            details=facts.details,
            details_dropped=facts.details_dropped,
        )
        failure.site, failure.origin = assertion_site(facts.frames, ident)
        failure.blocks = prioritize(windows(facts.interesting, s, end), facts.message_line)
        log.failures.append(failure)
    n = len(log.failures)
    log.counts = [
        f"{n} uncaught exception{'s' if n != 1 else ''} (traceback{'s' if n != 1 else ''})"
    ]
    return log


def _chained(lines: list[str], start: int) -> bool:
    for i in range(max(0, start - 3), start):
        if lines[i].startswith(_CHAIN):
            return True
    return False


def _block_end(lines: list[str], facts: TracebackFacts, end: int) -> int:
    last = max([facts.message_line or 0, *facts.details], default=0)
    return min(end, last + 1) if last else end
