"""Real git repositories for the sandbox tests: git as the user runs it, and snapshots of
every file's mode and bytes (what a rollback or a killed run must leave exactly as it was)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test User",
    "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "Test User",
    "GIT_COMMITTER_EMAIL": "user@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(cwd: Path, *args: str, check: bool = True) -> str:
    """Git as the user would run it in their repository (not the harness's git)."""
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **_GIT_ENV},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_repo(root: Path, files: Mapping[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    run_git(root, "init", "-q", "-b", "main")
    write_files(root, files or {"README.md": "hello\n"})
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "initial")
    return root


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
