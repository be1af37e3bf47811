"""Small real git repositories for tests, made on the fly."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test User",
    "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "Test User",
    "GIT_COMMITTER_EMAIL": "user@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
"""Git as a user runs it, but deaf to this machine's own configuration."""


def git(cwd: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None) -> str:
    """Git as the user would run it in their repository (not the harness's git)."""
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_repo(path: Path, files: Mapping[str, str] | None = None, message: str = "initial") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write_files(path, files or {"README.md": "hello\n"})
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return path


def snapshot(repo: Path) -> dict[str, Any]:
    """Everything a run must leave alone in the user's repository: HEAD, status, file bytes."""
    files = {}
    for p in sorted(repo.rglob("*")):
        rel = p.relative_to(repo)
        if rel.parts[0] in (".git", ".coder") or not p.is_file():
            continue
        files[str(rel)] = p.read_bytes()
    return {
        "head": git(repo, "rev-parse", "HEAD").strip(),
        "status": git(repo, "status", "--porcelain"),
        "files": files,
    }


def write_script(path: Path, turns: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"turns": turns}, indent=1), encoding="utf-8")
    return path
