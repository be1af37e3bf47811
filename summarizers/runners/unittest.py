"""unittest (`python -m unittest`, also what Django's test runner prints): `-v` result lines,
FAIL:/ERROR: blocks, the `Ran N tests` summary. Python 3.11+ prints a test's full dotted id in
parentheses; older ones only `module.Class`: both become `module.Class.test`."""

from __future__ import annotations

import re

from summarizers.logformats import unittest_log
from summarizers.logformats.unittest_log import unittest_id
from summarizers.runners.base import Reading
from summarizers.runners.jsargs import replace_paths
from summarizers.runners.messages import failure_messages
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED, XFAILED, worst
from summarizers.runners.registry import register
from summarizers.runners.stopargs import StopFlag, cluster_flag

_HEAD = re.compile(r"^\s*(\w+) \(([\w.]+)\)((?: \(.*?\))?)(?: \.\.\. ?)?$")
_TAIL = re.compile(r"^.* \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
_BLOCK = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)(.*)$")
_FULL = re.compile(r"^\s*(\w+) \(([\w.]+)\)((?: \(.*?\))?) \.\.\. ")
_WORD = {
    "ok": PASSED,
    "FAIL": FAILED,
    "ERROR": ERROR,
    "unexpected success": FAILED,
    "expected failure": XFAILED,
}
_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_RESULT = re.compile(r"^(?:OK|FAILED)(?: \((.*)\))?$")
_STOP_FLAGS = ("-f", "--failfast")


class Unittest:
    name = "unittest"

    def sniff(self, lines: list[str]) -> float:
        return min(unittest_log.sniff(lines) / 8.0, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        pending: str | None = None
        for line in lines:
            head = _HEAD.match(line)
            tail = _TAIL.match(line)
            if head and tail is None:
                pending = unittest_id(head.group(1), head.group(2), head.group(3))
                continue
            if tail:
                full = _FULL.match(line)
                ident = (
                    unittest_id(full.group(1), full.group(2), full.group(3)) if full else pending
                )
                if ident:
                    outcome = _WORD.get(tail.group(1), SKIPPED)
                    _record(outcomes, ident, outcome)
                    if full and full.group(3) and outcome in (FAILED, ERROR):
                        _record(outcomes, unittest_id(full.group(1), full.group(2), ""), FAILED)
                pending = None
                continue
            block = _BLOCK.match(line)
            if block:
                outcome = ERROR if block.group(1) == "ERROR" else FAILED
                _record(
                    outcomes, unittest_id(block.group(2), block.group(3), block.group(4)), outcome
                )
            pending = None if line.strip() else pending
        return Reading(
            outcomes=outcomes,
            messages=failure_messages(unittest_log.parse, lines),
            counts=_counts(lines),
        )

    def invoked_at(self, argv: list[str]) -> int | None:
        for i, word in enumerate(argv):
            if word == "-m" and i + 1 < len(argv) and argv[i + 1] == "unittest":
                return i + 2
        return None

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        flags: list[StopFlag] = []
        for i, arg in enumerate(args):
            if arg in _STOP_FLAGS:
                flags.append(StopFlag(i))
            elif (cluster := cluster_flag(i, arg, "f", "vqfcb")) is not None:
                flags.append(cluster)
        return flags

    def path_args(
        self, args: list[str], paths: list[str], *, major: int | None = None
    ) -> list[str]:
        """Options kept with their values (`-k pattern`), the test names replaced by `paths`."""
        return replace_paths(
            args,
            paths,
            {"-k", "-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory"},
        )


def _record(outcomes: dict[str, str], ident: str, outcome: str) -> None:
    ident = ident.strip()
    if ident:
        outcomes[ident] = worst(outcomes.get(ident), outcome)


def _counts(lines: list[str]) -> dict[str, int]:
    ran = next((int(m.group(1)) for line in lines if (m := _RAN.match(line))), None)
    if ran is None:
        return {}
    found = {"ran": ran}
    for line in lines[-20:]:
        m = _RESULT.match(line)
        for part in (m.group(1) or "").split(", ") if m else []:
            key, _, number = part.partition("=")
            if number.isdigit():
                found[key] = int(number)
    return found


UNITTEST = register(Unittest())
