"""A throwaway worktree of one commit, for running a PR's tests without touching the checkout.

Built on the sandbox's `Workspace` (so crashed reviews are pruned like crashed runs), then moved
to the commit asked for; the branch a workspace makes is deleted, since a review leaves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coder.ci.errors import CiInputError
from coder.ci.gitrefs import GitError, git
from sandbox.workspace import Workspace, WorkspaceError, new_run_id


@contextmanager
def commit_tree(repo: Path, commit: str) -> Iterator[Path]:
    """The path of a detached worktree at `commit`, removed on exit."""
    try:
        workspace = Workspace.create(repo, f"ci-{new_run_id()}")
    except WorkspaceError as exc:
        raise CiInputError(str(exc)) from None
    try:
        try:
            git(
                workspace.path,
                "-c",
                "advice.detachedHead=false",
                "checkout",
                "-q",
                "--detach",
                commit,
            )
        except GitError as exc:
            raise CiInputError(f"cannot check out {commit[:12]}: {exc}") from None
        _delete_branch(workspace)
        yield workspace.path
    finally:
        workspace.close()
        _delete_branch(workspace)


def _delete_branch(workspace: Workspace) -> None:
    git(workspace.repo, "branch", "-q", "-D", workspace.branch, check=False)
