"""A proof never goes through a link: not one the repository committed at a test file's path
(the step's bytes would be written through it, as the harness's user), nor one the model's
command made (its target would be read as that user and shown to the model)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

CANARY = "ROOT_ONLY_CANARY_7731"


@pytest.fixture
def private(tmp_path: Path) -> Path:
    holder = tmp_path / "private"
    holder.mkdir(mode=0o700)
    target = holder / "target.py"
    target.write_text(f"{CANARY} = this line is not python\n")
    target.chmod(0o600)
    return target


def run(repo: Path, model: str):
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model))
    return outcome, read_trace(outcome.run_dir / "trace.jsonl")


def test_the_proof_tree_replaces_the_repositorys_link_instead_of_writing_through_it(
    calc_repo, script, private
):
    (calc_repo / "tests" / "test_proof.py").symlink_to(private)
    git(calc_repo, "add", "-A")
    git(calc_repo, "commit", "-q", "-m", "a test file that is a link")
    new_test = "from calc import add\n\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"
    turns = script(
        plan(
            step(
                "fix-add",
                ["calc.py", "tests/test_proof.py"],
                ["the new tests in tests/test_proof.py fail before this step and pass after"],
            )
        ),
        {"tool": "run", "input": {"command": "rm tests/test_proof.py"}},
        {"tool": "write_file", "input": {"path": "tests/test_proof.py", "content": new_test}},
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "finish_step", "input": {"summary": "fixed add, with a test"}},
    )
    outcome, events = run(calc_repo, turns)
    assert private.read_text() == f"{CANARY} = this line is not python\n"
    assert private.stat().st_mode & 0o777 == 0o600
    [proof] = [e for e in events if e.get("kind") == "tests_fail_before"]
    assert proof["status"] == "passed", proof["evidence"]
    assert "1 test(s) failed before the change, pass after it" in proof["evidence"]


def test_a_link_the_model_made_is_laid_as_a_link_and_its_target_never_reaches_the_model(
    calc_repo, script, private
):
    links = f"ln -s {private} tests/test_x.py && ln -s {private} tests/conftest.py"
    turns = script(
        plan(
            step(
                "fix-add",
                ["calc.py", "tests/test_x.py", "tests/conftest.py"],
                ["tests/test_x.py::test_it fails before this step and passes after"],
            )
        ),
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "run", "input": {"command": links}},
        {"tool": "finish_step", "input": {"summary": "done"}},
        {"tool": "stop", "input": {"reason": "no more"}},
    )
    outcome, events = run(calc_repo, turns)
    assert outcome.result.status != "verified"
    [proof, *_] = [e for e in events if e.get("kind") == "tests_fail_before"]
    assert proof["status"] == "failed"
    for path in outcome.run_dir.rglob("*"):
        if path.is_file():
            assert CANARY not in path.read_text(errors="replace"), path.name
    assert os.geteuid() != 0 or private.stat().st_mode & 0o777 == 0o600
