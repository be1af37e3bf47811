"""A sandbox like the run's for a throwaway tree of the repository (a proof's tree, a fresh
checkout of a commit): same mode, same limits, same command environment."""

from __future__ import annotations

from pathlib import Path

from sandbox.confine import Sandbox, SandboxUnavailable, make_sandbox
from sandbox.repo_env import RepoEnvironmentError, prepare_tree_environment
from sandbox.wrapper import EnvSandbox


def sandbox_like(
    tree: Path, like: Sandbox, include: list[str], test_cmd: str | None
) -> Sandbox | str:
    """A sandbox of the same mode, limits and command environment as `like` (the run's), for a
    throwaway tree of the run, with what the run's worktree brought in (`include` and the
    checkout's `.worktreeinclude`); or why the tree could not be set up."""
    wrapped = like if isinstance(like, EnvSandbox) else None
    inner = wrapped.inner if wrapped else like
    try:
        environment = prepare_tree_environment(
            tree, include=include, sandbox_mode=like.name, test_cmd=test_cmd, own_includes=True
        )
        made = make_sandbox(
            like.name, tree, environment=environment, limits=getattr(inner, "limits", None)
        )
    except (RepoEnvironmentError, SandboxUnavailable) as exc:
        return f"the tree at the commit could not be set up: {exc}"
    return EnvSandbox(made, wrapped.env if wrapped else {})
