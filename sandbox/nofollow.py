"""Reading and writing files in a tree that a repository or a model can shape, never through a
link.

The harness runs as the user (root, often) outside any sandbox. A tree it does not wholly own
(the run's worktree, a proof's tree at a checkpoint, a bench instance's checkout) can hold a
symlink the repository committed or a confined command made; `Path.write_bytes` or
`read_bytes` there would follow it to wherever it points, with the harness's rights. Every
path here is walked from its root one component at a time with `O_NOFOLLOW`: a read through a
link is refused, and a write replaces the link (and any link among its parent directories) with
a real file or directory, which is what laying a file into a throwaway tree means.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from summarizers.repofiles import read_beneath

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

__all__ = [
    "LinkRefused",
    "is_link_beneath",
    "read_beneath",
    "remove_beneath",
    "symlink_beneath",
    "write_beneath",
]


class LinkRefused(OSError):
    """A path that goes through a symlink where the harness never follows one."""


def write_beneath(root: Path, rel: str, data: bytes, mode: int = 0o644) -> None:
    """Write `data` at `root/rel` as a regular file: a symlink (or any non-directory) among its
    parents is replaced by a directory, and whatever is at the path itself is replaced, so the
    bytes land inside `root` and nowhere else."""
    *parents, name = _parts(rel)
    fd = _open_dirs(root, parents, create=True)
    try:
        _remove_entry(fd, name)
        out = os.open(
            name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            mode,
            dir_fd=fd,
        )
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            os.fchmod(out, mode)
        finally:
            os.close(out)
    finally:
        os.close(fd)


def symlink_beneath(root: Path, rel: str, target: str) -> None:
    """Make `root/rel` a symlink to `target` (its text, never resolved here), its parents real
    directories inside `root`."""
    *parents, name = _parts(rel)
    fd = _open_dirs(root, parents, create=True)
    try:
        _remove_entry(fd, name)
        os.symlink(target, name, dir_fd=fd)
    finally:
        os.close(fd)


def remove_beneath(root: Path, rel: str) -> None:
    """Remove the entry at `root/rel` (a link is removed, never followed); nothing when a
    parent is missing or is not a real directory (then nothing is there inside `root`)."""
    *parents, name = _parts(rel)
    try:
        fd = _open_dirs(root, parents, create=False)
    except (FileNotFoundError, LinkRefused, NotADirectoryError):
        return
    try:
        _remove_entry(fd, name)
    finally:
        os.close(fd)


def is_link_beneath(root: Path, rel: str) -> bool:
    """Whether `root/rel` or one of its parents inside `root` is a symlink ("" names `root`)."""
    path = root
    for name in (p for p in rel.split("/") if p not in ("", ".")):
        path = path / name
        if path.is_symlink():
            return True
        if not path.exists():
            return False
    return False


def _parts(rel: str) -> list[str]:
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"not a path inside the tree: {rel!r}")
    return parts


def _open_dirs(root: Path, parents: list[str], *, create: bool) -> int:
    """A descriptor of `root/parents...`, every component a real directory (made, or put in
    place of a link or a file, when `create`)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in parents:
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o755, dir_fd=fd)
            else:
                if not stat.S_ISDIR(info.st_mode):
                    if not create:
                        raise LinkRefused(errno.ELOOP, "a link or a file on the way", name)
                    os.unlink(name, dir_fd=fd)
                    os.mkdir(name, 0o755, dir_fd=fd)
            next_fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def _remove_entry(dir_fd: int, name: str) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        _remove_tree(dir_fd, name)
    else:
        os.unlink(name, dir_fd=dir_fd)


def _remove_tree(dir_fd: int, name: str) -> None:
    fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        for entry in os.listdir(fd):
            _remove_entry(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)
