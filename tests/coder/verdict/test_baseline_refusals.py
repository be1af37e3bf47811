"""A baseline that ran no test, or timed out, stops the run before the first model call
(exit 2 through UsageError, one line with what to pass); `--allow-no-tests` lets a run go on,
and the final check then says nothing was tested."""

from __future__ import annotations

from pathlib import Path

import pytest
from calcrepo import CALC, FIX_ADD, FIX_STEP, plan, step
from gitrepo import git, make_repo, snapshot

from coder.loop.runner import RunOptions, UsageError, run_task


def refused(repo: Path, script, **kw: object) -> str:
    before = snapshot(repo)
    events: list[dict] = []
    with pytest.raises(UsageError) as caught:
        run_task(
            RunOptions(
                repo=repo, task="x", model=script(plan(FIX_STEP)), listeners=[events.append], **kw
            )  # type: ignore[arg-type]
        )
    assert "model_call" not in [e["type"] for e in events]
    assert snapshot(repo) == before
    assert git(repo, "branch", "--list", "coder/*") == ""
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("test_cmd", "said"),
    [
        ("python -m pytest -q tests/", "exit 4"),  # a path that does not exist
        ("python -m pytest -q", "exit 5"),  # no test collected
        ("python -m unittest", "ran no test"),
    ],
)
def test_a_baseline_that_ran_no_test_is_refused(tmp_path: Path, script, test_cmd, said) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC})
    message = refused(repo, script, test_cmd=test_cmd)
    assert f"`{test_cmd}` ran no test" in message and said in message
    assert "--allow-no-tests" in message and "--test-cmd" in message


def test_no_test_command_at_all_is_refused(tmp_path: Path, script) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC, "README.md": "calc\n"})
    message = refused(repo, script)
    assert "no test command" in message and "--allow-no-tests" in message


def test_a_baseline_that_timed_out_is_refused_with_the_fix(tmp_path: Path, script) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC})
    message = refused(repo, script, test_cmd="sleep 30", cmd_timeout_s=0.3)
    assert "timed out after 3s" in message  # the baseline may take ten times the limit
    assert "--cmd-timeout" in message and "--test-cmd" in message


def test_the_command_limit_is_twice_what_the_baseline_took() -> None:
    from coder.verdict.baseline import Baseline, baseline_limit, raised_limit

    assert baseline_limit(5) == 50 and baseline_limit(120) == 600 and baseline_limit(900) == 900
    assert raised_limit(5, Baseline("t", None, 9.0)) is None  # no run: nothing to go by
    from coder.verdict.run import TestRun
    from sandbox.running import CommandResult
    from summarizers.runners.reader import read_log

    run = TestRun("t", "t", CommandResult("t", 0, 1.0, ""), read_log(""))
    quick, slow = Baseline("t", run, 2.0), Baseline("t", run, 7.2)
    assert raised_limit(5, quick) is None
    assert raised_limit(5, slow) == 15


def test_a_suite_slower_than_the_limit_raises_it_and_the_steps_use_it(calc_repo, script) -> None:
    """On a busy machine the suite took longer than --cmd-timeout at the base: the run goes on
    with the limit raised and said, and the step's own run of it is judged, not timed out."""
    events: list[dict] = []
    slow = "sleep 1.2 && python -m pytest -q"
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            test_cmd=slow,
            cmd_timeout_s=1.0,
            listeners=[events.append],
        )  # type: ignore[arg-type]
    )
    [base] = [e for e in events if e["type"] == "baseline"]
    assert base["cmd_timeout_raised_from"] == 1.0
    assert base["cmd_timeout_s"] >= 2 * base["duration_s"]
    assert outcome.result.status == "verified", outcome.result.stop_reason


def test_allow_no_tests_goes_on_and_the_final_check_says_nothing_was_tested(
    tmp_path: Path, script
) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC, "README.md": "calc\n"})
    fix = step("fix-add", ["calc.py"], [{"kind": "command_succeeds", "command": "true"}])
    outcome = run_task(
        RunOptions(
            repo=repo,
            task="x",
            model=script(
                plan(fix),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
            allow_no_tests=True,
        )
    )
    assert outcome.result.final_check is not None and outcome.result.final_check.passed
    assert "nothing was tested" in outcome.result.final_check.detail
