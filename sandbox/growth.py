"""The worktree's growth during one command, bounded without walking it on every tick.

`RLIMIT_FSIZE` caps each file, not how many a command writes. The wait loop asks this watcher
a few times a second; the cheap question is the file system's free space. Only when that has
dropped by the bound since the command started (another process may be writing too) is the
worktree walked, summing what was written since the start (files modified after it, by
their allocated blocks); past the bound the command is killed. Symlinks are not followed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

TICK_S = 0.25


class GrowthWatch:
    def __init__(self, roots: Sequence[Path], bound: int) -> None:
        self.roots = [r for r in roots if r.is_dir()]
        self.bound = bound
        self.started = time.time()
        self._armed_at = _free(self.roots[0]) if self.roots else None
        self._next = 0.0

    def exceeded(self) -> bool:
        """Whether the command has written more than the bound into the roots so far
        (answered from the clock's last look when asked again within TICK_S)."""
        now = time.monotonic()
        if self._armed_at is None or now < self._next:
            return False
        self._next = now + TICK_S
        free = _free(self.roots[0])
        if free is None or self._armed_at - free < self.bound:
            return False
        if written_since(self.roots, self.started - 1.0) > self.bound:
            return True
        self._armed_at = free  # someone else filled the disk; look again after another bound
        return False


def written_since(roots: Sequence[Path], since: float) -> int:
    """Bytes allocated to files under `roots` modified after `since`."""
    total = 0
    for root in roots:
        stack = [str(root)]
        while stack:
            directory = stack.pop()
            try:
                entries = os.scandir(directory)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif info.st_mtime >= since:
                        total += info.st_blocks * 512
    return total


def _free(path: Path) -> int | None:
    try:
        stats = os.statvfs(path)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize
