"""A real small file system for tests of a full disk or a read-only place: a tmpfs of a few
kilobytes mounted over a directory of the test's own (the suite runs as root; elsewhere the
test is skipped, since nothing else makes a disk full for real)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(where: Path, size: str = "64k", *, read_only: bool = False) -> Iterator[Path]:
    """`where` (made if missing) with a fresh tmpfs of `size` over it, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size},mode=0755" + (",ro" if read_only else "")
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(where: Path) -> None:
    """Use up every byte left on the file system that holds `where`."""
    fd = os.open(where / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        block = b"\0" * 4096
        while True:
            try:
                os.write(fd, block)
            except OSError:
                break
        for size in (512, 64, 1):  # the last partial block
            try:
                while True:
                    os.write(fd, block[:size])
            except OSError:
                continue
    finally:
        os.close(fd)
