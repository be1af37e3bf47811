"""What a step's fresh conversation is told of the steps verified before it."""

from __future__ import annotations

import json

from calcrepo import FIX_ADD, FIX_STEP, plan, step
from fake_model_servers import anthropic_message, anthropic_tool_use, fake_anthropic

from coder.loop.runner import RunOptions, run_task

DOC_STEP = step("doc-add", ["README.md"], [], deps=["fix-add"])
DOC = {"path": "README.md", "old_text": "calc", "new_text": "calc: add adds"}


def test_a_later_step_is_told_what_each_verified_step_did(calc_repo, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    calls = [
        ("submit_plan", plan(FIX_STEP, DOC_STEP)["input"]),
        ("edit_file", FIX_ADD),
        ("finish_step", {"summary": "add now returns a + b\n(was a - b)"}),
        ("edit_file", DOC),
        ("finish_step", {"summary": "documented"}),
    ]
    replies = [anthropic_message(tool_calls=[anthropic_tool_use(t, a)]) for t, a in calls]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(repo=calc_repo, task="fix add, then say so", model="anthropic:claude-test")
        ).result
        first, later = (json.dumps(server.requests[i].body["messages"][0]) for i in (1, 3))
    assert result.status == "verified", result.message
    commit = next(s.commit for s in result.steps if s.stepId == "fix-add")
    assert commit
    assert "Steps already verified: none" in first
    assert f"  - fix-add (commit {commit[:10]}): add now returns a + b (was a - b)" in later


def test_every_step_and_the_revision_are_told_the_plans_goal_and_notes(calc_repo, monkeypatch):
    """What the planner found reaches the executors: a fresh conversation is told the goal
    and the notes, and so is the revision after a failed step."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    notes = "add() subtracts at calc.py:2; scale() is fine, leave it."
    with_notes = {**plan(FIX_STEP)["input"], "goal": "add() adds", "notes": notes}
    broken = {**FIX_ADD, "new_text": "return (a, b)"}
    calls = [
        ("submit_plan", with_notes),
        ("edit_file", broken),
        ("finish_step", {"summary": "tried"}),
        ("submit_plan", with_notes),
        ("edit_file", FIX_ADD),
        ("finish_step", {"summary": "fixed"}),
    ]
    replies = [anthropic_message(tool_calls=[anthropic_tool_use(t, a)]) for t, a in calls]
    with fake_anthropic(replies) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_task(
            RunOptions(repo=calc_repo, task="fix add", model="anthropic:claude-test")
        ).result
        step, revision, retry = (
            json.dumps(server.requests[i].body["messages"][0]) for i in (1, 3, 4)
        )
    assert result.status == "verified", result.message
    for briefing in (step, revision, retry):
        assert "Plan goal: add() adds" in briefing
        assert f"Planner's notes:\\n{notes}" in briefing
    assert "Phase: REVISE" in revision
