"""Linters and type checkers that print one finding a line: ruff, flake8, mypy."""

from __future__ import annotations

import re

from summarizers.logformats.model import Failure, ParsedLog

_CODE_LINE = re.compile(r"^(\S.*?):(\d+):(\d+): ([A-Z]+[0-9]+) (.*)$")
_MYPY = re.compile(r"^(\S.*?):(\d+)(?::(\d+))?: (error|warning|note): (.*?)(?:  \[([\w-]+)\])?$")
_RUFF_HEAD = re.compile(r"^([A-Z]+[0-9]+) (.*)$")
_RUFF_ARROW = re.compile(r"^\s*--> (\S.*?):(\d+):(\d+)$")
_RUFF_FOUND = re.compile(r"^Found \d+ errors?\.$|^All checks passed!$|^\[\*\] \d+ fixable")
_MYPY_FOUND = re.compile(r"^(Found \d+ errors? in \d+ files?|Success: no issues found).*$")


def sniff_mypy(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if _MYPY_FOUND.match(line):
            score += 5
        elif ": error: " in line or ": note: " in line:
            score += 2 if _MYPY.match(line) else 0
    return min(score, 22.0)


def sniff_ruff(lines: list[str]) -> float:
    """flake8 prints the same finding lines; only ruff's own markers make it ruff."""
    markers = findings = 0.0
    for line in lines:
        if _RUFF_FOUND.match(line):
            markers += 3
        elif _RUFF_ARROW.match(line):
            markers += 2
        elif _CODE_LINE.match(line):
            findings += 1.5
    return min(markers + findings, 21.0) if markers else 0.0


def sniff_flake8(lines: list[str]) -> float:
    return min(sum(1.4 for line in lines if _CODE_LINE.match(line)), 20.0)


def parse_mypy(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="mypy", lines=lines)
    for i, line in enumerate(lines):
        m = _MYPY.match(line)
        if not m:
            if _MYPY_FOUND.match(line):
                log.counts = [line]
            continue
        path, line_no, kind = m.group(1), m.group(2), m.group(4)
        if kind == "note" and log.failures:
            last = log.failures[-1]
            if len(last.details) < 10:
                last.details.append(i)
            else:
                last.details_dropped += 1
            continue
        code = m.group(6) or kind
        col = f":{m.group(3)}" if m.group(3) else ""
        log.failures.append(
            Failure(
                id=f"{path}:{line_no}{col} {code}",
                label=kind,
                exc_type=code,
                message=m.group(5),
                locations=[f"{path}:{line_no}"],
            )
        )
    _synthesize_counts(log, "mypy")
    return log


def parse_ruff(lines: list[str]) -> ParsedLog:
    """ruff's full (default) output, or its concise one-line form."""
    log = ParsedLog(format="ruff", lines=lines)
    counts = [line for line in lines if _RUFF_FOUND.match(line)]
    heads = [
        i
        for i, line in enumerate(lines)
        if _RUFF_HEAD.match(line) and i + 1 < len(lines) and _RUFF_ARROW.match(lines[i + 1])
    ]
    if not heads:
        log = _one_line_findings(lines, "ruff")
        log.counts = counts or log.counts
        return log
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        while end > i + 1 and (not lines[end - 1].strip() or _RUFF_FOUND.match(lines[end - 1])):
            end -= 1
        head = _RUFF_HEAD.match(lines[i])
        arrow = _RUFF_ARROW.match(lines[i + 1])
        assert head is not None and arrow is not None
        path, line_no, col = arrow.groups()
        log.failures.append(
            Failure(
                id=f"{path}:{line_no}:{col} {head.group(1)}",
                label="error",
                exc_type=head.group(1),
                message=head.group(2),
                locations=[f"{path}:{line_no}"],
                blocks=[(i + 2, min(end, i + 8))] + ([(i + 8, end)] if end > i + 8 else []),
            )
        )
    log.counts = counts
    _synthesize_counts(log, "ruff")
    return log


def parse_flake8(lines: list[str]) -> ParsedLog:
    return _one_line_findings(lines, "flake8")


def _one_line_findings(lines: list[str], fmt: str) -> ParsedLog:
    log = ParsedLog(format=fmt, lines=lines)
    for line in lines:
        m = _CODE_LINE.match(line)
        if m:
            path, line_no, col, code, msg = m.groups()
            log.failures.append(
                Failure(
                    id=f"{path}:{line_no}:{col} {code}",
                    label="error",
                    exc_type=code,
                    message=msg,
                    locations=[f"{path}:{line_no}"],
                )
            )
    _synthesize_counts(log, fmt)
    return log


def _synthesize_counts(log: ParsedLog, tool: str) -> None:
    if not log.counts and log.failures:
        n = len(log.failures)
        log.counts = [f"{tool}: {n} finding{'s' if n != 1 else ''} (counted from the log)"]
