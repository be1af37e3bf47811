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
from coder.verdict.judge import final_policy
from coder.verdict.run import TestRun, run_tests
from coder.verdict.scoping import command_for_paths
from coder.verdict.trees import tree_sandbox
from contracts.result import FinalCheck
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.gitcli import git
from sandbox.proof_tree import tree_at
from summarizers.runners.model import Target

__all__ = [
    "FullRun",
    "final_check",
    "reusable_run",
    "tree_of",
    "unchanged_check",
]


RERUN_AT_MOST = 5
"""New failures rerun to tell a flaky test from a broken one; more is no flake."""


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
    flakes_only = not (verdict.missing or verdict.fewer or verdict.timed_out)
    if not verdict.passed and verdict.counted and flakes_only:
        again = passed_again(sandbox, root, base.command, timeout_s, verdict.counted)
        if again:
            policy = final_policy(removed, flaky=again)
            verdict = judged_with_base_parts(now, then, policy, probe)
    return final_check_result(verdict, run, reused)


def passed_again(
    sandbox: Sandbox, root: Path, command: str, timeout_s: float, failing: list[str]
) -> list[str]:
    """Of the tests that failed now and passed at the base, those that pass when run once more
    on a fresh checkout of the same commit: a test that races the clock (dayjs's `dayjs()`
    against `moment()` a millisecond later) must not fail a right change. The checkout is
    fresh so that nothing the first run left in the worktree (a state file the code creates)
    can make the second pass. A test that fails again stays counted; nothing is rerun when
    the run names more than a few."""
    if len(failing) > RERUN_AT_MOST:
        return []
    commit = git(["rev-parse", "HEAD"], root).decode().strip()
    with tree_at(root, commit, {}) as tree:
        scoped = command_for_paths(command, failing, tree)
        like = tree_sandbox(tree, sandbox, command)
        if isinstance(like, str):
            return []
        again = run_tests(like, tree, scoped.command, timeout_s)
    return [t for t in failing if again.outcomes.get(t) == "passed"]
