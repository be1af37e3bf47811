"""A user repository as a run sees it: a workspace, its environment and the sandbox over it.

Repositories live under /var/tmp (visible, read-only, inside the sandbox), not under /tmp,
which the sandbox replaces by a private one: a leak test on a hidden tree would pass for the
wrong reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbox.confine import Sandbox, bwrap_unavailable_reason, make_sandbox
from sandbox.limits import Limits
from sandbox.repo_env import RepoEnvironment, prepare_environment
from sandbox.workspace import Workspace, new_run_id

needs_bwrap = pytest.mark.skipif(
    bwrap_unavailable_reason() is not None,
    reason=f"bubblewrap cannot start on this host: {bwrap_unavailable_reason()}",
)


@dataclass
class Confined:
    workspace: Workspace
    environment: RepoEnvironment
    sandbox: Sandbox

    @property
    def repo(self) -> Path:
        return self.workspace.repo

    @property
    def worktree(self) -> Path:
        return self.workspace.path

    def run(self, command: str, timeout_s: float = 30):  # type: ignore[no-untyped-def]
        return self.sandbox.run(command, cwd=self.worktree, timeout_s=timeout_s)


@contextmanager
def confined(
    repo: Path,
    *,
    mode: str = "bwrap",
    include: list[str] | None = None,
    test_cmd: str | None = None,
    limits: Limits | None = None,
    allow_unverified: bool = False,
) -> Iterator[Confined]:
    with Workspace.create(repo, new_run_id()) as workspace:
        environment = prepare_environment(
            workspace,
            include=include or [],
            sandbox_mode=mode,
            test_cmd=test_cmd,
            allow_unverified=allow_unverified,
        )
        box = make_sandbox(mode, workspace.path, environment=environment, limits=limits)
        yield Confined(workspace, environment, box)
