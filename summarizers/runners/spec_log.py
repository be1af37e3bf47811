"""`node --test --test-reporter=spec` (the default on a terminal): ✔/✖ lines, two-space nesting."""

from __future__ import annotations

import re

from summarizers.logformats.context import (
    add_unique,
    prioritize,
    references,
    split_exception,
    windows,
)
from summarizers.logformats.model import Failure, ParsedLog
from summarizers.runners.model import FAILED, PASSED, SKIPPED
from summarizers.runners.tap_log import join_continuation

NAME = "node-spec"
"""The log format's name (`coder compact --format`, the evidence)."""

MARK = re.compile(r"^(\s*)([✔✖﹣▶ℹ⚠]) (.*?)(?: \([\d.]+m?s\))?(?: # (.*))?$")
_COUNT = re.compile(r"^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$")
_INTERNAL = ("node:internal", "node:async_hooks", "(<anonymous>)", "at new Promise", "at Array.map")
SEPARATOR = " > "


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if _COUNT.match(line):
            score += 3
        elif line.lstrip()[:2] in ("✔ ", "✖ ", "▶ "):
            score += 0.5
    return min(score, 25.0)


def is_spec(lines: list[str]) -> bool:
    """node's own spec summary (`ℹ tests 3`, `ℹ pass 2`), which no other runner prints."""
    return sum(1 for line in lines if _COUNT.match(line)) >= 2


def outcomes(lines: list[str]) -> tuple[dict[str, str], dict[str, int]]:
    """Per-test outcomes by id (`suite > test`, as `parse` names failures) and the summary's
    counts. A suite's closing line (`✖ calc`) is its own outcome, as its TAP `not ok` is; the
    repeated listing after `✖ failing tests:` is not read."""
    found: dict[str, str] = {}
    counts: dict[str, int] = {}
    stack: list[str] = []
    relisted = False
    for line in lines:
        c = _COUNT.match(line)
        if c and c.group(1) != "suites":
            key = {"pass": "passed", "fail": "failed"}.get(c.group(1), c.group(1))
            counts[key] = int(c.group(2))
        if c:
            continue
        relisted = relisted or line.startswith("✖ failing tests:")
        m = None if relisted else MARK.match(line)
        if m is None:
            continue
        level, mark, name = len(m.group(1)) // 2, m.group(2), m.group(3)
        if mark == "▶":
            del stack[level:]
            stack.extend([""] * (level - len(stack)))
            stack.append(name)
        elif mark in ("✔", "✖", "﹣"):
            ident = SEPARATOR.join([*stack[:level], name])
            skipped = mark == "﹣" or (m.group(4) or "").upper().startswith(("SKIP", "TODO"))
            found[ident] = SKIPPED if skipped else PASSED if mark == "✔" else FAILED
    return found, counts


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="node-spec", lines=lines)
    stack: list[str] = []
    counts: list[str] = []
    n = len(lines)
    i = 0
    while i < n:
        line = lines[i]
        c = _COUNT.match(line)
        if c:
            counts.append(f"{c.group(1)} {c.group(2)}")
            i += 1
            continue
        if line.startswith("✖ failing tests:"):
            log.drop(
                "repeated failure listing lines",
                sum(1 for k in range(i, n) if not _COUNT.match(lines[k])),
            )
            i = n
            continue
        m = MARK.match(line)
        if not m:
            i += 1
            continue
        indent, mark, name = len(m.group(1)), m.group(2), m.group(3)
        level = indent // 2
        j = i + 1
        while (
            j < n
            and (not lines[j].strip() or _indent(lines[j]) > indent)
            and not MARK.match(lines[j])
        ):
            j += 1
        if mark == "▶":
            del stack[level:]
            stack.extend([""] * (level - len(stack)))
            stack.append(name)
        elif mark == "✖":
            body_end = j
            while body_end > i + 1 and not lines[body_end - 1].strip():
                body_end -= 1
            if body_end > i + 1:
                path = SEPARATOR.join([*stack[:level], name])
                log.failures.append(_failure(lines, path, i + 1, body_end, log))
        elif mark in ("✔", "﹣"):
            log.drop("passing/progress lines")
        i = j if mark == "✖" else i + 1
    if counts:
        log.counts = [", ".join(counts)]
    return log


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _failure(lines: list[str], ident: str, start: int, end: int, log: ParsedLog) -> Failure:
    failure = Failure(id=ident)
    first = lines[start].strip()
    failure.exc_type, failure.message = split_exception(first)
    interesting = [start]
    details = []
    for j in range(start + 1, end):
        text = lines[j].strip()
        if text.startswith("at "):
            if any(mark in text for mark in _INTERNAL):
                log.noise.add(j)
            else:
                interesting.append(j)
                add_unique(failure.locations, references(text, None))
        elif text and not text.startswith(("generatedMessage:", "code:", "}", "{")):
            details.append(j)
    if details and failure.message.endswith(":"):
        failure.message = join_continuation([failure.message, lines[details[0]].strip()])
    failure.details = details[:12]
    failure.details_dropped = max(0, len(details) - 12)
    failure.blocks = prioritize(windows(interesting, start, end), start)
    return failure
