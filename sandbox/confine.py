"""Confined shell commands: the `Sandbox` protocol and its two modes.

`bwrap` confines file system, network and processes; `none` keeps only what needs no
privileges (limits, a scrubbed environment, a private HOME, the timeout, and a subreaper that
kills what the command leaves running), for hosts where bubblewrap cannot start. Both return a `CommandResult` and never raise for anything the
command does; the conformance tests in tests/sandbox hold both to the same behaviour.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from sandbox.bwrap import (
    PRIVATE_HOME,
    PRIVATE_TMP,
    bwrap_argv,
    config_files,
    credential_masks,
    git_dirs,
    user_tree,
)
from sandbox.environment import sandbox_environment
from sandbox.gitconfig import write_scrubbed
from sandbox.limits import Limits, PidsCgroup, spawn_plan
from sandbox.process import run_process

SANDBOX_MODES = ("auto", "bwrap", "none")
_REAPER = str(Path(__file__).with_name("reaper.py"))


class SandboxUnavailable(Exception):
    """The requested sandbox cannot run on this host; the message is one line for a person."""


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int  # 124 on timeout, 128+N when killed by signal N
    duration_s: float
    output: str  # stdout and stderr merged in the order written, capped (head and tail)
    timed_out: bool = False
    killed: bool = False  # the harness SIGKILLed the command before it ended (its timeout).
    # What a command leaves running dies as the command exits, in both modes and without
    # setting this: the PID namespace under bwrap; in none mode the process group, plus the
    # pids cgroup or else sandbox/reaper.py for leftovers that called setsid().
    dropped_bytes: int = 0


class Sandbox(Protocol):
    name: str

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult: ...


class BwrapSandbox:
    """Commands under bubblewrap with `root` (the worktree) as the only writable host path."""

    name = "bwrap"

    def __init__(self, root: Path, *, bwrap: str = "bwrap", limits: Limits | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.limits = limits or Limits()
        self._bwrap = shutil.which(bwrap) or bwrap
        self._bash = shutil.which("bash") or "/bin/bash"
        self._read_only = git_dirs(self.root)
        self._masked = credential_masks(Path.home(), [self.root, *self._read_only])
        tree = user_tree(self.root, self._read_only)
        self._hidden = [tree] if tree is not None else []

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        workdir = _inside(self.root, cwd)
        scrubbed = Path(tempfile.mkdtemp(prefix="coder-gitconfig-"))
        try:
            replaced: list[tuple[Path, Path]] = []
            for index, config in enumerate(config_files(self._read_only)):
                copy = scrubbed / str(index)
                write_scrubbed(config, copy)  # per command: the config may have changed
                replaced.append((copy, config))
            argv = bwrap_argv(
                self._bwrap,
                root=self.root,
                cwd=workdir,
                limits=self.limits,
                read_only=self._read_only,
                masked=self._masked,
                hidden=self._hidden,
                replaced=replaced,
            )
            environment = sandbox_environment(
                os.environ, env, home=PRIVATE_HOME, tmpdir=PRIVATE_TMP
            )
            return _run_limited(
                command,
                [*argv, "--", self._bash, "-c", command],
                workdir,
                environment,
                timeout_s,
                self.limits,
            )
        finally:
            shutil.rmtree(scrubbed, ignore_errors=True)


class UnconfinedSandbox:
    """Commands on the host, with limits, a scrubbed environment and a private HOME only."""

    name = "none"

    def __init__(self, root: Path, *, limits: Limits | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.limits = limits or Limits()
        self._bash = shutil.which("bash") or "/bin/bash"

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        workdir = _inside(self.root, cwd)
        private = Path(tempfile.mkdtemp(prefix="coder-cmd-"))
        try:
            (private / "home").mkdir()
            (private / "tmp").mkdir()
            environment = sandbox_environment(
                os.environ, env, home=str(private / "home"), tmpdir=str(private / "tmp")
            )
            return _run_limited(
                command,
                [self._bash, "-c", command],
                workdir,
                environment,
                timeout_s,
                self.limits,
                reap_leftovers=True,
            )
        finally:
            shutil.rmtree(private, ignore_errors=True)


def make_sandbox(
    mode: str,
    root: Path,
    warn: Callable[[str], None] | None = None,
    *,
    limits: Limits | None = None,
    bwrap: str = "bwrap",
) -> Sandbox:
    """The sandbox for `--sandbox MODE`; `bwrap` refuses with SandboxUnavailable if it can't."""
    if mode not in SANDBOX_MODES:
        raise ValueError(f"unknown sandbox mode {mode!r}; known: {', '.join(SANDBOX_MODES)}")
    if mode == "none":
        return UnconfinedSandbox(root, limits=limits)
    reason = bwrap_unavailable_reason(bwrap)
    if reason is None:
        return BwrapSandbox(root, bwrap=bwrap, limits=limits)
    if mode == "bwrap":
        raise SandboxUnavailable(f"--sandbox bwrap: bubblewrap cannot start here: {reason}")
    if warn is not None:
        warn(f"bubblewrap cannot start ({reason}); commands run unconfined (--sandbox none)")
    return UnconfinedSandbox(root, limits=limits)


@cache
def bwrap_unavailable_reason(bwrap: str = "bwrap") -> str | None:
    """None when bubblewrap starts with the flags we use; else why not, in one line."""
    path = shutil.which(bwrap)
    if path is None:
        return f"{bwrap} not found on PATH (Debian/Ubuntu: apt install bubblewrap)"
    probe_root = Path(tempfile.gettempdir()).resolve()
    argv = bwrap_argv(path, root=probe_root, cwd=probe_root, limits=Limits())
    try:
        done = subprocess.run(
            [*argv, "--", "true"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{bwrap} did not run: {error}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return lines[0] if lines else f"{bwrap} exited with status {done.returncode}"


def _run_limited(
    command: str,
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    limits: Limits,
    *,
    reap_leftovers: bool = False,
) -> CommandResult:
    """`reap_leftovers`: nothing outside bwrap kills what the command leaves running; the
    pids cgroup does when there is one, else the command runs under sandbox/reaper.py (a
    Python start-up, tens of milliseconds, only paid on hosts without the cgroup)."""
    cgroup = PidsCgroup.create(limits.max_processes) if limits.use_pids_cgroup else None
    prefix, preexec = spawn_plan(limits, cgroup)
    sweeper = reap_leftovers and cgroup is None
    if sweeper:
        argv = [sys.executable, "-I", "-S", _REAPER, *argv]
    outcome = run_process(
        [*prefix, *argv],
        cwd=cwd,
        env=env,
        timeout_s=timeout_s,
        output_cap=limits.output_cap,
        preexec_fn=preexec,
        cgroup=cgroup,
        sweeper=sweeper,
    )
    return CommandResult(
        command=command,
        exit_code=outcome.exit_code,
        duration_s=outcome.duration_s,
        output=outcome.output,
        timed_out=outcome.timed_out,
        killed=outcome.killed,
        dropped_bytes=outcome.dropped_bytes,
    )


def _inside(root: Path, cwd: Path) -> Path:
    """The working directory, which must be the root or below it (a caller's bug otherwise)."""
    candidate = Path(os.path.realpath(root / cwd))
    if candidate != root and not candidate.is_relative_to(root):
        raise ValueError(f"cwd {cwd} is outside the sandbox root {root}")
    return candidate
