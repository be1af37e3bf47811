"""A full disk ends a run in one line, with its run directory as complete as it can be.

A write that finds no space (`ENOSPC`, or `EDQUOT` past a quota) can come from anywhere: the
trace, a plan file, state.json, git writing an object or a proof tree under `$TMPDIR`. Each is
the same fact for the person: the disk is full, and where. It is said once, as the run's stop
message, never as a chain of tracebacks. So that the run's last records still fit, a run holds
a small reserve file in its run directory from the start and gives it back before it writes
its outputs; whatever still does not fit is left out, and the run says so.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
FULL_WORDS = ("No space left on device", "Disk quota exceeded")
"""How git and other programs say it in their messages."""
NO_ROOM_BYTES = 64 << 10
"""A file system with less than this free counts as full (a write of a few blocks fails)."""
RESERVE_NAME = ".coder-reserve"
RESERVE_BYTES = 1 << 20
"""Room kept for result.json, final.patch and the trace's last lines."""


def disk_full(exc: BaseException, places: Sequence[Path] = ()) -> str | None:
    """One line saying the disk is full and where, when `exc` (or what caused it) is that.
    Where: the file the error names, else the first of `places` whose file system has no room
    left."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in FULL_ERRNOS:
            return full_line(current.filename, places)
        if any(words in str(current) for words in FULL_WORDS):
            said = str(current).splitlines()[0][:200]
            return f"{full_line(None, places)} ({said})"
        current = current.__cause__ or current.__context__
    return None


def full_line(path: object, places: Sequence[Path] = ()) -> str:
    """`the disk is full: no space left on MOUNT (writing PATH)`, or with no path, the mount of
    the first place that has no room."""
    if isinstance(path, (str, bytes, os.PathLike)):
        file = Path(os.fsdecode(path)).absolute()
        return f"the disk is full: no space left on {mount_point(file)} (writing {file})"
    for place in places:
        if _no_room(place):
            return f"the disk is full: no space left on {mount_point(place)} (under {place})"
    return "the disk is full: no space left on device"


def _no_room(place: Path) -> bool:
    try:
        stats = os.statvfs(mount_point(place))
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < NO_ROOM_BYTES or stats.f_favail == 0


def mount_point(path: Path) -> Path:
    """The mount point of the file system that holds `path` (or would, were it made)."""
    where = path.absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    while not os.path.ismount(where) and where != where.parent:
        where = where.parent
    return where


@contextmanager
def unless_full() -> Iterator[None]:
    """The block's disk-full error swallowed (the run has said it already); others raised."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in FULL_ERRNOS:
            raise


class Reserve:
    """Room held in the run directory until the run writes its outputs."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / RESERVE_NAME
        try:
            with self.path.open("wb") as out:
                os.posix_fallocate(out.fileno(), 0, RESERVE_BYTES)
        except OSError:  # no room even for this: the outputs take their chances
            self.path.unlink(missing_ok=True)

    def release(self) -> None:
        self.path.unlink(missing_ok=True)
