"""Fixtures for the sandbox tests: a small real repository and a workspace on it."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.workspace import Workspace
from tests.sandbox.gitrepos import make_repo


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
def visible_base() -> Iterator[Path]:
    """A directory outside /tmp (which the sandbox replaces by a private one), so what a
    command could see of it is really the host's; traversable, as a user's projects are."""
    base = Path(tempfile.mkdtemp(prefix="coder-sandbox-test-", dir="/var/tmp"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)
