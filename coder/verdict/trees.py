"""A sandbox like the run's for a throwaway tree of the repository: a proof's tree at a
checkpoint, a flaky test's fresh checkout, the base commit a part of the command is probed at."""

from __future__ import annotations

from pathlib import Path

from coder.config import ConfigError, load_repo_config
from sandbox.confine import Sandbox
from sandbox.tree_sandbox import sandbox_like


def tree_sandbox(tree: Path, like: Sandbox, test_cmd: str | None) -> Sandbox | str:
    """A sandbox like the run's for a throwaway tree of the repository (a proof's, a flaky
    rerun's), with the repository configuration's `include`; or why it could not be made."""
    try:
        include = load_repo_config(tree).include or []
    except ConfigError:
        include = []
    return sandbox_like(tree, like, include, test_cmd)
