"""The test runners coder knows, one row each. Adding a runner is one module and one row here
(and one row of the conformance matrix, tests/conformance). An unknown name lists the known
ones."""

from __future__ import annotations

from collections.abc import Sequence

from summarizers.runners.base import Grader, Runner
from summarizers.runners.jest import JEST
from summarizers.runners.mocha import MOCHA
from summarizers.runners.nodetest import NODE_TEST
from summarizers.runners.pytest import PYTEST
from summarizers.runners.tap import TAP
from summarizers.runners.unittest import UNITTEST
from summarizers.runners.vitest import VITEST

RUNNERS: tuple[Runner, ...] = (PYTEST, UNITTEST, NODE_TEST, VITEST, JEST, MOCHA, TAP)
"""In the order they are tried where two could claim the same output, command or project."""

GRADERS: tuple[Grader, ...] = (PYTEST,)
"""The runners that run a benchmark instance's tests themselves when the ids are theirs; any
other instance runs through the project's own test command."""


class UnknownRunner(KeyError):
    def __str__(self) -> str:
        known = ", ".join(sorted(r.name for r in RUNNERS))
        return f"unknown test runner {self.args[0]!r}; known: {known}"


def runner_named(name: str) -> Runner:
    for runner in RUNNERS:
        if runner.name == name:
            return runner
    raise UnknownRunner(name)


def grader_for(ids: Sequence[str]) -> Grader | None:
    """The runner whose own id spelling every one of `ids` has, first in table order."""
    return next((g for g in GRADERS if g.grades(ids)), None)
