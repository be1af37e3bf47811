"""Doctest failures: the example, what it was expected to give and what it gave, kept together.

Half a doctest failure misleads: `Got: 'Basic_Parse_Test'` without the example and its
`Expected: 'basic_parse_test'` does not say which side is right. pytest's `--doctest-modules`
blocks and `python -m doctest` reports carry the same three parts in two layouts; `analyze`
finds them in either, and the report of `python -m doctest` is also a log format of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from summarizers.logformats.context import references
from summarizers.logformats.model import Failure, ParsedLog

NAME = "doctest"
"""The log format's name (`coder compact --format`, the evidence)."""

PART_LINES = 8
"""Lines kept of each part (example, expected, got); a longer part says how many it left."""
SEPARATOR = "*" * 70
_NUMBERED = re.compile(r"^\d{3,} ?(.*)$")
_PLAIN_HEAD = re.compile(r'^File "(.+)", line (\d+), in (\S+)$')
_TOTAL = re.compile(r"^\*\*\*Test Failed\*\*\* \d+ failures?\.$")
_OUTCOME_HEADS = ("Expected:", "Expected nothing", "Exception raised:")


@dataclass
class DoctestFacts:
    lines: list[int] = field(default_factory=list)
    """Indices of the example, Expected and Got (or exception) lines, in log order."""
    dropped: int = 0
    message: str = ""


def analyze(lines: list[str], start: int, end: int) -> DoctestFacts | None:
    """The failing example within lines[start:end], or None when there is no doctest there."""
    outcome = next((i for i in range(start, end) if _is_outcome_head(lines[i])), None)
    if outcome is None:
        return None
    example = _example(lines, start, outcome)
    if not example:
        return None
    facts = DoctestFacts()
    source = _example_text(lines[example[0]])
    if lines[outcome].startswith("UNEXPECTED EXCEPTION: "):
        raised = lines[outcome][len("UNEXPECTED EXCEPTION: ") :]
        _keep(facts, example)
        _keep(facts, [outcome])
        facts.message = f"{source} raised {raised}"
        return facts
    if lines[outcome] == "Exception raised:":
        body = _indented(lines, outcome + 1, end)
        last = body[-1] if body else outcome
        _keep(facts, example)
        _keep(facts, [outcome, *([last] if body else [])])
        facts.message = f"{source} raised {lines[last].strip()}"
        return facts
    expected = [outcome, *_indented(lines, outcome + 1, end)]
    got_head = next(
        (i for i in range(expected[-1] + 1, end) if lines[i] in ("Got:", "Got nothing")), None
    )
    got = [got_head, *_indented(lines, got_head + 1, end)] if got_head is not None else []
    for part in (example, expected, got):
        _keep(facts, part)
    facts.message = f"{source}: expected {_first_value(lines, expected)}, got " + (
        _first_value(lines, got) if got else "(not shown)"
    )
    return facts


def _is_outcome_head(line: str) -> bool:
    return line in _OUTCOME_HEADS or line.startswith("UNEXPECTED EXCEPTION: ")


def _example(lines: list[str], start: int, outcome: int) -> list[int]:
    """`python -m doctest`: the indented lines under "Failed example:"; pytest: the numbered
    source line holding `>>>` just above the outcome (pytest shows the example's first line)."""
    i = outcome - 1
    while i > start and lines[i].startswith("    "):
        i -= 1
    if i >= start and lines[i] == "Failed example:":
        return list(range(i + 1, outcome))
    for i in range(outcome - 1, start - 1, -1):
        m = _NUMBERED.match(lines[i])
        if m is None:
            return []
        if m.group(1).lstrip().startswith(">>>"):
            return list(range(i, outcome))
    return []


def _example_text(line: str) -> str:
    m = _NUMBERED.match(line)
    text = (m.group(1) if m else line).strip()
    return text.removeprefix(">>>").strip()


def _indented(lines: list[str], start: int, end: int) -> list[int]:
    out = []
    for i in range(start, end):
        if not lines[i].startswith("    "):
            break
        out.append(i)
    return out


def _first_value(lines: list[str], part: list[int]) -> str:
    if lines[part[0]].endswith("nothing"):
        return "nothing"
    values = [lines[i].strip() for i in part[1:]]
    if not values:
        return "(empty)"
    return values[0] + (f" (+{len(values) - 1} lines)" if len(values) > 1 else "")


def _keep(facts: DoctestFacts, part: list[int]) -> None:
    facts.lines += part[:PART_LINES]
    facts.dropped += max(0, len(part) - PART_LINES)


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if line == "Failed example:":
            score += 4
        elif _TOTAL.match(line):
            score += 5
    return min(score, 30.0)


def parse(lines: list[str]) -> ParsedLog:
    """`python -m doctest` (or `doctest.testmod()`): one failure per example, between rules."""
    log = ParsedLog(format="doctest", lines=lines)
    rules = [i for i, line in enumerate(lines) if line == SEPARATOR] + [len(lines)]
    for begin, stop in zip(rules, rules[1:], strict=False):
        head = _PLAIN_HEAD.match(lines[begin + 1]) if begin + 1 < len(lines) else None
        if head is None:
            continue
        facts = analyze(lines, begin + 2, stop)
        failure = Failure(id=f"{head.group(3)} (line {head.group(2)})", label="FAILED")
        failure.locations = references(lines[begin + 1], None)
        if facts is not None:
            failure.exc_type = "DocTestFailure"
            failure.message = facts.message
            failure.details, failure.details_dropped = facts.lines, facts.dropped
        log.failures.append(failure)
    log.counts = [line for line in lines[-40:] if _TOTAL.match(line)]
    return log
