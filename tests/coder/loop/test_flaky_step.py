"""A step's `tests_pass` tells a flaky test from a broken one as the final check does: a few
new failures run once more on a fresh checkout of the step's tree (the checkpoint with the
step's change laid over it), and those that pass there are named flaky and not counted.

The shipped suite's dayjs replay was rolled back in CI by a test that raced the clock during
the step's whole-suite run; here the first run fails for a file the worktree holds and a fresh
checkout does not (ignored, so no part of the change), which makes the race deterministic."""

from __future__ import annotations

from pathlib import Path

from calcrepo import CALC, FIX_ADD, PYPROJECT, TESTS, plan, step
from gitrepo import make_repo

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

LEFTOVER = """\
from pathlib import Path


def test_no_leftover():
    assert not (Path(__file__).parent / "leftover.tmp").exists(), "a file the last run left"
"""
WHOLE = {"kind": "tests_pass"}
FINISH = {"tool": "finish_step", "input": {"summary": "done"}}
LEAVE_A_FILE = {"tool": "run", "input": {"command": "touch tests/leftover.tmp"}}
FLAKY_ID = "tests/test_leftover.py::test_no_leftover"


def _run(tmp_path: Path, script, *turns: dict):
    repo = make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "tests/test_leftover.py": LEFTOVER,
            "pyproject.toml": PYPROJECT,
            ".gitignore": "tests/leftover.tmp\n__pycache__/\n",
        },
    )
    model = script(plan(step("fix-add", ["calc.py"], [WHOLE])), *turns)
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model, max_revisions=0))
    events = read_trace(outcome.run_dir / "trace.jsonl")
    found = [e for e in events if e["type"] == "verification" and e["kind"] == "tests_pass"]
    return outcome.result, found


def test_a_failure_that_passes_on_a_fresh_checkout_of_the_step_is_flaky(tmp_path, script):
    fix = {"tool": "edit_file", "input": FIX_ADD}
    result, checks = _run(tmp_path, script, fix, LEAVE_A_FILE, FINISH)
    assert result.status == "verified" and result.rollbacks == 0
    assert [c["status"] for c in checks] == ["passed"]
    evidence = checks[0]["evidence"]
    assert "exited 1" in evidence
    assert (
        f"flaky (failed, then passed when run again on a fresh checkout of the same tree; not counted): {FLAKY_ID}"
        in evidence
    )
    assert result.final_check is not None and result.final_check.passed
    assert FLAKY_ID in result.final_check.detail


def test_a_failure_that_fails_again_on_the_fresh_checkout_still_counts(tmp_path, script):
    break_scale = {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"}
    fix = {"tool": "edit_file", "input": FIX_ADD}
    result, checks = _run(
        tmp_path, script, fix, {"tool": "edit_file", "input": break_scale}, LEAVE_A_FILE, FINISH
    )
    assert result.status != "verified" and result.rollbacks == 1
    evidence = checks[0]["evidence"]
    assert checks[0]["status"] == "failed"
    assert "tests/test_calc.py::test_scale" in evidence.splitlines()[0]
    assert (
        f"flaky (failed, then passed when run again on a fresh checkout of the same tree; not counted): {FLAKY_ID}"
        in evidence
    )
