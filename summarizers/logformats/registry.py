"""The log formats coder recognises, and how one is picked for a log it has never seen.

A format is a sniff (how much does this look like me, from a sample of lines) and a parse (lines
to `ParsedLog`). Adding a format is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from summarizers.logformats import (
    doctests,
    generic_log,
    lint_log,
    node_spec,
    node_tap,
    pytest_log,
    pytraceback,
    tsc_log,
    unittest_log,
)
from summarizers.logformats.model import ParsedLog

SAMPLE_HEAD = 600
SAMPLE_TAIL = 600
SAMPLE_MIDDLE = 800


@dataclass(frozen=True)
class LogFormat:
    name: str
    sniff: Callable[[list[str]], float]
    parse: Callable[[list[str]], ParsedLog]


FORMATS: tuple[LogFormat, ...] = (
    LogFormat("pytest", pytest_log.sniff, pytest_log.parse),
    LogFormat("unittest", unittest_log.sniff, unittest_log.parse),
    LogFormat("node-tap", node_tap.sniff, node_tap.parse),
    LogFormat("node-spec", node_spec.sniff, node_spec.parse),
    LogFormat("tsc", tsc_log.sniff, tsc_log.parse),
    LogFormat("mypy", lint_log.sniff_mypy, lint_log.parse_mypy),
    LogFormat("ruff", lint_log.sniff_ruff, lint_log.parse_ruff),
    LogFormat("flake8", lint_log.sniff_flake8, lint_log.parse_flake8),
    LogFormat("doctest", doctests.sniff, doctests.parse),
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
