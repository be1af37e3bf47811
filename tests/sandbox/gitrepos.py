"""Real git repositories for the sandbox tests: git as the user runs it, and snapshots of
every file's mode and bytes (what a rollback or a killed run must leave exactly as it was)."""

from __future__ import annotations

import os
from pathlib import Path

from gitrepo import git as run_git
from gitrepo import make_repo, write_files

__all__ = ["make_repo", "run_git", "snapshot", "write_files"]


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    """Mode and content of every file and link under root, .git excluded."""
    state: dict[str, tuple[int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                state[rel] = (0o120000, os.readlink(full).encode())
            else:
                state[rel] = (full.stat().st_mode, full.read_bytes())
    return state
