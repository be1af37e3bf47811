"""The coverage wrappers a test command may put in front of its runner (`nyc mocha`, `c8
--check-coverage node --test`): how they are named and what their runs write into the tree.
A wrapper is not a runner: the runner behind it is found and selected; a scoped run leaves the
wrapper out (a suite's coverage gate is not one file's)."""

from __future__ import annotations

import posixpath

from summarizers.runners.outputs import Output, written

NAMES = frozenset({"nyc", "c8"})
ARTIFACTS = ("coverage/", ".nyc_output/")
"""Where they write by default (their reports, their raw data)."""
_OUTPUTS = (
    Output("--report-dir"),
    Output("--reports-dir"),
    Output("-o"),
    Output("--temp-directory"),
    Output("--temp-dir"),
    Output("-t"),
)


def is_wrapper(word: str) -> bool:
    return posixpath.basename(word) in NAMES


def writes(args: list[str]) -> tuple[str, ...]:
    """What the wrapper's own arguments (before the runner) tell it to write."""
    return written(args, _OUTPUTS)
