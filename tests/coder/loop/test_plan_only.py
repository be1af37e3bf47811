"""`coder plan` (plan_task): the plan phase of a run alone; a plan file, nothing else changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from calcrepo import FIX_STEP, plan
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic
from gitrepo import git, snapshot
from plansupport import ADD_SUB

from coder.loop.plan_only import plan_task
from coder.loop.runner import RunOptions
from coder.loop.state.trace import read_trace
from coder.loop.state.usage import UsageError
from contracts.validation import load_plan_file


def _left_alone(repo: Path, before: dict) -> None:
    assert snapshot(repo) == before
    assert "coder/" not in git(repo, "branch")
    assert not list((repo / ".git" / "coder-worktrees").glob("*"))


def test_plan_writes_a_valid_plan_and_leaves_no_branch(calc_repo, script):
    before = snapshot(calc_repo)
    model = script({"tool": "list_files", "input": {}}, plan(FIX_STEP, ADD_SUB))
    outcome = plan_task(RunOptions(repo=calc_repo, task="fix add, add sub", model=model))
    assert outcome.stop_reason == "completed" and outcome.plan is not None
    assert outcome.plan_file == (calc_repo / ".coder" / "plans" / f"{outcome.run_dir.name}.json")
    check = load_plan_file(outcome.plan_file)
    assert check.plan is not None and check.plan.order == ["fix-add", "add-sub"]
    assert json.loads(outcome.plan_file.read_text()) == check.plan.plan.wire()
    events = read_trace(outcome.run_dir / "trace.jsonl")
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run_started" and "baseline" in kinds and "plan_submitted" in kinds
    assert not {"step_started", "checkpoint", "verification"} & set(kinds)
    assert events[-1]["type"] == "run_finished" and events[-1]["status"] == "planned"
    assert not (outcome.run_dir / "result.json").exists()
    assert not (outcome.run_dir / "state.json").exists()
    _left_alone(calc_repo, before)


def test_plan_to_a_file_of_your_choice(calc_repo, script, tmp_path):
    out = tmp_path / "reviews" / "calc.plan.json"
    outcome = plan_task(
        RunOptions(repo=calc_repo, task="fix add", model=script(plan(FIX_STEP))), out
    )
    assert outcome.plan_file == out.resolve() and load_plan_file(out).ok


def test_the_planner_sees_the_baseline(calc_repo, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    reply = anthropic_message(
        tool_calls=[anthropic_tool_use("submit_plan", plan(FIX_STEP)["input"])]
    )
    with fake_anthropic([reply]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outcome = plan_task(RunOptions(repo=calc_repo, task="fix add", model="anthropic:m"))
        sent = json.dumps(server.requests[0].body["messages"])
    assert outcome.plan is not None
    assert "these tests already fail" in sent and "tests/test_calc.py::test_add" in sent


def test_a_planner_that_stops_leaves_no_plan_and_no_branch(calc_repo, script):
    before = snapshot(calc_repo)
    outcome = plan_task(
        RunOptions(
            repo=calc_repo,
            task="x",
            model=script({"tool": "stop", "input": {"reason": "unclear task"}}),
        )
    )
    assert (outcome.plan, outcome.plan_file) == (None, None)
    assert (outcome.stop_reason, outcome.message) == ("stopped_by_model", "unclear task")
    assert not (calc_repo / ".coder" / "plans").exists()
    _left_alone(calc_repo, before)


def test_an_out_that_is_a_directory_is_bad_input_before_anything(calc_repo, script, tmp_path):
    before = snapshot(calc_repo)
    with pytest.raises(UsageError, match="is a directory"):
        plan_task(RunOptions(repo=calc_repo, task="x", model=script(plan(FIX_STEP))), tmp_path)
    assert not (calc_repo / ".coder").exists()
    _left_alone(calc_repo, before)
