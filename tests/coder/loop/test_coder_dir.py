"""`.coder` (where runs are kept) is never followed through a link and no step may write it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.plan_only import plan_task
from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from coder.loop.state.usage import UsageError


def commit_link(repo: Path, name: str, target: Path) -> None:
    os.symlink(target, repo / name)
    git(repo, "add", name)
    git(repo, "commit", "-qm", f"link {name}")


def test_a_committed_coder_symlink_is_refused_and_nothing_is_written_where_it_points(
    calc_repo, script, tmp_path
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    commit_link(calc_repo, ".coder", elsewhere)
    options = RunOptions(repo=calc_repo, task="t", model=script(plan(step("s", ["calc.py"], []))))
    with pytest.raises(UsageError, match=r"\.coder is a symlink .* never follows a link"):
        run_task(options)
    with pytest.raises(UsageError, match="never follows a link"):
        plan_task(options)
    assert list(elsewhere.iterdir()) == []
    assert git(calc_repo, "branch", "--list", "coder/*").strip() == ""


def test_a_symlinked_runs_directory_inside_a_real_coder_directory_is_refused(
    calc_repo, script, tmp_path
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (calc_repo / ".coder").mkdir()
    os.symlink(elsewhere, calc_repo / ".coder" / "runs")
    with pytest.raises(UsageError, match=r"runs is a symlink"):
        run_task(RunOptions(repo=calc_repo, task="t", model=script(plan(step("s", ["a"], [])))))
    assert list(elsewhere.iterdir()) == []


def test_no_step_may_write_coder_by_tool_or_by_command(calc_repo, script):
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("s", ["calc.py", ".coder"], [])),
                {"tool": "write_file", "input": {"path": ".coder", "content": "x\n"}},
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "run", "input": {"command": "echo x > .coder"}},
                {"tool": "finish_step", "input": {"summary": "done"}},
            ),
            revise=False,
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    writes = [e for e in events if e["type"] == "observation" and e["tool"] == "write_file"]
    assert writes[0]["status"] == "denied" and "protected (.coder)" in writes[0]["text"]
    assert outcome.result.status != "verified"
    assert ".coder" not in git(calc_repo, "ls-tree", "-r", "--name-only", outcome.result.branch)
