"""Per-test outcomes from a runner's output, to tell tests that passed at the base and now fail.

Reads what the runners print for every test: pytest's `-rA` short summary and `-v` progress
lines, unittest `-v`, and node's TAP (nested subtests named "suite > test"). A test seen more
than once keeps its worst outcome (a test that passed its call but errored in teardown is an
error).
"""

from __future__ import annotations

import re

from summarizers.logformats.node_tap import (
    SUBTEST,
    TEST_LINE,
    enter_subtest,
    tape_style,
    tape_test,
    test_path,
)
from summarizers.logformats.prep import prepare
from summarizers.logformats.pytest_log import split_summary
from summarizers.logformats.unittest_log import unittest_id

PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"
_RANK = {SKIPPED: 0, PASSED: 1, FAILED: 2, ERROR: 3}
_PYTEST_WORD = {
    "PASSED": PASSED,
    "XPASS": PASSED,
    "FAILED": FAILED,
    "ERROR": ERROR,
    "SKIPPED": SKIPPED,
    "XFAIL": SKIPPED,
}
_SHORT = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S.*)$")
_VERBOSE = re.compile(r"^(\S.*?::\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: .*)?$")
_XDIST = re.compile(r"^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*)$")
_UNITTEST_HEAD = re.compile(r"^\s*(\w+) \(([\w.]+)\)((?: \(.*?\))?)(?: \.\.\. ?)?$")
_UNITTEST_TAIL = re.compile(
    r"^.* \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$"
)
_UNITTEST_BLOCK = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)(.*)$")
_UNITTEST_WORD = {"ok": PASSED, "FAIL": FAILED, "ERROR": ERROR, "unexpected success": FAILED}
_UNITTEST_FULL = re.compile(r"^\s*(\w+) \(([\w.]+)\)((?: \(.*?\))?) \.\.\. ")


def parse_outcomes(text: str) -> dict[str, str]:
    """test id -> passed | failed | error | skipped, for every test the output names."""
    outcomes: dict[str, str] = {}
    lines = prepare(text).lines
    _pytest(lines, outcomes)
    _unittest(lines, outcomes)
    _tap(lines, outcomes)
    return outcomes


def _record(outcomes: dict[str, str], ident: str, outcome: str) -> None:
    ident = ident.strip()
    if ident and _RANK[outcome] >= _RANK.get(outcomes.get(ident, SKIPPED), 0):
        outcomes[ident] = outcome


def _pytest(lines: list[str], outcomes: dict[str, str]) -> None:
    for line in lines:
        if not line or line[0].isspace():
            continue
        m = _SHORT.match(line)
        if m:
            ident = split_summary(m.group(2))[0]
            if "::" in ident or ident.endswith(".py"):
                _record(outcomes, ident, _PYTEST_WORD[m.group(1)])
            continue
        m = _XDIST.match(line)
        if m:
            _record(outcomes, m.group(2), _PYTEST_WORD[m.group(1)])
            continue
        m = _VERBOSE.match(line)
        if m:
            _record(outcomes, m.group(1), _PYTEST_WORD[m.group(2)])


def _unittest(lines: list[str], outcomes: dict[str, str]) -> None:
    pending: str | None = None
    for line in lines:
        head = _UNITTEST_HEAD.match(line)
        tail = _UNITTEST_TAIL.match(line)
        if head and tail is None:
            pending = unittest_id(head.group(1), head.group(2), head.group(3))
            continue
        if tail:
            full = _UNITTEST_FULL.match(line)
            ident = unittest_id(full.group(1), full.group(2), full.group(3)) if full else pending
            if ident:
                word = tail.group(1)
                outcome = _UNITTEST_WORD.get(word, SKIPPED)  # skipped, expected failure
                _record(outcomes, ident, outcome)
                if full and full.group(3) and outcome in (FAILED, ERROR):
                    _record(outcomes, unittest_id(full.group(1), full.group(2), ""), FAILED)
            pending = None
            continue
        block = _UNITTEST_BLOCK.match(line)
        if block:
            outcome = ERROR if block.group(1) == "ERROR" else FAILED
            _record(outcomes, unittest_id(block.group(2), block.group(3), block.group(4)), outcome)
        pending = None if line.strip() else pending


def _tap(lines: list[str], outcomes: dict[str, str]) -> None:
    stack: list[str] = []
    tape = tape_style(lines)
    for line in lines:
        sub = SUBTEST.match(line)
        if sub:
            enter_subtest(stack, sub)
            continue
        m = TEST_LINE.match(line)
        if not m:
            if tape and (name := tape_test(line)) is not None:
                stack[:] = [name]
            continue
        level = len(stack) if tape else len(m.group(1)) // 4
        name = (m.group(3) or "").replace("\\#", "#")
        if m.group(4):
            outcome = SKIPPED
        else:
            outcome = PASSED if m.group(2) == "ok" else FAILED
        _record(outcomes, test_path(stack, level, name), outcome)
