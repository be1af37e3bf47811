"""Independent steps at the same time (`--jobs J`): each in a worktree of its own at the
verified tip, brought onto the run's branch in plan order; a conflict rolls the later step back
and sends it to revision. A real OpenAI-compatible client against the local server, answering
by phase (tests/phase_model.py), real git, real bubblewrap, real pytest."""

from __future__ import annotations

from pathlib import Path

from fake_model_servers import FakeServer
from gitrepo import git, snapshot
from phase_model import PhaseModel
from three_steps import NAMES, independent_phases, make_three, plan, step, step_turns

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace


def run(repo: Path, phases: dict, jobs: int, delay_s: float = 0.0) -> tuple:
    model = PhaseModel(phases, delay_s)
    with FakeServer("/v1/chat/completions", api_root="/v1", respond=model) as server:
        outcome = run_task(
            RunOptions(
                repo=repo,
                task="set the three values",
                model="openai:local-test",
                base_url=server.base_url,
                jobs=jobs,
            )
        )
    return outcome.result, read_trace(outcome.run_dir / "trace.jsonl")


def test_independent_steps_overlap_and_land_on_the_branch_in_plan_order(tmp_path):
    """Each step reads its file four times (three turns in a row with nothing new): alone,
    under the no-progress bound of 8; the three at once must not add up to 9."""
    repo = make_three(tmp_path / "repo")
    before = snapshot(repo)
    result, events = run(repo, independent_phases(reads=4), jobs=3, delay_s=0.3)
    assert (result.status, result.stop_reason) == ("verified", "completed"), result.message
    assert [s.stepId for s in result.steps if s.status == "verified"] == [f"set-{n}" for n in NAMES]
    [overlap] = [e for e in events if e["type"] == "steps_overlapped"]
    spans = {s["step"]: (s["started"], s["ended"]) for s in overlap["steps"]}
    assert set(spans) == {f"set-{n}" for n in NAMES}
    assert max(a for a, _ in spans.values()) < min(b for _, b in spans.values())  # all at once
    subjects = git(repo, "log", "--format=%s", f"{result.base_commit}..{result.branch}").split("\n")
    assert subjects[:3] == [f"coder: set-{n}" for n in reversed(NAMES)]  # newest first
    for name in NAMES:
        assert f"{name.upper()} = 1" in git(repo, "show", f"{result.branch}:{name}.py")
    assert snapshot(repo) == before
    assert "coder-proof" not in git(repo, "worktree", "list")


def test_a_step_that_conflicts_once_merged_is_rolled_back_and_revised(tmp_path):
    """alpha and beta both append to alpha.py at the same place: alpha lands first, beta's
    change conflicts, is rolled back, and the revision makes beta depend on alpha."""
    repo = make_three(tmp_path / "repo")
    clash = step("beta", file="alpha.py")
    phases = {
        "plan": [plan(step("alpha"), clash)],
        "set-alpha": step_turns("alpha", reads=0),
        "set-beta": step_turns("beta", reads=0, file="alpha.py"),
        "revise": [plan(step("alpha"), {**clash, "dependencies": ["set-alpha"]})],
    }
    result, events = run(repo, phases, jobs=2)
    merge = [e for e in events if e["type"] == "verification" and e["kind"] == "merge"]
    assert [m["status"] for m in merge] == ["failed"]
    assert "conflicts with set-alpha" in merge[0]["evidence"]
    assert "alpha.py" in merge[0]["evidence"]
    assert (result.status, result.revisions, result.rollbacks) == ("verified", 1, 1), result.message
    text = git(repo, "show", f"{result.branch}:alpha.py")
    assert "ALPHA = 1" in text and "BETA = 1" in text


def test_a_step_that_fails_verification_on_the_merged_tree_is_rolled_back_and_revised(tmp_path):
    """beta's invariant holds in its own worktree (alpha.py untouched there) and not once alpha
    is on the branch: beta is verified again there, rolled back, and revised."""
    repo = make_three(tmp_path / "repo")
    beta = step("beta")
    against_alpha = {"kind": "text_absent", "pattern": "ALPHA = 1", "paths": ["alpha.py"]}
    beta["intendedModification"]["invariants"].append(against_alpha)
    phases = {
        "plan": [plan(step("alpha"), beta)],
        "set-alpha": step_turns("alpha", reads=0),
        "set-beta": step_turns("beta", reads=0),
        "revise": [plan(step("alpha"), step("beta", deps=["set-alpha"]))],
    }
    result, events = run(repo, phases, jobs=2)
    again = [e for e in events if e["type"] == "verification" and "merged_with" in e]
    assert [(e["kind"], e["status"]) for e in again if e["status"] == "failed"] == [
        ("text_absent", "failed")
    ]
    assert again[0]["merged_with"] == ["set-alpha"]
    [rollback] = [e for e in events if e["type"] == "rollback" and e["step"] == "set-beta"]
    assert "failed verification once brought onto the branch after set-alpha" in rollback["note"]
    assert (result.status, result.revisions) == ("verified", 1), result.message
