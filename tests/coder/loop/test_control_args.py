"""A phase-ending call is held to its tool's schema as every other call is: what the schema
does not allow comes back as an error naming the form, and ends nothing."""

from __future__ import annotations

from calcrepo import FIX_ADD, FIX_STEP, plan

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace


def _observations(run_dir, tool):
    events = read_trace(run_dir / "trace.jsonl")
    return [e for e in events if e["type"] == "observation" and e.get("tool") == tool]


def test_finish_step_with_a_key_its_schema_lacks_is_sent_back(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed", "details": "more"}},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    first, second = _observations(outcome.run_dir, "finish_step")
    assert first["status"] == "error"
    assert "bad arguments for finish_step: details: Extra inputs are not permitted" in first["text"]
    assert 'Use: finish_step {"summary?": …}' in first["text"]
    assert second["status"] == "ok"
    assert outcome.result.steps[0].attempts == 1, "the refused call ended nothing"


def test_a_plan_step_with_a_field_of_its_own_is_refused_by_name(calc_repo, script):
    extra = {**FIX_STEP, "details": "what the planner wanted to add"}
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="make add() add",
            model=script(
                {"tool": "submit_plan", "input": {"goal": "fix", "steps": [extra]}},
                plan(FIX_STEP),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "finish_step", "input": {"summary": "fixed"}},
            ),
        )
    )
    assert outcome.result.status == "verified", outcome.result.message
    refused = _observations(outcome.run_dir, "submit_plan")[0]
    assert refused["status"] == "error"
    assert "steps[0] (fix-add).details: unknown field" in refused["text"]
