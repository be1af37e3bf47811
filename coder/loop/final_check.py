"""The final check: the repository's test command on the final tree, judged against the base.

A run is verified only if no test that passed at the base fails now. Tests that already
failed at the base do not count against the run (the task may be to fix some of them; the
step invariants are what prove that).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contracts.result import FinalCheck
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from summarizers.logs import compact_log
from summarizers.outcomes import parse_outcomes

OUTCOME_ENV = {"PYTEST_ADDOPTS": "-rA -p no:cacheprovider"}
"""Makes pytest list every test id with its outcome, whatever test command the repo uses."""


@dataclass(frozen=True)
class Baseline:
    command: str | None
    exit_code: int | None
    outcomes: dict[str, str]
    timed_out: bool = False


def run_baseline(sandbox: Sandbox, root: Path, command: str | None, timeout_s: float) -> Baseline:
    if not command:
        return Baseline(None, None, {})
    result = sandbox.run(command, cwd=root, timeout_s=timeout_s, env=OUTCOME_ENV)
    return Baseline(command, result.exit_code, parse_outcomes(result.output), result.timed_out)


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


def final_check(sandbox: Sandbox, root: Path, base: Baseline, timeout_s: float) -> FinalCheck:
    if not base.command:
        return FinalCheck(command=None, passed=True, detail="no test command; nothing to check")
    result = sandbox.run(base.command, cwd=root, timeout_s=timeout_s, env=OUTCOME_ENV)
    if result.timed_out:
        return FinalCheck(
            command=base.command,
            passed=False,
            detail=f"the test command timed out after {result.duration_s:.0f}s",
        )
    if result.exit_code == 0:
        return FinalCheck(command=base.command, passed=True, detail="the test command exited 0")
    now = parse_outcomes(result.output)
    passed_before = {t for t, o in base.outcomes.items() if o == "passed"}
    new_failures = sorted(
        t for t in passed_before if now.get(t, "missing") in ("failed", "error", "missing")
    )
    summary = compact_log(result.output, budget=800, exit_code=result.exit_code).text
    if base.exit_code in (0, None) or base.timed_out or not base.outcomes or not now:
        why = "it passed at the base" if base.exit_code == 0 else "no per-test outcomes to compare"
        return FinalCheck(
            command=base.command,
            passed=False,
            new_failures=new_failures,
            detail=f"exit {result.exit_code} ({why})\n{summary}",
        )
    if new_failures:
        return FinalCheck(
            command=base.command,
            passed=False,
            new_failures=new_failures,
            detail=f"{len(new_failures)} test(s) that passed at the base now fail\n{summary}",
        )
    return FinalCheck(
        command=base.command,
        passed=True,
        detail=f"exit {result.exit_code}, but every failing test already failed at the base",
    )
