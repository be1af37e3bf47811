"""Whether a test runner's output says it stopped before running everything it was asked to.

A run that stopped at the first failure (`-x`, `--maxfail`), at a collection error or on a TAP
"Bail out!" says nothing about the tests it never reached, so it is never evidence that they
pass. Flags in the command are found from the command itself (`coder/loop/stopflags.py`); this
reads what the runner printed, which also catches a stop configured somewhere else.
"""

from __future__ import annotations

import re

from summarizers.logformats.prep import prepare

_PYTEST_BANNER = re.compile(r"^!{3,} (.+?) !{3,}$")
_PYTEST_STOP = re.compile(r"^stopping after \d+ failures?$")
_PYTEST_COLLECTION = re.compile(r"^Interrupted: \d+ errors? during collection$")
_TAP_BAIL = re.compile(r"^\s*Bail out!(.*)$")
TAIL_LINES = 400
"""Runners announce a stop at the end of their output; a bail-out may come earlier in TAP."""


def stopped_early(text: str) -> str | None:
    """Why the run that printed `text` did not run every test it selected, or None."""
    if "!!!" not in text and "Bail out!" not in text:
        return None
    lines = prepare(text).lines
    for line in lines[-TAIL_LINES:]:
        banner = _PYTEST_BANNER.match(line)
        if banner:
            said = banner.group(1).strip()
            if _PYTEST_STOP.match(said):
                return f"pytest was {said}"
            if _PYTEST_COLLECTION.match(said):
                return f"pytest stopped at collection ({said.removeprefix('Interrupted: ')})"
    for line in lines:
        bail = _TAP_BAIL.match(line)
        if bail:
            reason = bail.group(1).strip()
            return "the test runner bailed out" + (f" ({reason})" if reason else "")
    return None
