"""Real git repositories in tmp_path for the sandbox tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from sandbox.workspace import Workspace

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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "README.md": "hello\n",
            "src/app.py": "def add(a, b):\n    return a - b\n",
            "src/util.py": "X = 1\n",
            "tests/test_app.py": "from src.app import add\n",
            "run.sh": "#!/bin/sh\necho hi\n",
            ".gitignore": "build/\n*.log\n",
        },
    )


@pytest.fixture
def workspace(repo: Path) -> Iterator[Workspace]:
    with Workspace.create(repo, "test-run") as ws:
        yield ws


@pytest.fixture
def git_in() -> Callable[..., str]:
    return run_git
