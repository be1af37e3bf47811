"""The verdict cannot be waived by what a step writes (issue 32): a `conftest.py` that rewrites
failed reports to passed does not make a failing test pass, and the evidence names the file."""

from __future__ import annotations

from calcrepo import plan, step

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

REWRITER = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
"""


def test_a_conftest_that_rewrites_failures_to_passes_does_not_verify_a_step(calc_repo, script):
    waiver = step(
        "waive",
        ["calc.py", "tests/conftest.py"],
        [{"kind": "tests_pass", "paths": ["tests/test_calc.py::test_scale"]}],
    )
    break_scale = {"path": "calc.py", "old_text": "value * factor", "new_text": "value + factor"}
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(waiver),
                {"tool": "edit_file", "input": break_scale},
                {"tool": "write_file", "input": {"path": "tests/conftest.py", "content": REWRITER}},
                {"tool": "finish_step", "input": {"summary": "the tests pass"}},
            ),
            max_revisions=0,
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    [check] = [e for e in events if e.get("kind") == "tests_pass"]
    assert check["status"] == "failed", check["evidence"]
    assert "tests/test_calc.py::test_scale" in check["evidence"]
    assert "the step changed how the tests run: tests/conftest.py" in check["evidence"]
    assert outcome.result.status != "verified"
