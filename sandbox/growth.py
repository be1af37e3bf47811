"""The worktree's growth during one command, measured by what the worktree holds.

`RLIMIT_FSIZE` caps each file, not how many a command writes. Growth is the blocks allocated
to everything under the roots now (each inode once, directories included) minus what they
held when the command started: not files' mtimes (a command can back-date them) and not the
file system's free space (another process freeing space would hide the growth). Deleting
files it did not write lets a command write as much again; that is still no more than the
bound on the disk.

A walk of a large tree takes time, so a thread does it beside the command: first the
baseline, then again and again, each walk at least TICK_S and WALK_SPACING walks' durations
after the last, so the walks take at most about 1/WALK_SPACING of one core. The wait loop
asks `exceeded()` every TICK_S; past the bound the command is killed. Limits: what the
command writes while the baseline walk runs may count in the baseline (as much as it can write
in that walk's duration), and between two walks it can write past the bound until the next
one. Symlinks are not followed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

TICK_S = 0.25
WALK_SPACING = 5.0


class Watch(Protocol):
    """What the wait loop asks every TICK_S (sandbox/process.py)."""

    def exceeded(self) -> bool: ...


class GrowthWatch:
    def __init__(self, roots: Sequence[Path], bound: int) -> None:
        self.roots = [r for r in roots if r.is_dir()]
        self.bound = bound
        self.grown = 0  # bytes, as of the last walk
        self._over = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="growth-watch", daemon=True)
        if self.roots:
            self._thread.start()

    def exceeded(self) -> bool:
        """Whether the roots hold more than the bound over their start, as of the last walk."""
        return self._over

    def close(self) -> None:
        """The command ended: stop walking (a walk under way stops at its next directory)."""
        self._stop.set()

    def _watch(self) -> None:
        start = held(self.roots, self._stop)
        while start is not None:
            began = time.monotonic()
            now = held(self.roots, self._stop)
            if now is None:
                return
            self.grown = now - start
            if self.grown > self.bound:
                self._over = True
                return
            spacing = max(TICK_S, WALK_SPACING * (time.monotonic() - began))
            if self._stop.wait(spacing):
                return


class Watches:
    """Several growth watches asked as one, each bounding its own roots: the worktree's, and
    the throwaway copies of the dependency directories a command writes (sandbox/overlay.py),
    which land on the host's disk as surely as the worktree does."""

    def __init__(self, watches: dict[str, GrowthWatch]) -> None:
        self.watches = watches

    def exceeded(self) -> bool:
        return self.which() is not None

    def which(self) -> str | None:
        """The name of the first watch past its bound, as of its last walk."""
        return next((name for name, watch in self.watches.items() if watch.exceeded()), None)

    def close(self) -> None:
        for watch in self.watches.values():
            watch.close()


def held(roots: Sequence[Path], stop: threading.Event | None = None) -> int | None:
    """Bytes allocated to the files and directories under `roots`, each inode counted once;
    None when `stop` was set during the walk."""
    total = 0
    seen: set[tuple[int, int]] = set()
    for root in roots:
        stack = [str(root)]
        while stack:
            if stop is not None and stop.is_set():
                return None
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
                    elif info.st_nlink > 1:
                        if (info.st_dev, info.st_ino) in seen:
                            continue
                        seen.add((info.st_dev, info.st_ino))
                    total += info.st_blocks * 512
    return total
