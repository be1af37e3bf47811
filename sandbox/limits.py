"""Resource limits for confined commands, applied before the command's first instruction.

Memory is an `RLIMIT_AS` per process. Processes are capped by a pids cgroup when the host lets
us create one (root, or a delegated cgroup): `RLIMIT_NPROC` does nothing for uid 0 and counts
every process the user owns, so it is only a fallback for unprivileged users. Whatever the
cap, a fork bomb still ends at its timeout: the runner kills the process group, the cgroup,
and under bwrap the PID namespace dies with its init.

Limits are applied by exec-ing through `prlimit` (and a one-line `sh` that joins the cgroup)
rather than by a Python `preexec_fn`: that keeps `subprocess` on its vfork path, which matters
when the parent is a large Python process, and keeps Python code out of the forked child.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sandbox.output import DEFAULT_OUTPUT_CAP

_CGROUP_V1 = Path("/sys/fs/cgroup/pids")
_CGROUP_V2 = Path("/sys/fs/cgroup")
_GROUP_NAME = "coder-sandbox"
_JOIN_CGROUP = '{ echo $$ >"$0"; } 2>/dev/null; exec "$@"'


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 4 << 30
    """Address space per process (RLIMIT_AS); allocating more fails inside the command."""
    max_processes: int = 512
    """Processes and threads one command may have at once (pids cgroup, else RLIMIT_NPROC)."""
    output_cap: int = DEFAULT_OUTPUT_CAP
    """Bytes of merged output kept (head and tail); the rest is counted, not stored."""
    tmp_bytes: int = 1 << 30
    """Size of the private /tmp (and a quarter of it for /dev/shm) under bwrap."""
    use_pids_cgroup: bool = True
    """Use a pids cgroup when the host offers one."""


class PidsCgroup:
    """A throwaway pids cgroup holding one command and everything it forks."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def procs_path(self) -> str:
        return str(self.path / "cgroup.procs")

    @classmethod
    def create(cls, max_processes: int) -> PidsCgroup | None:
        parent = _cgroup_parent()
        if parent is None:
            return None
        path = parent / uuid.uuid4().hex[:12]
        try:
            path.mkdir()
            (path / "pids.max").write_text(f"{max_processes}\n")
        except OSError:
            _rmdir_quietly(path)
            return None
        return cls(path)

    def pids(self) -> list[int]:
        try:
            text = (self.path / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(line) for line in text.split()]

    def kill_all(self) -> None:
        kill_file = self.path / "cgroup.kill"
        if kill_file.exists():
            try:
                kill_file.write_text("1\n")
                return
            except OSError:
                pass
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def remove(self, wait_s: float = 2.0) -> None:
        """rmdir once the last process is released (usually within a millisecond)."""
        deadline = time.monotonic() + wait_s
        pause = 0.0005
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return  # left for _sweep_leftovers on a later run
                if pause >= 0.004:
                    self.kill_all()
                time.sleep(pause)
                pause = min(pause * 2, 0.05)


def pids_cgroup_available() -> bool:
    """Whether commands get a hard process cap on this host (else only the timeout stops a
    fork bomb, plus RLIMIT_NPROC for unprivileged users)."""
    return _cgroup_parent() is not None


def spawn_plan(
    limits: Limits, cgroup: PidsCgroup | None
) -> tuple[list[str], Callable[[], None] | None]:
    """The argv prefix (and, without `prlimit`, a preexec_fn) that applies the limits."""
    nproc = _nproc_limit(limits.max_processes)
    prlimit = _which("prlimit")
    if prlimit is None:
        procs = cgroup.procs_path if cgroup else None
        return [], lambda: _limit_self(limits.memory_bytes, nproc, procs)
    prefix = ["/bin/sh", "-c", _JOIN_CGROUP, cgroup.procs_path] if cgroup else []
    prefix += [prlimit, f"--as={limits.memory_bytes}", "--core=0"]
    if nproc is not None:
        prefix.append(f"--nproc={nproc}")
    return [*prefix, "--"], None


def _limit_self(memory_bytes: int, nproc: int | None, cgroup_procs: str | None) -> None:
    """Runs in the forked child when `prlimit` is missing: only async-signal-safe-ish calls."""
    if cgroup_procs:
        try:
            fd = os.open(cgroup_procs, os.O_WRONLY)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
        except OSError:
            pass
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
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


@cache
def _cgroup_parent() -> Path | None:
    """Where per-command pids cgroups go, or None when the host does not let us make them."""
    candidates: list[tuple[Path, Path | None]] = [(_CGROUP_V1, None)]
    if "pids" in _read(_CGROUP_V2 / "cgroup.subtree_control").split():
        candidates.append((_CGROUP_V2, _CGROUP_V2 / _GROUP_NAME / "cgroup.subtree_control"))
    for base, subtree_control in candidates:
        if not (base / "cgroup.procs").exists():
            continue
        parent = base / _GROUP_NAME
        try:
            parent.mkdir(exist_ok=True)
            if subtree_control is not None:
                subtree_control.write_text("+pids\n")
            probe = parent / f"probe-{uuid.uuid4().hex[:8]}"
            probe.mkdir()
            usable = (probe / "pids.max").exists()
            probe.rmdir()
        except OSError:
            continue
        if usable:
            _sweep_leftovers(parent)
            return parent
    return None


def _sweep_leftovers(parent: Path, min_age_s: float = 60.0) -> None:
    """Remove empty cgroups a killed harness left; young ones may belong to a live command."""
    now = time.time()
    for child in parent.iterdir():
        try:
            if child.is_dir() and now - child.stat().st_mtime > min_age_s:
                child.rmdir()
        except OSError:
            pass


def _rmdir_quietly(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
