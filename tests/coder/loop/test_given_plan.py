"""`coder run --plan FILE` (RunOptions.plan_file): a person's plan instead of the plan phase,
validated before anything, revisable unless --no-revise, approved by being given."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from calcrepo import FIX_ADD, FIX_STEP, plan, step
from gitrepo import git, snapshot
from plansupport import BROKEN_ADD, FIX_TURNS, plan_file

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.loop.state.usage import UsageError


def run(repo: Path, model: str, given: Path, **kw) -> tuple:
    options = RunOptions(repo=repo, task="make add() add", model=model, plan_file=given, **kw)
    outcome = run_task(options)
    return outcome.result, outcome.run_dir, read_trace(outcome.run_dir / "trace.jsonl")


def test_a_given_plan_runs_without_a_plan_phase_and_says_it_came_from_the_user(
    calc_repo, script, tmp_path
):
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    result, run_dir, events = run(calc_repo, script(*FIX_TURNS), given)
    assert (result.status, result.stop_reason) == ("verified", "completed")
    assert (result.plan_source, result.plan_sources, result.model_turns) == ("user", ["user"], 2)
    assert json.loads((run_dir / "plan.v1.json").read_text()) == json.loads(given.read_text())
    submitted = [e for e in events if e["type"] == "plan_submitted"]
    assert [(e["version"], e["source"]) for e in submitted] == [(1, "user")]
    assert not [e for e in events if e["type"] == "model_call" and e["phase"] == "plan"]


def test_the_planner_may_still_revise_a_given_plan(calc_repo, script, tmp_path):
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    result, run_dir, _ = run(
        calc_repo,
        script(
            {"tool": "edit_file", "input": BROKEN_ADD},
            {"tool": "finish_step", "input": {"summary": "oops"}},
            plan(FIX_STEP),
            *FIX_TURNS,
        ),
        given,
    )
    assert result.status == "verified"
    assert (result.revisions, result.plan_source, result.plan_sources) == (
        1,
        "user",
        ["user", "model"],
    )
    assert (run_dir / "plan.v2.json").is_file()


def test_no_revise_ends_the_run_at_the_first_failed_step(calc_repo, script, tmp_path):
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    result, _, events = run(
        calc_repo,
        script({"tool": "edit_file", "input": BROKEN_ADD}, {"tool": "finish_step", "input": {}}),
        given,
        revise=False,
    )
    assert (result.status, result.stop_reason) == ("failed", "revisions_exhausted")
    assert "revisions are off (--no-revise)" in result.message
    assert (result.rollbacks, result.revisions, result.plan_versions) == (1, 0, 1)
    assert "return a - b" in git(calc_repo, "show", f"{result.branch}:calc.py")
    assert not [e for e in events if e["type"] == "model_call" and e["phase"] == "revise"]


def _assert_unchanged(repo: Path, before: dict) -> None:
    assert snapshot(repo) == before
    assert "coder/" not in git(repo, "branch")
    assert not (repo / ".coder").exists()


def test_an_invalid_plan_file_lists_every_problem_and_changes_nothing(calc_repo, script, tmp_path):
    bad = step("fix add", ["calc.py"], ["the code is nicer"], deps=["nowhere"])
    given = plan_file(tmp_path / "plan.json", bad)
    before = snapshot(calc_repo)
    with pytest.raises(UsageError) as caught:
        run(calc_repo, script(*FIX_TURNS), given)
    problems = caught.value.details
    assert [p.split(":")[0] for p in problems] == [
        "steps[0] (fix add).stepId",
        "steps[0] (fix add).dependencies[0]",
        "steps[0] (fix add).intendedModification.invariants[0]",
    ]
    assert "is not a valid plan (3 problems" in str(caught.value)
    _assert_unchanged(calc_repo, before)


def test_a_plan_whose_files_escape_the_repository_is_invalid(calc_repo, script, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, calc_repo / "ext")
    git(calc_repo, "add", "ext")
    git(calc_repo, "commit", "-q", "-m", "a link out")
    before = snapshot(calc_repo)
    for files, needle in (
        (["../outside.py"], "contains '..'; paths must stay inside the repository"),
        (["/etc/passwd"], "is absolute"),
        (["ext/x.py"], "'ext/x.py' is outside the repository"),
        (["ext/**/*.py"], "'ext/**/*.py' is outside the repository"),
    ):
        given = plan_file(tmp_path / "plan.json", step("s", files, []))
        with pytest.raises(UsageError) as caught:
            run(calc_repo, script(*FIX_TURNS), given)
        assert len(caught.value.details) == 1 and needle in caught.value.details[0], files
    assert not list(outside.iterdir())
    _assert_unchanged(calc_repo, before)


def test_plan_flags_need_a_mode_with_a_plan(calc_repo, script, tmp_path):
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    for kw in ({"plan_file": given}, {"approve": True}, {"revise": False}):
        options = RunOptions(repo=calc_repo, task="t", model=script(*FIX_TURNS), mode="react", **kw)
        with pytest.raises(UsageError, match="need a mode with a plan"):
            run_task(options)


def test_approve_without_a_terminal_needs_a_given_plan(calc_repo, script, tmp_path):
    before = snapshot(calc_repo)
    options = RunOptions(repo=calc_repo, task="t", model=script(*FIX_TURNS), approve=True)
    with pytest.raises(UsageError, match="--approve asks on a terminal and there is none"):
        run_task(options)
    _assert_unchanged(calc_repo, before)
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    result, _, events = run(calc_repo, script(*FIX_TURNS), given, approve=True)
    assert result.status == "verified"
    approved = [e for e in events if e["type"] == "plan_approved"]
    assert [(e["version"], e["by"]) for e in approved] == [(1, "plan_file")]


def test_a_revision_that_needs_approval_without_a_terminal_stops_for_input(
    calc_repo, script, tmp_path
):
    given = plan_file(tmp_path / "plan.json", FIX_STEP)
    result, _, _ = run(
        calc_repo,
        script(
            {"tool": "edit_file", "input": BROKEN_ADD},
            {"tool": "finish_step", "input": {}},
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
        ),
        given,
        approve=True,
    )
    assert (result.status, result.stop_reason) == ("stopped", "needs_input")
    assert "plan v2 needs your approval" in result.message
    assert result.plan_versions == 2 and result.revisions == 0
