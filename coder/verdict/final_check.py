"""The final check: the repository's test command on the final tree, judged against the base
by the one judge (coder.verdict.judge) under the final check's policy.

A run is verified only if no test fails now that did not fail the same way at the base, and no
test that ran at the base is missing, skipped or xfailed now (unless a verified step removed
it on purpose). Tests that already failed at the base the same way do not count against the
run (the task may be to fix some of them; the step invariants are what prove that). A run that stopped early proves nothing about the tests
it never reached, so it fails the check. When the last step's verification already ran the
same command on the same tree, its outcome is the final check's: running it again could only
cost time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.verdict.base_probe import BaseProbe, judged_with_base_parts
from coder.verdict.baseline import Baseline
from coder.verdict.evidence import final_check as final_check_result
from coder.verdict.flaky import passed_again, worth_rerunning
from coder.verdict.judge import final_policy
from coder.verdict.run import TestRun, run_tests
from contracts.result import FinalCheck
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.gitcli import git
from summarizers.runners.model import Target

__all__ = [
    "FullRun",
    "final_check",
    "reusable_run",
    "tree_of",
    "unchanged_check",
]


@dataclass(frozen=True)
class FullRun:
    """A run of the repository's own test command during verification, and the tree it saw."""

    tree: str
    run: TestRun


def tree_of(root: Path, rev: str = "HEAD") -> str:
    return git(["rev-parse", f"{rev}^{{tree}}"], root).decode().strip()


def unchanged_check(checkpoints: Checkpoints, base_commit: str) -> FinalCheck | None:
    """A failed final check for a run that changed no file; None when something changed.

    Tests that pass on an untouched tree prove nothing about the task, and a model that says
    it is done without changing anything has not done it."""
    if checkpoints.changes_since(base_commit):
        return None
    return FinalCheck(
        command=None,
        passed=False,
        detail="the run changed nothing: no file differs from the base commit, and an empty "
        "change is never verified",
    )


def reusable_run(root: Path, full: FullRun | None, command: str | None) -> TestRun | None:
    """The recorded run, if it ran `command` on exactly the tree that is there now."""
    if full is None or full.run.requested != command or full.run.result.timed_out:
        return None
    clean = not git(["status", "--porcelain"], root).strip()
    return full.run if clean and tree_of(root) == full.tree else None


def final_check(
    sandbox: Sandbox,
    root: Path,
    base: Baseline,
    timeout_s: float,
    reuse: TestRun | None = None,
    removed: tuple[Target, ...] = (),
    probe: BaseProbe | None = None,
) -> FinalCheck:
    if not base.command:
        return FinalCheck(
            command=None,
            passed=True,
            detail="no test command: nothing was tested (--allow-no-tests)",
        )
    run = reuse or run_tests(sandbox, root, base.command, timeout_s)
    reused = " (the last step's run of it on this same tree)" if reuse else ""
    now, then = run.facts(), base.facts()
    verdict = judged_with_base_parts(now, then, final_policy(removed), probe)
    failing = worth_rerunning(verdict)
    if failing:
        head = git(["rev-parse", "HEAD"], root).decode().strip()
        again = passed_again(sandbox, root, head, base.command, failing, timeout_s)
        if again.passed:
            policy = final_policy(removed, flaky=again.passed)
            verdict = judged_with_base_parts(now, then, policy, probe)
    return final_check_result(verdict, run, reused)
