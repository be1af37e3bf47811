"""Resource limits for confined commands, applied before the command's first instruction.

A command's total memory and process count are bounded by its own cgroup when the host lets
us make one (sandbox/cgroups.py); `RLIMIT_AS` per process is only the fallback where it does
not, and `RLIMIT_NPROC` the fallback for unprivileged users (it does nothing for uid 0 and
counts every process the user owns). Files are bounded by `RLIMIT_FSIZE` (a write past it
fails with EFBIG or SIGXFSZ), the worktree's growth by a watcher in the wait loop
(sandbox/growth.py). Whatever the cap, a fork bomb still ends at its timeout: the runner
kills the process group, the cgroup, and under bwrap the PID namespace dies with its init.

Limits are applied by exec-ing through `prlimit` (and a one-line `sh` that joins the cgroup)
rather than by a Python `preexec_fn`: that keeps `subprocess` on its vfork path, which matters
when the parent is a large Python process, and keeps Python code out of the forked child.
"""

from __future__ import annotations

import os
import resource
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sandbox.cgroups import CommandCgroup
from sandbox.output import DEFAULT_OUTPUT_CAP

_JOIN_CGROUP = (
    'while [ "$1" != -- ]; do { echo $$ >"$1"; } 2>/dev/null; shift; done; shift; exec "$@"'
)


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 4 << 30
    """Memory of the whole command (its cgroup), else address space per process (RLIMIT_AS)."""
    max_processes: int = 512
    """Processes and threads one command may have at once (pids cgroup, else RLIMIT_NPROC)."""
    output_cap: int = DEFAULT_OUTPUT_CAP
    """Bytes of merged output kept (head and tail); the rest is counted, not stored."""
    tmp_bytes: int = 1 << 30
    """Size of the private /tmp (and a quarter of it for /dev/shm) under bwrap."""
    file_bytes: int = 512 << 20
    """Largest file a command may write (RLIMIT_FSIZE); nothing larger is ever committed."""
    growth_bytes: int = 1 << 30
    """How much one command may grow the worktree before it is killed."""
    change_bytes: int = 256 << 20
    """What one step may commit, all its changed files' sizes together; past it the harness
    refuses the commit (sandbox/checkpoint.py). Per file, `file_bytes` holds."""
    use_cgroup: bool = True
    """Use a per-command cgroup when the host offers one."""


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """`4G`, `512MiB`, `1.5g`, `1048576` as bytes; ValueError with the accepted forms."""
    value = text.strip().lower().removesuffix("ib").removesuffix("b")
    unit = value[-1:] if value[-1:] in _UNITS and value[-1:] else ""
    number = value[: len(value) - len(unit)]
    try:
        size = int(float(number) * _UNITS[unit])
    except ValueError:
        raise ValueError(f"{text!r} is not a size; write it like 4G, 512M or 1048576") from None
    if size <= 0:
        raise ValueError(f"{text!r}: a size must be positive")
    return size


def spawn_plan(
    limits: Limits, cgroup: CommandCgroup | None
) -> tuple[list[str], Callable[[], None] | None]:
    """The argv prefix (and, without `prlimit`, a preexec_fn) that applies the limits."""
    controllers = cgroup.controllers if cgroup else set()
    nproc = None if "pids" in controllers else _nproc_limit(limits.max_processes)
    memory = None if "memory" in controllers else limits.memory_bytes
    procs = cgroup.procs_paths if cgroup else []
    prlimit = _which("prlimit")
    if prlimit is None:
        return [], lambda: _limit_self(memory, nproc, limits.file_bytes, procs)
    prefix = ["/bin/sh", "-c", _JOIN_CGROUP, "coder-join", *procs, "--"] if procs else []
    prefix += [prlimit, "--core=0", f"--fsize={limits.file_bytes}"]
    if memory is not None:
        prefix.append(f"--as={memory}")
    if nproc is not None:
        prefix.append(f"--nproc={nproc}")
    return [*prefix, "--"], None


def _limit_self(
    memory_bytes: int | None, nproc: int | None, file_bytes: int, cgroup_procs: list[str]
) -> None:
    """Runs in the forked child when `prlimit` is missing: only async-signal-safe-ish calls."""
    for procs in cgroup_procs:
        try:
            fd = os.open(procs, os.O_WRONLY)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
        except OSError:
            pass
    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    if nproc is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _nproc_limit(max_processes: int) -> int | None:
    """RLIMIT_NPROC counts all of the user's processes, so leave room for those running now."""
    if os.geteuid() == 0:
        return None  # not enforced for root; the cgroup and the timeout do the work
    uid = os.getuid()
    running = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                running += entry.stat().st_uid == uid
            except OSError:
                pass
    return running + max_processes


@cache
def _which(name: str) -> str | None:
    return shutil.which(name)
