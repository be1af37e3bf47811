"""A sandbox like the run's for a throwaway tree of the repository: a proof's tree at a
checkpoint, a flaky test's fresh checkout, the base commit a part of the command is probed at."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from coder.config import ConfigError, load_repo_config
from coder.verdict.run import TestRun, run_tests
from sandbox.confine import Sandbox
from sandbox.proof_tree import Overlay, tree_at
from sandbox.tree_sandbox import sandbox_like


def tree_sandbox(tree: Path, like: Sandbox, test_cmd: str | None) -> Sandbox | str:
    """A sandbox like the run's for a throwaway tree of the repository (a proof's, a flaky
    rerun's), with the repository configuration's `include`; or why it could not be made."""
    try:
        include = load_repo_config(tree).include or []
    except ConfigError:
        include = []
    return sandbox_like(tree, like, include, test_cmd)


def run_at(
    root: Path,
    commit: str,
    like: Sandbox,
    test_cmd: str | None,
    command: str | Callable[[Path], str],
    timeout_s: float,
    overlay: Overlay | None = None,
) -> TestRun | str:
    """`command` (or the command made for the checkout, where it is scoped by the files
    there) run on a throwaway checkout of `commit` (with `overlay` laid over it) in a sandbox
    like the run's: a proof's tree, the base a part or a removal is asked of, a flaky test's
    second run; why not, where no sandbox could be made."""
    with tree_at(root, commit, overlay or {}) as tree:
        sandbox = tree_sandbox(tree, like, test_cmd)
        if isinstance(sandbox, str):
            return sandbox
        made = command if isinstance(command, str) else command(tree)
        return run_tests(sandbox, tree, made, timeout_s)
