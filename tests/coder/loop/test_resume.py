"""`coder resume` (resume_task) on runs that ran out of budget, and every way it refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from calcrepo import FIX_STEP, plan
from gitrepo import git, make_repo, snapshot
from plansupport import ADD_SUB, BROKEN_ADD, FIX_TURNS, SUB, SUB_TURNS

from coder.loop.apply.apply import apply_run_dir
from coder.loop.resume import ResumeOptions, resume_task
from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.loop.state.usage import UsageError
from contracts.saved_run import load_saved_run

PARTIAL_SUB = {**SUB, "new_text": "def sub_half_done(a, b):\n    pass\n\n\ndef scale("}


def out_of_turns(repo: Path, script) -> Path:
    """A run stopped by its turn budget in step 2 (add-sub), after step 1 verified."""
    turns = [plan(FIX_STEP, ADD_SUB), *FIX_TURNS, {"tool": "edit_file", "input": PARTIAL_SUB}]
    outcome = run_task(
        RunOptions(repo=repo, task="fix add, add sub", model=script(*turns), max_turns=4)
    )
    assert outcome.result.stop_reason == "turn_budget", outcome.result.message
    return outcome.run_dir


def test_a_run_out_of_turns_resumes_with_a_raised_budget(calc_repo, script):
    old_dir = out_of_turns(calc_repo, script)
    old = json.loads((old_dir / "result.json").read_text())
    outcome = resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=10))
    result = outcome.result
    assert (result.status, result.stop_reason) == ("verified", "completed")
    assert result.resumed_from == old["run_id"] and result.run_id != old["run_id"]
    assert (result.branch, result.base_commit) == (old["branch"], old["base_commit"])
    steps = {s.stepId: s for s in result.steps}
    assert steps["fix-add"].commit == old["steps"][0]["commit"] and steps["fix-add"].attempts == 1
    assert steps["add-sub"].status == "verified" and steps["add-sub"].attempts == 2
    assert result.model_turns == 6 and result.plan_versions == 1
    assert result.tokens.input > old["tokens"]["input"]
    calc = git(calc_repo, "show", f"{result.branch}:calc.py")
    assert "def sub(a, b)" in calc and "return a + b" in calc and "sub_half_done" not in calc
    log = git(calc_repo, "log", "--format=%s", f"{result.base_commit}..{result.branch}")
    assert log.split("\n")[:2] == ["coder: add-sub", "coder: fix-add"]
    assert (
        json.loads((outcome.run_dir / "plan.v1.json").read_text())["steps"][1]["stepId"]
        == "add-sub"
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    resumed = next(e for e in events if e["type"] == "run_resumed")
    assert (resumed["from_run"], resumed["stopped"]) == (old["run_id"], "turn_budget")
    assert (resumed["verified"], resumed["in_progress"]) == (["fix-add"], "add-sub")
    assert load_saved_run(old_dir).resumed_by == result.run_id
    with pytest.raises(UsageError, match=f"already resumed as run {result.run_id}"):
        resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=20))
    with pytest.raises(UsageError, match="a completed run is not resumed"):
        resume_task(ResumeOptions(outcome.run_dir, model=script(*SUB_TURNS)))


def test_a_spent_budget_must_be_raised_and_none_may_be_lowered(calc_repo, script):
    old_dir = out_of_turns(calc_repo, script)
    with pytest.raises(UsageError, match="has spent 4 of its 4 turns; pass --max-turns"):
        resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS)))
    with pytest.raises(UsageError, match="--max-turns 3 would lower the run's budget of 4"):
        resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=3))
    with pytest.raises(UsageError, match="--timeout 5 would lower"):
        resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=9, timeout_s=5))


def test_a_timed_out_run_resumes_with_more_time(calc_repo, script):
    hang = {"tool": "run", "input": {"command": "sleep 60"}}
    # --timeout bounds the baseline too: room for it on a loaded machine, then the hang cuts
    first = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(plan(FIX_STEP), hang),
            timeout_s=20,
            cmd_timeout_s=600,
        )
    )
    assert first.result.stop_reason == "timeout"
    with pytest.raises(UsageError, match="pass --timeout with more than"):
        resume_task(ResumeOptions(first.run_dir, model=script(*FIX_TURNS)))
    result = resume_task(
        ResumeOptions(first.run_dir, model=script(*FIX_TURNS), timeout_s=600)
    ).result
    assert result.status == "verified" and result.wall_s >= 20, result.message
    assert result.steps[0].attempts == 2


def test_revisions_run_out_and_come_back_with_max_revisions(calc_repo, script):
    broken = [{"tool": "edit_file", "input": BROKEN_ADD}, {"tool": "finish_step", "input": {}}]
    for kw in ({"max_revisions": 0}, {"revise": False}):
        old = run_task(
            RunOptions(repo=calc_repo, task="t", model=script(plan(FIX_STEP), *broken), **kw)
        )
        assert old.result.stop_reason == "revisions_exhausted"
        flag = "--no-revise" if "revise" in kw else "--max-revisions with more than 0"
        with pytest.raises(UsageError, match=flag):
            resume_task(ResumeOptions(old.run_dir, model=script(plan(FIX_STEP), *FIX_TURNS)))
        resumed = resume_task(
            ResumeOptions(old.run_dir, model=script(plan(FIX_STEP), *FIX_TURNS), max_revisions=1)
        )
        result = resumed.result
        assert result.status == "verified", result.message
        assert (result.revisions, result.rollbacks, result.plan_versions) == (1, 1, 2)
        events = read_trace(resumed.run_dir / "trace.jsonl")
        assert [e["type"] for e in events if e["type"].startswith("plan_")] == [
            "plan_submitted",
            "plan_revised",
        ]


class Untouched:
    """What a refused resume must leave exactly as it was."""

    def __init__(self, repo: Path, run_dir: Path) -> None:
        self.repo, self.run_dir = repo, run_dir
        self.state = (run_dir / "state.json").read_bytes()
        self.runs = sorted(p.name for p in (repo / ".coder" / "runs").iterdir())
        self.before = self._now()

    def _now(self) -> tuple:
        branches = git(self.repo, "for-each-ref", "--format=%(refname) %(objectname)")
        return snapshot(self.repo), branches

    def check(self) -> None:
        assert (self.run_dir / "state.json").read_bytes() == self.state
        assert sorted(p.name for p in (self.repo / ".coder" / "runs").iterdir()) == self.runs
        assert self._now() == self.before
        assert not list((self.repo / ".git" / "coder-worktrees").glob("*"))


def refused(options: ResumeOptions, needle: str) -> str:
    with pytest.raises(UsageError) as caught:
        resume_task(options)
    message = str(caught.value)
    assert needle in message and "\n" not in message, message
    return message


def test_resume_refuses_what_is_not_a_resumable_run(calc_repo, script, tmp_path):
    assert "no such run directory" in refused(ResumeOptions(tmp_path / "nope"), "nope")
    refused(ResumeOptions(tmp_path), "is not a run directory (no state.json)")
    stop = {"tool": "stop", "input": {"reason": "no"}}
    done = run_task(RunOptions(repo=calc_repo, task="t", model=script(plan(FIX_STEP), *FIX_TURNS)))
    stopped = run_task(RunOptions(repo=calc_repo, task="t", model=script(stop)))
    react = run_task(RunOptions(repo=calc_repo, task="t", mode="react", model=script(stop)))
    guard = Untouched(calc_repo, done.run_dir)
    refused(ResumeOptions(done.run_dir), "verified (")
    refused(ResumeOptions(stopped.run_dir), "ended stopped (stopped_by_model: no)")
    refused(ResumeOptions(react.run_dir), "is a react-mode run")
    guard.check()
    (done.run_dir / "state.json").unlink()
    refused(ResumeOptions(done.run_dir), "nothing to resume")


def test_resume_refuses_a_branch_deleted_or_moved(calc_repo, script):
    old_dir = out_of_turns(calc_repo, script)
    saved = load_saved_run(old_dir)
    options = ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=10)
    git(calc_repo, "branch", "-f", saved.branch, saved.base_commit)
    guard = Untouched(calc_repo, old_dir)
    refused(options, "the commit of verified step fix-add")
    guard.check()
    ahead = git(calc_repo, "commit-tree", "-p", saved.head, "-m", "mine", f"{saved.head}^{{tree}}")
    git(calc_repo, "branch", "-f", saved.branch, ahead.strip())
    guard = Untouched(calc_repo, old_dir)
    message = refused(options, f"branch {saved.branch} moved since run {saved.run_id} stopped")
    assert f"git branch -f {saved.branch} {saved.head[:12]}" in message
    guard.check()
    git(calc_repo, "branch", "-D", saved.branch)
    guard = Untouched(calc_repo, old_dir)
    refused(options, f"branch {saved.branch} no longer exists")
    guard.check()


def test_resume_refuses_a_run_of_another_repository(calc_repo, script, tmp_path):
    old_dir = out_of_turns(calc_repo, script)
    saved = load_saved_run(old_dir)
    other = make_repo(tmp_path / "other", {"x.py": "x = 1\n"})
    copied = other / ".coder" / "runs" / old_dir.name
    shutil.copytree(old_dir, copied)
    guard = Untouched(calc_repo, old_dir)
    model = script(*SUB_TURNS)
    refused(ResumeOptions(copied, model=model, max_turns=9), f"RUN_DIR lies in {other}")
    refused(ResumeOptions(old_dir, model=model, max_turns=9, repo=other), f"--repo names {other}")
    moved = tmp_path / "moved"
    calc_repo.rename(moved)  # the run's own repository is gone: the copy's repository is not it
    refused(
        ResumeOptions(copied, model=model, max_turns=9),
        f"{other} does not have run {saved.run_id}'s base commit",
    )
    moved.rename(calc_repo)
    guard.check()


# state.json is data: resume works only on the run's own branch, confined as the command
# line says, in the repository the command line names.


def edit_state(run_dir: Path, **changes: object) -> None:
    state = json.loads((run_dir / "state.json").read_text())
    state.update(changes)
    (run_dir / "state.json").write_text(json.dumps(state))


def test_a_state_naming_main_never_works_on_main(calc_repo, script):
    old_dir = out_of_turns(calc_repo, script)
    main = git(calc_repo, "rev-parse", "HEAD").strip()
    edit_state(old_dir, branch="main", head=main, step_commits={})
    guard = Untouched(calc_repo, old_dir)
    refused(
        ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=10),
        "names branch 'main', not the run's own coder/<run-id>",
    )
    guard.check()
    assert git(calc_repo, "rev-parse", "main").strip() == main


def test_a_sandbox_loosened_in_the_state_is_not_taken(calc_repo, script):
    old_dir = out_of_turns(calc_repo, script)
    edit_state(old_dir, sandbox="none")
    outcome = resume_task(ResumeOptions(old_dir, model=script(*SUB_TURNS), max_turns=10))
    started = next(
        e for e in read_trace(outcome.run_dir / "trace.jsonl") if e["type"] == "run_started"
    )
    assert started["sandbox"] == "bwrap"


def test_a_run_directory_outside_the_repository_needs_repo(calc_repo, script, tmp_path):
    old_dir = out_of_turns(calc_repo, script)
    moved = tmp_path / "elsewhere" / "run"
    shutil.copytree(old_dir, moved)
    message = refused(
        ResumeOptions(moved, model=script(*SUB_TURNS), max_turns=10),
        "name the run's repository with --repo PATH",
    )
    assert str(calc_repo) in message
    outcome = resume_task(
        ResumeOptions(moved, model=script(*SUB_TURNS), max_turns=10, repo=calc_repo)
    )
    assert outcome.result.status == "verified"
    applied = apply_run_dir(outcome.run_dir)  # a resumed run keeps the branch it continued
    assert applied.applied, applied.line


def test_a_run_killed_before_its_state_is_not_called_a_plan_session(calc_repo, script):
    outcome = run_task(RunOptions(repo=calc_repo, task="t", model=script({"text": "hi"})))
    (outcome.run_dir / "state.json").unlink()  # as a SIGKILL before the first save leaves it
    with pytest.raises(UsageError, match="killed before it saved its state") as caught:
        resume_task(ResumeOptions(outcome.run_dir, model=script(*SUB_TURNS)))
    assert "coder plan" not in str(caught.value)
