"""Scratch files a step's commands created outside its files are shown to the model once, at
finish_step, before verification: it can remove them; left there, the step fails scope."""

from __future__ import annotations

from calcrepo import FIX_ADD, FIX_STEP, plan

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

FINISH = {"tool": "finish_step", "input": {"summary": "fixed"}}
SCRATCH = {"tool": "run", "input": {"command": "echo ran >> ran.log && echo x > reproduce.py"}}


def run(repo, model):
    outcome = run_task(RunOptions(repo=repo, task="t", model=model, max_revisions=0))
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def finish_answers(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "observation" and e.get("tool") == "finish_step"]


def test_the_model_is_told_of_its_scratch_files_once_and_may_remove_them(calc_repo, script):
    result, events = run(
        calc_repo,
        script(
            plan(FIX_STEP),
            {"tool": "edit_file", "input": FIX_ADD},
            SCRATCH,
            FINISH,
            {"tool": "run", "input": {"command": "rm ran.log reproduce.py"}},
            FINISH,
        ),
    )
    told, accepted = finish_answers(events)
    assert told["status"] == "error"
    assert "created file(s) outside its files: ran.log, reproduce.py" in told["text"]
    assert accepted["status"] == "ok"
    assert result.status == "verified", result.message
    assert result.rollbacks == 0
    assert "ran.log" not in result.patch


def test_scratch_files_left_after_the_notice_fail_scope(calc_repo, script):
    result, events = run(
        calc_repo,
        script(plan(FIX_STEP), {"tool": "edit_file", "input": FIX_ADD}, SCRATCH, FINISH, FINISH),
    )
    assert [e["status"] for e in finish_answers(events)] == ["error", "ok"]
    scope = next(e for e in events if e.get("kind") == "files_within_scope")
    assert scope["status"] == "failed" and "ran.log" in scope["evidence"]
    assert result.status != "verified"
