"""What an attempt left, read back from its run directory and its commits: its result.json,
the proven tests its trace names, and the size of its change from git.

A run directory is data (`coder show` reads it the same way): a missing or damaged result
makes the attempt `not_run`, never a crash of the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path

from coder.attempts.selection import Attempted
from coder.loop.state.trace import read_trace
from contracts.result import RunResult
from sandbox.gitcli import git


def load_result(run_dir: Path) -> RunResult | None:
    try:
        return RunResult.model_validate(json.loads((run_dir / "result.json").read_text()))
    except (OSError, ValueError):
        return None


def attempt_facts(attempt: int, model: str, run_dir: Path, repo: Path) -> Attempted:
    result = load_result(run_dir)
    if result is None:
        return Attempted(attempt=attempt, model=model, status="not_run", stop_reason="interrupted")
    verified = {s.stepId for s in result.steps if s.status == "verified"}
    final = result.final_check
    return Attempted(
        attempt=attempt,
        model=result.model,
        status=result.status,
        stop_reason=result.stop_reason,
        tokens=result.tokens,
        wall_s=result.wall_s,
        changed_lines=changed_lines(repo, result.base_commit, result.final_commit),
        proven=proven_tests(run_dir, verified),
        weakened=weakened_checks(result),
        final_commit=result.final_commit,
        base_commit=result.base_commit,
        verified_steps=len(verified),
        final_failures=len(final.new_failures) if final is not None else None,
        message=result.message,
        turns=result.model_turns,
    )


def proven_tests(run_dir: Path, verified: set[str]) -> tuple[str, ...]:
    """The ids the last `step_verified` of each step still verified says its proofs proved."""
    trace = run_dir / "trace.jsonl"
    last: dict[str, list[str]] = {}
    for event in read_trace(trace) if trace.is_file() else []:
        if event.get("type") == "step_verified" and event.get("step") in verified:
            proven = event.get("proven")
            last[str(event["step"])] = [str(t) for t in proven] if isinstance(proven, list) else []
    return tuple(dict.fromkeys(t for ids in last.values() for t in ids))


def weakened_checks(result: RunResult) -> tuple[str, ...]:
    """Tests removed on purpose, and invariants kept only as advice, in verified steps."""
    found = []
    for step in result.steps:
        if step.status != "verified":
            continue
        for check in step.invariants:
            if check.kind == "tests_removed" and check.status == "passed":
                found.append(f"removed {check.detail or 'tests'} on purpose")
            elif check.status == "unverified":
                found.append(f"kept {check.kind} ({check.detail or step.stepId}) unverified")
    return tuple(found)


def changed_lines(repo: Path, base: str, final: str | None) -> int:
    """Lines added plus lines removed between `base` and `final` (a binary file counts none)."""
    if not final or final == base:
        return 0
    out = git(["diff", "--numstat", base, final], repo, check=False).decode(errors="replace")
    total = 0
    for line in out.splitlines():
        added, removed, *_ = line.split("\t") + ["", ""]
        total += int(added) if added.isdigit() else 0
        total += int(removed) if removed.isdigit() else 0
    return total
