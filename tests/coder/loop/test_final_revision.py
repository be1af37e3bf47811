"""A failed final check is worth one more revision: the planner is told what the final check
found, revises the plan (counted against --max-revisions), and the run goes on."""

from __future__ import annotations

from pathlib import Path

from calcrepo import plan, step

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

FIX_ADD_BREAK_SCALE = {
    "path": "calc.py",
    "old_text": "    return a - b\n\n\ndef scale(value, factor=2):\n    return value * factor",
    "new_text": "    return a + b\n\n\ndef scale(value, factor=2):\n    return value + factor",
}
FIX_SCALE = {"path": "calc.py", "old_text": "value + factor", "new_text": "value * factor"}
# Verified: only add's signature is checked, so the broken scale() goes unseen by the step.
LOOSE_STEP = step("fix-add", ["calc.py"], [{"kind": "signature_unchanged", "symbol": "add"}])
SCALE_STEP = step(
    "fix-scale",
    ["calc.py"],
    ["All unit tests in tests/test_calc.py must exit code 0"],
    deps=["fix-add"],
)
TURNS = (
    plan(LOOSE_STEP),
    {"tool": "edit_file", "input": FIX_ADD_BREAK_SCALE},
    {"tool": "finish_step", "input": {"summary": "fixed add"}},
    plan(LOOSE_STEP, SCALE_STEP),
    {"tool": "edit_file", "input": FIX_SCALE},
    {"tool": "finish_step", "input": {"summary": "scale multiplies again"}},
)


def run(repo: Path, model: str, **kw) -> tuple:
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model, **kw))
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def test_the_planner_revises_once_with_the_final_checks_evidence(calc_repo, script):
    result, events = run(calc_repo, script(*TURNS))
    assert (result.status, result.stop_reason) == ("verified", "completed"), result.message
    assert result.revisions == 1
    assert [s.stepId for s in result.steps if s.status == "verified"] == ["fix-add", "fix-scale"]
    finals = [e for e in events if e.get("kind") == "final_check"]
    assert [e["status"] for e in finals] == ["failed", "passed"]
    assert finals[0]["new_failures"] == ["tests/test_calc.py::test_scale"]
    revise = [e for e in events if e["type"] == "model_call" and e.get("phase") == "revise"]
    assert revise, "the revision phase ran"
    [revised] = [e for e in events if e["type"] == "plan_revised"]
    assert revised["kept_verified"] == ["fix-add"]
    assert any(e["type"] == "final_check_revision" for e in events)


def test_the_revision_counts_against_max_revisions(calc_repo, script):
    result, events = run(calc_repo, script(*TURNS), max_revisions=0)
    assert (result.status, result.stop_reason) == ("failed", "final_check_failed")
    assert result.revisions == 0
    assert not [e for e in events if e["type"] == "plan_revised"]
