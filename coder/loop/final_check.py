"""The final check: the repository's test command on the final tree, judged against the base.

A run is verified only if no test that passed at the base fails now. Tests that already
failed at the base do not count against the run (the task may be to fix some of them; the
step invariants are what prove that). A run that stopped early proves nothing about the tests
it never reached, so it fails the check. When the last step's verification already ran the
same command on the same tree, its outcome is the final check's: running it again could only
cost time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.loop.baseline import Baseline
from coder.loop.testruns import OUTCOME_ENV, TestRun, exited_0, run_tests
from contracts.result import FinalCheck
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.gitcli import git
from summarizers.logs import compact_log

__all__ = [
    "OUTCOME_ENV",
    "FullRun",
    "final_check",
    "judge_final",
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
) -> FinalCheck:
    if not base.command:
        return FinalCheck(command=None, passed=True, detail="no test command; nothing to check")
    run = reuse or run_tests(sandbox, root, base.command, timeout_s)
    reused = " (the last step's run of it on this same tree)" if reuse else ""
    return judge_final(run, base, reused)


def judge_final(run: TestRun, base: Baseline, reused: str = "") -> FinalCheck:
    """The final check's verdict on a run of the base's test command: pure, no command runs."""
    result = run.result
    if result.timed_out:
        return FinalCheck(
            command=base.command,
            passed=False,
            detail=f"the test command timed out after {result.duration_s:.0f}s",
            timed_out=True,
        )
    if result.exit_code == 0:
        return FinalCheck(
            command=base.command, passed=True, detail=f"the test command {exited_0(run)}{reused}"
        )
    summary = compact_log(result.output, budget=800, exit_code=result.exit_code).text
    if run.incomplete:
        return FinalCheck(
            command=base.command,
            passed=False,
            detail=f"exit {result.exit_code}, and the run was incomplete: {run.incomplete}; "
            f"the tests after the stop never ran{reused}\n{summary}",
        )
    now = run.outcomes
    passed_before = {t for t, o in base.outcomes.items() if o == "passed"}
    new_failures = sorted(
        t for t in passed_before if now.get(t, "missing") in ("failed", "error", "missing")
    )
    if base.incomplete:  # a test the base never reached may have passed there
        known = set(base.failing)
        new_failures = sorted({*new_failures, *(t for t in run.failing if t not in known)})
    if base.exit_code in (0, None) or base.timed_out or not base.outcomes or not now:
        why = "it passed at the base" if base.exit_code == 0 else "no per-test outcomes to compare"
        return FinalCheck(
            command=base.command,
            passed=False,
            new_failures=new_failures,
            detail=f"exit {result.exit_code} ({why}){reused}\n{summary}",
        )
    if new_failures:
        return FinalCheck(
            command=base.command,
            passed=False,
            new_failures=new_failures,
            detail=f"{len(new_failures)} test(s) that passed at the base now fail{reused}\n{summary}",
        )
    return FinalCheck(
        command=base.command,
        passed=True,
        detail=f"exit {result.exit_code}, but every failing test already failed at the base{reused}",
    )
