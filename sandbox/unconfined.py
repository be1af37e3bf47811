"""`--sandbox none`: commands on the host, for machines where bubblewrap cannot start.

Kept: the limits (cgroup, rlimits, growth), a scrubbed environment, a private HOME and
TMPDIR, the timeout, a PID namespace of its own where the host allows one
(sandbox/isolation.py), else sandbox/reaper.py as a subreaper that kills what the command
leaves running. Not kept: the file system and network confinement; the run warns.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from sandbox.environment import sandbox_environment
from sandbox.isolation import make_undumpable, pid_namespace_prefix
from sandbox.limits import Limits
from sandbox.repo_env import RepoEnvironment, plain_environment
from sandbox.running import CommandResult, inside_root, read_reports, run_limited
from sandbox.scratch import scratch_dir, sweep_stale

PRIVATE_PREFIX = "coder-cmd-"


class UnconfinedSandbox:
    """Commands on the host, with limits, a scrubbed environment and a private HOME only."""

    name = "none"

    def __init__(
        self,
        root: Path,
        *,
        environment: RepoEnvironment | None = None,
        limits: Limits | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.env = environment or plain_environment(Path(os.path.realpath(root)))
        self.root = self.env.worktree
        self.view_root = self.root
        self.limits = limits or Limits()
        self._bash = shutil.which("bash") or "/bin/bash"
        self._warn = warn
        make_undumpable()
        sweep_stale(PRIVATE_PREFIX)
        self._isolation = pid_namespace_prefix()
        self.notes = [
            "--sandbox none: commands run unconfined, with the file system and network of this machine"
        ]
        if self._isolation is None:
            self.notes.append(
                "no PID namespace on this host: a command can read the environment of "
                "your other processes (your shell's API keys included)"
            )

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        workdir = inside_root(self.root, cwd)
        if self.env.unverified_warning and self._warn is not None:
            self._warn(self.env.unverified_warning)
        private = scratch_dir(PRIVATE_PREFIX)
        try:
            (private / "home").mkdir()
            (private / "tmp").mkdir()
            reports = private / "tmp" / ".coder-reports"
            reports.mkdir()
            environment = sandbox_environment(
                os.environ,
                env,
                home=str(private / "home"),
                tmpdir=str(private / "tmp"),
                reports=str(reports),
            )
            prefix = list(self._isolation or ())
            result = run_limited(
                command,
                [*prefix, self._bash, "-c", command],
                workdir,
                environment,
                timeout_s,
                self.limits,
                reap_leftovers=self._isolation is None,
                growth_roots=[self.root, private],
            )
            return replace(result, reports=read_reports(reports))
        finally:
            shutil.rmtree(private, ignore_errors=True)
