"""Taking a verified change into the user's tree: only onto exactly the base, never in silence."""

from __future__ import annotations

from pathlib import Path

import pytest
from calcrepo import FIX_STEP, FIX_TURNS, plan, step
from gitrepo import git, snapshot

from coder.loop.apply.apply import ApplyInputError, apply_run, apply_run_dir, load_result
from coder.loop.runner import RunOptions, RunOutcome, run_task


def run(repo: Path, model: str, **kw) -> RunOutcome:
    return run_task(RunOptions(repo=repo, task="make add() add", model=model, **kw))


def test_apply_changes_a_clean_tree_only_after_verification(calc_repo, script):
    outcome = run(calc_repo, script(*FIX_TURNS), apply=True)
    assert outcome.result.applied and "return a + b" in (calc_repo / "calc.py").read_text()
    assert outcome.take is not None and outcome.take.startswith("applied to your working tree")
    assert load_result(outcome.run_dir).applied


def test_dirty_tree_is_not_applied_and_the_line_says_why_and_how(calc_repo, script):
    (calc_repo / "README.md").write_text("my own edit\n")
    before = snapshot(calc_repo)
    outcome = run(calc_repo, script(*FIX_TURNS), apply=True)
    result = outcome.result
    assert result.status == "verified" and not result.applied
    assert outcome.take is not None
    assert outcome.take.startswith("not applied: your working tree has uncommitted changes")
    assert f"coder apply {outcome.run_dir}" in outcome.take
    assert f"git merge {result.branch}" in outcome.take
    assert "not applied: your working tree has uncommitted changes" in result.message
    assert "not applied" in load_result(outcome.run_dir).message
    assert snapshot(calc_repo) == before
    assert "return a + b" in git(calc_repo, "show", f"{result.branch}:calc.py")


def test_verified_run_without_apply_says_how_to_take_it_and_that_advice_works(calc_repo, script):
    outcome = run(calc_repo, script(*FIX_TURNS))
    assert outcome.take == (
        f"to take the change: `git merge {outcome.result.branch}` or "
        f"`coder apply {outcome.run_dir}`"
    )
    assert "return a - b" in (calc_repo / "calc.py").read_text()
    applied = apply_run_dir(outcome.run_dir)
    assert applied.applied, applied.line
    assert "return a + b" in (calc_repo / "calc.py").read_text()
    again = apply_run_dir(outcome.run_dir)
    assert not again.applied and again.line == (
        f"not applied: already applied: your working tree at {calc_repo} holds the change "
        "(uncommitted)"
    )


def test_head_moved_since_the_base_is_not_applied(calc_repo, script):
    outcome = run(calc_repo, script(*FIX_TURNS))
    (calc_repo / "NOTES.md").write_text("later work\n")
    git(calc_repo, "add", "NOTES.md")
    git(calc_repo, "commit", "-qm", "later")
    before = snapshot(calc_repo)
    applied = apply_run_dir(outcome.run_dir)
    assert not applied.applied
    assert applied.line.startswith("not applied: HEAD moved since the run started")
    assert f"git merge {outcome.result.branch}" in applied.line
    assert snapshot(calc_repo) == before


def test_an_untracked_file_counts_as_a_change(calc_repo, script):
    outcome = run(calc_repo, script(*FIX_TURNS))
    (calc_repo / "scratch.txt").write_text("notes\n")
    applied = apply_run_dir(outcome.run_dir)
    assert not applied.applied
    assert applied.line.startswith("not applied: your working tree has uncommitted changes")
    assert "scratch.txt" in applied.line
    assert "return a - b" in (calc_repo / "calc.py").read_text()


def test_ignored_file_in_the_way_is_a_conflict_not_an_overwrite(calc_repo, script):
    new_file = {"tool": "write_file", "input": {"path": "extra.py", "content": "X = 1\n"}}
    outcome = run(
        calc_repo,
        script(
            plan(step("add-extra", ["extra.py"], [])),
            new_file,
            {"tool": "finish_step", "input": {"summary": "added"}},
        ),
    )
    with (calc_repo / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("extra.py\n")
    (calc_repo / "extra.py").write_text("mine\n")
    applied = apply_run_dir(outcome.run_dir)
    assert not applied.applied
    assert "untracked or ignored paths are where the change writes (extra.py)" in applied.line
    assert (calc_repo / "extra.py").read_text() == "mine\n"


def test_unverified_and_empty_runs_are_not_applied(calc_repo, script):
    failed = run(calc_repo, script(plan(FIX_STEP)), apply=True)
    assert failed.result.status != "verified" and not failed.result.applied
    assert failed.take is not None and "the run did not verify (model_error)" in failed.take
    empty = run(
        calc_repo,
        script(
            plan(step("look", ["calc.py"], [])),
            {"tool": "finish_step", "input": {"summary": "nothing to do"}},
        ),
        apply=True,
        mode="plan",
    )
    assert empty.result.stop_reason == "final_check_failed" and not empty.result.applied
    assert empty.take is not None and "did not verify (final_check_failed)" in empty.take
    claimed = empty.result.model_copy(update={"status": "verified"})
    assert apply_run(calc_repo, claimed, empty.run_dir).line == (
        "not applied: the run verified but changed nothing"
    )
    assert "return a - b" in (calc_repo / "calc.py").read_text()


def test_apply_run_dir_rejects_what_is_not_a_run_directory(tmp_path, calc_repo, script):
    with pytest.raises(ApplyInputError, match="no result.json"):
        apply_run_dir(tmp_path)
    (tmp_path / "result.json").write_text('{"status": "verified"}')
    with pytest.raises(ApplyInputError, match="not a valid result"):
        apply_run_dir(tmp_path)
