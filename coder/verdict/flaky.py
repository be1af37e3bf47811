"""A test that fails once and passes when run again on a fresh checkout of the same tree is
flaky, not the change's doing: a test that races the clock (dayjs's `dayjs()` against
`moment()` a millisecond later, on a loaded machine) must not fail a right step or a right run.

The step's `tests_pass` and the final check ask the same question the same way: only where
failing tests are all that is wrong (none missing, none fewer, nothing timed out) and they are
few, each is run once more, by itself, on a fresh checkout. The checkout is fresh so that
nothing the first run left in the worktree (a state file the code creates) can make the second
pass. A test that fails again stays counted."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.verdict.judge import Verdict
from coder.verdict.scoping import command_for_paths
from coder.verdict.trees import run_at
from sandbox.confine import Sandbox
from sandbox.proof_tree import Overlay

RERUN_AT_MOST = 5
"""New failures rerun to tell a flaky test from a broken one; more is no flake."""


@dataclass(frozen=True)
class Rerun:
    passed: list[str]
    """Of the failures run again, those that passed: flaky."""
    seconds: float = 0.0


def worth_rerunning(verdict: Verdict) -> list[str]:
    """The counted failures a second run could clear: none where anything else is wrong with
    the run (a test missing, fewer passing, a named test not run, a time-out) or where more
    than a few failed."""
    if verdict.passed or not verdict.counted or len(verdict.counted) > RERUN_AT_MOST:
        return []
    if verdict.missing or verdict.fewer or verdict.not_run or verdict.timed_out:
        return []
    return list(verdict.counted)


def passed_again(
    like: Sandbox,
    root: Path,
    commit: str,
    command: str,
    failing: list[str],
    timeout_s: float,
    overlay: Overlay | None = None,
) -> Rerun:
    """`failing` run once more by `command` narrowed to them, on a fresh checkout of `commit`
    (with `overlay`, a step's uncommitted change, laid over it) in a sandbox like the run's."""
    if not failing or len(failing) > RERUN_AT_MOST:
        return Rerun([])

    def narrowed(tree: Path) -> str:
        return command_for_paths(command, failing, tree).command

    again = run_at(root, commit, like, command, narrowed, timeout_s, overlay)
    if isinstance(again, str):
        return Rerun([])
    passed = [t for t in failing if again.outcomes.get(t) == "passed"]
    return Rerun(passed, again.result.duration_s)
