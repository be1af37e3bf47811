"""The log formats coder recognises, and how one is picked for a log it has never seen.

A format is a sniff (how much does this look like me, from a sample of lines) and a parse (lines
to `ParsedLog`). Adding a format is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from summarizers.logformats import generic_log, lint_log, pytraceback, tsc_log
from summarizers.logformats.model import ParsedLog
from summarizers.runners import doctest_log, pytest_log, spec_log, tap_log, unittest_log

SAMPLE_HEAD = 600
SAMPLE_TAIL = 600
SAMPLE_MIDDLE = 800


@dataclass(frozen=True)
class LogFormat:
    name: str
    sniff: Callable[[list[str]], float]
    parse: Callable[[list[str]], ParsedLog]


FORMATS: tuple[LogFormat, ...] = (
    LogFormat(pytest_log.NAME, pytest_log.sniff, pytest_log.parse),
    LogFormat(unittest_log.NAME, unittest_log.sniff, unittest_log.parse),
    LogFormat(tap_log.NAME, tap_log.sniff, tap_log.parse),
    LogFormat(spec_log.NAME, spec_log.sniff, spec_log.parse),
    LogFormat("tsc", tsc_log.sniff, tsc_log.parse),
    LogFormat("mypy", lint_log.sniff_mypy, lint_log.parse_mypy),
    LogFormat("ruff", lint_log.sniff_ruff, lint_log.parse_ruff),
    LogFormat("flake8", lint_log.sniff_flake8, lint_log.parse_flake8),
    LogFormat(doctest_log.NAME, doctest_log.sniff, doctest_log.parse),
    LogFormat("python-traceback", pytraceback.sniff, pytraceback.parse),
    LogFormat("generic", generic_log.sniff, generic_log.parse),
)
GENERIC = FORMATS[-1]


class UnknownLogFormat(KeyError):
    def __str__(self) -> str:
        return f"unknown log format {self.args[0]!r}; known: {', '.join(f.name for f in FORMATS)}"


def get_format(name: str) -> LogFormat:
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise UnknownLogFormat(name)


def sample(lines: list[str]) -> list[str]:
    """Head, tail and an even stride through the middle: sniffing stays cheap on huge logs."""
    n = len(lines)
    if n <= SAMPLE_HEAD + SAMPLE_TAIL + SAMPLE_MIDDLE:
        return lines
    middle = lines[SAMPLE_HEAD : n - SAMPLE_TAIL]
    step = max(1, len(middle) // SAMPLE_MIDDLE)
    return lines[:SAMPLE_HEAD] + middle[::step] + lines[n - SAMPLE_TAIL :]


def detect(lines: list[str]) -> LogFormat:
    """The best-scoring format; ties go to the earlier (more specific) entry."""
    picked = sample(lines)
    best, best_score = GENERIC, GENERIC.sniff(picked)
    for fmt in FORMATS[:-1]:
        score = fmt.sniff(picked)
        if score > best_score:
            best, best_score = fmt, score
    return best
