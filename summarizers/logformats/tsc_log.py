"""TypeScript compiler diagnostics, plain (`file(l,c): error TSn: msg`) and --pretty."""

from __future__ import annotations

import re

from summarizers.logformats.model import Failure, ParsedLog

_PLAIN = re.compile(r"^(\S.*?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$")
_PRETTY = re.compile(r"^(\S.*?):(\d+):(\d+) - (error|warning) (TS\d+): (.*)$")
_GLOBAL = re.compile(r"^(error|warning) (TS\d+): (.*)$")
_FOUND = re.compile(r"^Found \d+ errors?\b.*$")
_TABLE = re.compile(r"^(Errors\s+Files|\s+\d+\s+\S+)$")


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if " TS" in line and (_PLAIN.match(line) or _PRETTY.match(line) or _GLOBAL.match(line)):
            score += 4
        elif _FOUND.match(line):
            score += 1
    return min(score, 24.0)


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="tsc", lines=lines)
    starts: list[tuple[int, re.Match[str]]] = []
    found_line = None
    for i, line in enumerate(lines):
        if " TS" in line and (
            m := _PLAIN.match(line) or _PRETTY.match(line) or _GLOBAL.match(line)
        ):
            starts.append((i, m))
        elif _FOUND.match(line):
            found_line = i
            log.counts = [line]
    files: set[str] = set()
    for k, (i, m) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else (found_line or len(lines))
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        if m.re is _GLOBAL:
            failure = Failure(
                id=m.group(2), label=m.group(1), exc_type=m.group(2), message=m.group(3)
            )
        else:
            path, line_no, col = m.group(1), m.group(2), m.group(3)
            files.add(path)
            failure = Failure(
                id=f"{path}:{line_no}:{col} {m.group(5)}",
                label=m.group(4),
                exc_type=m.group(5),
                message=m.group(6),
                locations=[f"{path}:{line_no}"],
            )
        continuation = [
            j for j in range(i + 1, end) if lines[j].startswith("  ") and lines[j].strip()
        ]
        if m.re is _PLAIN:
            failure.details = continuation[:10]
            failure.details_dropped = max(0, len(continuation) - 10)
        if end > i + 1:
            failure.blocks = [(i + 1, min(end, i + 8))] + ([(i + 8, end)] if end > i + 8 else [])
        log.failures.append(failure)
    if found_line is not None:
        log.drop(
            "per-file error table lines",
            sum(1 for line in lines[found_line + 1 :] if _TABLE.match(line)),
        )
    if not log.counts and log.failures:
        n = len(log.failures)
        log.counts = [
            f"{n} error{'s' if n != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''} (counted from the log)"
        ]
    return log
