"""unittest's text runner, plain and -v (python -m unittest, python -m pytest is not this)."""

from __future__ import annotations

import re

from summarizers.logformats import pytraceback
from summarizers.logformats.context import assertion_site, prioritize, windows
from summarizers.logformats.model import Failure, ParsedLog

NAME = "unittest"
"""The log format's name (`coder compact --format`, the evidence)."""

_HEAD = re.compile(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([\w.]+)\)(.*)$")
_RAN = re.compile(r"^Ran \d+ tests? in [\d.]+s$")
_RESULT = re.compile(r"^(OK|FAILED)(?: \(.*\))?$")
_VERBOSE = re.compile(
    r"^\s*(.+?) \.\.\. ?(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)?$"
)
_DOTS = re.compile(r"^[.FEsxu]+$")
_SEP_EQ = "=" * 40
_SEP_DASH = "-" * 40


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if _RAN.match(line):
            score += 5
        elif line.startswith(("FAIL: ", "ERROR: ")) and _HEAD.match(line):
            score += 2
        elif _RESULT.match(line):
            score += 1
    return min(score, 20.0)


_FAILED_IMPORT = "unittest.loader._FailedTest."


def unittest_id(name: str, dotted: str, rest: str) -> str:
    """Python 3.11+ prints the full id in parentheses; older ones only module.Class. A module
    that failed to import is the module's own id (`pkg.test_a`), not the loader's
    `unittest.loader._FailedTest.pkg.test_a`: every test of it failed."""
    if dotted.startswith(_FAILED_IMPORT):
        return dotted[len(_FAILED_IMPORT) :]
    ident = dotted if dotted.endswith("." + name) else f"{dotted}.{name}"
    return ident + rest.rstrip() if rest.strip().startswith("(") else ident


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="unittest", lines=lines)
    heads = [
        i
        for i, line in enumerate(lines)
        if line.startswith(("FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: ")) and _HEAD.match(line)
    ]
    ran = next((i for i in range(len(lines) - 1, -1, -1) if _RAN.match(lines[i])), None)
    for k, i in enumerate(heads):
        end = (
            heads[k + 1] - 1 if k + 1 < len(heads) else (ran - 1 if ran is not None else len(lines))
        )
        m = _HEAD.match(lines[i])
        assert m is not None
        label = "FAILED" if m.group(1) != "ERROR" else "ERROR"
        failure = Failure(id=unittest_id(m.group(2), m.group(3), m.group(4)), label=label)
        body = next((j + 1 for j in range(i + 1, end) if lines[j].startswith(_SEP_DASH)), i + 1)
        facts = pytraceback.analyze(lines, body, end, None)
        failure.exc_type, failure.message = facts.exc_type, facts.message
        if m.group(1) == "UNEXPECTED SUCCESS":
            failure.message = "unexpected success"
        failure.details, failure.details_dropped = facts.details, facts.details_dropped
        failure.locations = facts.locations
        failure.site, failure.origin = assertion_site(facts.frames, failure.id)
        failure.blocks = prioritize(windows(facts.interesting, body, end), facts.message_line)
        log.failures.append(failure)
    if ran is not None:
        result = next(
            (lines[j] for j in range(ran + 1, min(ran + 4, len(lines))) if _RESULT.match(lines[j])),
            "",
        )
        log.counts = [lines[ran] + (f"; {result}" if result else "")]
    for line in lines[: heads[0] if heads else len(lines)]:
        m = _VERBOSE.match(line)
        if m and m.group(2) in ("ok",) or (m and m.group(2) and m.group(2).startswith("skipped")):
            log.drop("passing/progress lines")
        elif _DOTS.match(line):
            log.drop("passing/progress lines")
    return log
