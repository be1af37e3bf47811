"""One throwaway cgroup per command, over pids and memory: the command's total bounds.

`RLIMIT_AS` is per process (three processes of one command held 6 GB under a 4 GB limit) and
`RLIMIT_NPROC` does nothing for root, so the real bounds are a cgroup the command joins
before its first instruction: `pids.max` and a memory limit over everything it forks. On
cgroup v1 that is one group in each controller's hierarchy, on v2 one group with both.
Which bound a command hit is read back from the kernel's counters (`oom_kill`, pids
`max` events) so the model can be told in words.

Groups left behind by a harness that was SIGKILLed are removed by the next one that looks
for its parents (empty and over a minute old: a young one may be a live command's).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_ROOT = Path("/sys/fs/cgroup")
_GROUP_NAME = "coder-sandbox"


@dataclass(frozen=True)
class _Parent:
    path: Path
    controllers: tuple[str, ...]  # of "pids", "memory"


class CommandCgroup:
    """The groups (one per v1 hierarchy, or one v2 group) holding one command."""

    def __init__(self, groups: list[tuple[Path, tuple[str, ...]]]) -> None:
        self.groups = groups

    @property
    def procs_paths(self) -> list[str]:
        return [str(path / "cgroup.procs") for path, _ in self.groups]

    @property
    def controllers(self) -> set[str]:
        return {c for _, controllers in self.groups for c in controllers}

    @classmethod
    def create(cls, *, max_processes: int, memory_bytes: int | None) -> CommandCgroup | None:
        parents = cgroup_parents()
        if not parents:
            return None
        name = uuid.uuid4().hex[:12]
        groups: list[tuple[Path, tuple[str, ...]]] = []
        try:
            for parent in parents:
                path = parent.path / name
                path.mkdir()
                groups.append((path, parent.controllers))
                if "pids" in parent.controllers:
                    (path / "pids.max").write_text(f"{max_processes}\n")
                if "memory" in parent.controllers and memory_bytes is not None:
                    _limit_memory(path, memory_bytes)
        except OSError:
            cls(groups).remove(wait_s=0)
            return None
        return cls(groups)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path, _ in self.groups:
            try:
                found.update(int(line) for line in (path / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return sorted(found)

    def bound_hit(self) -> str | None:
        """ "memory" when the kernel killed a process for the memory limit, "pids" when a
        fork failed at pids.max; None otherwise."""
        for path, controllers in self.groups:
            if "memory" in controllers:
                counters = _counters(path / "memory.events") or _counters(
                    path / "memory.oom_control"
                )
                if counters.get("oom_kill", 0) > 0:
                    return "memory"
        for path, controllers in self.groups:
            if "pids" in controllers and _counters(path / "pids.events").get("max", 0) > 0:
                return "pids"
        return None

    def kill_all(self) -> None:
        for path, _ in self.groups:
            kill_file = path / "cgroup.kill"
            if kill_file.exists():
                try:
                    kill_file.write_text("1\n")
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
        pending = [path for path, _ in self.groups]
        while pending:
            for path in list(pending):
                try:
                    path.rmdir()
                    pending.remove(path)
                except FileNotFoundError:
                    pending.remove(path)
                except OSError:
                    pass
            if not pending or time.monotonic() >= deadline:
                return  # what is left goes in a later run's sweep
            if pause >= 0.004:
                self.kill_all()
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def cgroups_available() -> set[str]:
    """The controllers commands are bounded by on this host (empty: only the timeout and
    rlimits)."""
    return {c for parent in cgroup_parents() for c in parent.controllers}


@cache
def cgroup_parents() -> tuple[_Parent, ...]:
    """Where per-command groups go; probed once per process, leftovers swept then."""
    v1: list[tuple[Path, tuple[str, ...]]] = [
        (_ROOT / c, (c,)) for c in ("pids", "memory") if (_ROOT / c / "cgroup.procs").exists()
    ]
    candidates: list[tuple[Path, tuple[str, ...]]]
    if v1:
        candidates = v1
    else:
        enabled = _read(_ROOT / "cgroup.subtree_control").split()
        wanted = tuple(c for c in ("pids", "memory") if c in enabled)
        candidates = [(_ROOT, wanted)] if wanted and (_ROOT / "cgroup.procs").exists() else []
    parents: list[_Parent] = []
    for base, controllers in candidates:
        parent = _usable_parent(base, controllers, v2=not v1)
        if parent is not None:
            _sweep_leftovers(parent.path)
            parents.append(parent)
    return tuple(parents)


def _usable_parent(base: Path, controllers: tuple[str, ...], *, v2: bool) -> _Parent | None:
    parent = base / _GROUP_NAME
    try:
        parent.mkdir(exist_ok=True)
        if v2:
            (parent / "cgroup.subtree_control").write_text(
                " ".join(f"+{c}" for c in controllers) + "\n"
            )
        probe = parent / f"probe-{uuid.uuid4().hex[:8]}"
        probe.mkdir()
        try:
            files = {"pids": "pids.max", "memory": "memory.max" if v2 else "memory.limit_in_bytes"}
            usable = tuple(c for c in controllers if (probe / files[c]).exists())
        finally:
            probe.rmdir()
    except OSError:
        return None
    return _Parent(parent, usable) if usable else None


def _limit_memory(path: Path, memory_bytes: int) -> None:
    v2 = path / "memory.max"
    if v2.exists():
        v2.write_text(f"{memory_bytes}\n")
        swap = path / "memory.swap.max"
        if swap.exists():
            swap.write_text("0\n")
        return
    (path / "memory.limit_in_bytes").write_text(f"{memory_bytes}\n")
    memsw = path / "memory.memsw.limit_in_bytes"  # memory plus swap: no swapping past it
    if memsw.exists():
        try:
            memsw.write_text(f"{memory_bytes}\n")
        except OSError:
            pass


def _counters(path: Path) -> dict[str, int]:
    counters: dict[str, int] = {}
    for line in _read(path).splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            counters[key] = int(value)
    return counters


def _sweep_leftovers(parent: Path, min_age_s: float = 60.0) -> None:
    """Remove empty groups a killed harness left; young ones may belong to a live command."""
    now = time.time()
    try:
        children = list(parent.iterdir())
    except OSError:
        return
    for child in children:
        try:
            if child.is_dir() and now - child.stat().st_mtime > min_age_s:
                child.rmdir()
        except OSError:
            pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
