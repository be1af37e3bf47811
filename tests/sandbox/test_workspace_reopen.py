"""A resumed run's worktree: on the earlier run's branch, at its commit, never deleting it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.checkpoint import Checkpoints
from sandbox.workspace import Workspace, WorkspaceError, run_in_progress
from tests.sandbox.gitrepos import run_git


def _run_with_one_commit(repo: Path) -> tuple[str, str]:
    """A run that committed one step and stopped: (its branch, the step's commit)."""
    with Workspace.create(repo, "first") as ws:
        (ws.path / "src" / "util.py").write_text("X = 2\n")
        commit = Checkpoints(ws.path).commit("coder: step-1")
    return ws.branch, commit


def test_reopen_checks_out_the_branch_where_the_run_left_it(repo: Path) -> None:
    branch, commit = _run_with_one_commit(repo)
    base = run_git(repo, "rev-parse", "HEAD").strip()
    with Workspace.reopen(repo, "second", branch, base) as ws:
        assert ws.path == repo / ".git" / "coder-worktrees" / "second"
        assert (ws.branch, ws.base_commit, ws.owns_branch) == (branch, base, False)
        assert run_git(ws.path, "rev-parse", "HEAD").strip() == commit
        assert (ws.path / "src" / "util.py").read_text() == "X = 2\n"
        assert run_in_progress(repo, "second")
    assert not run_in_progress(repo, "second")
    ws.delete_branch()  # a resumed run that ends before it began keeps the earlier run's branch
    assert run_git(repo, "rev-parse", branch).strip() == commit


def test_reopen_refuses_a_branch_that_is_gone_or_checked_out(repo: Path) -> None:
    branch, _ = _run_with_one_commit(repo)
    base = run_git(repo, "rev-parse", "HEAD").strip()
    with pytest.raises(WorkspaceError, match="branch coder/nope does not exist"):
        Workspace.reopen(repo, "again", "coder/nope", base)
    run_git(repo, "checkout", "-q", branch)
    with pytest.raises(WorkspaceError, match=f"could not check out {branch}"):
        Workspace.reopen(repo, "again", branch, base)
    assert not (repo / ".git" / "coder-worktrees" / "again").exists()
    assert not (repo / ".git" / "coder-worktrees" / "again.owner.json").exists()
