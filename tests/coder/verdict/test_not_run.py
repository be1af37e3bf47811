"""Nothing verifies by doing less (issue 23, item 7): a test that ran at the base and is now
missing or skipped fails the step and the final check, whatever the exit code."""

from __future__ import annotations

from calcrepo import FIX_ADD, TESTS, plan, step

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

SKIP_SCALE = {
    "path": "tests/test_calc.py",
    "old_text": "def test_scale():",
    "new_text": "import pytest\n\n\n@pytest.mark.skip\ndef test_scale():",
}
DROP_SCALE = {
    "path": "tests/test_calc.py",
    "old_text": TESTS[TESTS.index("def test_scale") :],
    "new_text": "",
}


def run(repo, script, invariants, edits):
    fix = step("fix-add", ["calc.py", "tests/test_calc.py"], invariants)
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="fix add",
            model=script(
                plan(fix),
                {"calls": [{"tool": "edit_file", "input": e} for e in edits]},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            max_revisions=0,
        )
    )
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def test_a_test_deleted_by_the_step_fails_its_path_scoped_check(calc_repo, script) -> None:
    tests_pass = {"kind": "tests_pass", "paths": ["tests/test_calc.py"]}
    result, events = run(calc_repo, script, [tests_pass], [FIX_ADD, DROP_SCALE])
    check = next(e for e in events if e["type"] == "verification" and e["kind"] == "tests_pass")
    assert check["status"] == "failed", check["evidence"]
    assert "tests/test_calc.py::test_scale" in check["evidence"]
    assert "missing, skipped or xfailed" in check["evidence"]
    assert result.stop_reason == "revisions_exhausted"


def test_a_test_skipped_by_a_step_fails_the_final_check(calc_repo, script) -> None:
    ran = {
        "kind": "command_succeeds",
        "command": "python -m pytest -q tests/test_calc.py::test_add",
    }
    result, _ = run(calc_repo, script, [ran], [FIX_ADD, SKIP_SCALE])
    assert result.stop_reason == "final_check_failed", result.message
    final = result.final_check
    assert final is not None and not final.passed
    assert final.new_failures == ["tests/test_calc.py::test_scale"]
    assert "did not run now" in final.detail
