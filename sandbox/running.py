"""One confined command under its limits, as a `CommandResult` (shared by both modes).

The limits are applied by the argv prefix from sandbox/limits.py (cgroup join, prlimit);
the process is run by sandbox/process.py; what bound it hit, if any, is read back from the
cgroup's counters, the growth watcher and the file-size signal, and said in words
(`CommandResult.bound_message`) so the model knows why its command died.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.cgroups import CommandCgroup
from sandbox.growth import GrowthWatch, Watches
from sandbox.limits import Limits, spawn_plan
from sandbox.process import run_process

_REAPER = str(Path(__file__).with_name("reaper.py"))
_FILE_SIZE_SIGNS = ("File size limit exceeded", "File too large")
BOUNDS = ("memory", "pids", "file_size", "growth", "dependency_growth")


@dataclass(frozen=True)
class CommandResult:
    command: str
    exit_code: int  # 124 on timeout, 128+N when killed by signal N
    duration_s: float
    output: str  # stdout and stderr merged in the order written, capped (head and tail)
    timed_out: bool = False
    killed: bool = False  # the harness SIGKILLed the command (its timeout, or a bound).
    # What a command leaves running dies as the command exits, in both modes and without
    # setting this: the PID namespace under bwrap and in none mode where the host allows
    # one; else the process group, plus the cgroup or sandbox/reaper.py for leftovers
    # that called setsid().
    dropped_bytes: int = 0
    bound: str | None = None  # one of BOUNDS: which bound it hit
    bound_limit: int = 0  # that bound's value (bytes, or processes)
    reports: dict[str, bytes] = field(default_factory=dict)
    """Files the command left in `$CODER_REPORTS` (a directory in its private temporary
    directory), by name: a runner's structured report (a JUnit XML file), read back after
    the command, since the private temporary directory itself is thrown away."""

    @property
    def bound_message(self) -> str:
        """The bound the command hit, in words for the model; empty when none."""
        size = _size(self.bound_limit)
        return {
            "memory": f"it used more than its memory bound ({size}, all its processes "
            "together) and the kernel killed it",
            "pids": f"it reached its bound of {self.bound_limit} processes and threads, so "
            "further forks failed",
            "file_size": f"a file it wrote reached the file size bound ({size}); writing "
            "past it failed",
            "growth": f"it wrote more than {size} into the worktree and was killed",
            "dependency_growth": f"it wrote more than {size} into the throwaway copy of the "
            "dependency directories (node_modules/, .venv/: every write there is thrown away) "
            "and was killed",
        }.get(self.bound or "", "")


def run_limited(
    command: str,
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    limits: Limits,
    *,
    reap_leftovers: bool = False,
    growth_roots: Sequence[Path] = (),
    dependency_roots: Sequence[Path] = (),
    pass_fds: Sequence[int] = (),
) -> CommandResult:
    """`reap_leftovers`: nothing else kills what the command leaves running; the cgroup
    does when there is one, else the command runs under sandbox/reaper.py (a Python
    start-up, tens of milliseconds, only paid on hosts without the cgroup).
    `dependency_roots`: where the command's writes into the dependency directories land
    (the overlays' upper layers), bounded like the worktree's growth."""
    cgroup = (
        CommandCgroup.create(max_processes=limits.max_processes, memory_bytes=limits.memory_bytes)
        if limits.use_cgroup
        else None
    )
    prefix, preexec = spawn_plan(limits, cgroup)
    sweeper = reap_leftovers and (cgroup is None or "pids" not in cgroup.controllers)
    if sweeper:
        argv = [sys.executable, "-I", "-S", _REAPER, *argv]
    watched = {
        name: GrowthWatch(list(roots), limits.growth_bytes)
        for name, roots in (("growth", growth_roots), ("dependency_growth", dependency_roots))
        if roots
    }
    watch = Watches(watched) if watched else None
    try:
        outcome = run_process(
            [*prefix, *argv],
            cwd=cwd,
            env=env,
            timeout_s=timeout_s,
            output_cap=limits.output_cap,
            preexec_fn=preexec,
            cgroup=cgroup,
            sweeper=sweeper,
            growth=watch,
            pass_fds=pass_fds,
        )
    finally:
        if watch is not None:
            watch.close()
    bound = watch.which() if watch is not None and outcome.outgrown else None
    bound = bound or outcome.cgroup_bound
    if bound is None and (
        outcome.exit_code == 128 + signal.SIGXFSZ
        or any(sign in outcome.output for sign in _FILE_SIZE_SIGNS)
    ):
        bound = "file_size"
    limit = {
        "memory": limits.memory_bytes,
        "pids": limits.max_processes,
        "file_size": limits.file_bytes,
        "growth": limits.growth_bytes,
        "dependency_growth": limits.growth_bytes,
    }.get(bound or "", 0)
    return CommandResult(
        command=command,
        exit_code=outcome.exit_code,
        duration_s=outcome.duration_s,
        output=outcome.output,
        timed_out=outcome.timed_out,
        killed=outcome.killed,
        dropped_bytes=outcome.dropped_bytes,
        bound=bound,
        bound_limit=limit,
    )


REPORTS_ENV = "CODER_REPORTS"
REPORT_BYTES = 256 << 20
"""A report larger than this is not read back (a runaway writer, not a runner's report)."""


def read_reports(directory: Path) -> dict[str, bytes]:
    """The regular files a command left in its reports directory, by name."""
    found: dict[str, bytes] = {}
    try:
        entries = list(directory.iterdir())
    except OSError:
        return found
    for entry in entries:
        try:
            if entry.is_file() and entry.stat().st_size <= REPORT_BYTES:
                found[entry.name] = entry.read_bytes()
        except OSError:
            continue
    return found


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def inside_root(root: Path, cwd: Path) -> Path:
    """The working directory, which must be the root or below it (a caller's bug otherwise)."""
    candidate = Path(os.path.realpath(root / cwd))
    if candidate != root and not candidate.is_relative_to(root):
        raise ValueError(f"cwd {cwd} is outside the sandbox root {root}")
    return candidate
