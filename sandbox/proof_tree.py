"""A throwaway tree of one commit with some files laid over it, for a proof that runs beside
the run's worktree and never touches it.

A test proven to fail before a step must fail on the code as it was at the step's checkpoint,
with the step's own version of its test files: a detached `git worktree` at the checkpoint
commit, in a temporary directory, with those files written over it. Confined commands see it
at the checkout's path, as they see the run's worktree (`sandbox.repo_env`), so an editable
install or an absolute path resolves to this tree's code, not the fixed one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from sandbox.acl import NOBODY_UID, grant_tree
from sandbox.gitcli import git

PREFIX = "coder-proof-"


@contextmanager
def tree_at(repo: Path, commit: str, overlay: Mapping[str, bytes | None]) -> Iterator[Path]:
    """A detached worktree of `repo` at `commit`, with `overlay` (path -> bytes, or None to
    delete) written over it; removed on exit, whatever happened. `repo` is any worktree of
    the repository (the run's own): the new tree shares its objects, not its index or HEAD."""
    holder = Path(tempfile.mkdtemp(prefix=PREFIX))
    tree = holder / "tree"
    added = False
    try:
        tree.mkdir()
        if os.geteuid() == 0:
            os.chmod(holder, 0o711)
            grant_tree(tree, NOBODY_UID)  # confined commands run as nobody under a root harness
        git(["worktree", "add", "-q", "--detach", str(tree), commit], repo)
        added = True
        for rel, data in overlay.items():
            target = tree / rel
            if data is None:
                target.unlink(missing_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        yield tree
    finally:
        if added:
            git(["worktree", "remove", "--force", "--force", str(tree)], repo, check=False)
        shutil.rmtree(holder, ignore_errors=True)
        if added:
            git(["worktree", "prune"], repo, check=False)
