"""Small real git repositories for tests, made on the fly."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=True,
    )
    return proc.stdout


def make_repo(path: Path, files: dict[str, str], message: str = "initial") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for rel, content in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
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
