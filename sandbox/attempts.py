"""A rolled-back attempt, kept so a retry can take it up again instead of re-typing it.

Before a failed step is rolled back, its worktree is recorded as a commit (a temporary index,
so the real one is untouched) under `refs/coder/attempts/<run>/<step>`; the retry restores it,
whole or some of its files, byte for byte (binary files and deletions included).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.gitcli import git, git_line
from sandbox.nofollow import is_link_beneath, remove_beneath, symlink_beneath, write_beneath

REF_PREFIX = "refs/coder/attempts"


@dataclass(frozen=True)
class Attempt:
    step_id: str
    commit: str
    """The attempt's worktree as a commit whose parent is the step's checkpoint."""
    changes: dict[str, str]
    """path -> A (added) | M (modified) | D (deleted), against the checkpoint."""


def save_attempt(root: Path, checkpoint_sha: str, ref: str, step_id: str) -> Attempt | None:
    """Record the worktree's change since the checkpoint under `ref`; None when there is none."""
    index = root / git_line(["rev-parse", "--git-path", "index"], root)
    with tempfile.TemporaryDirectory(prefix="coder-attempt-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if index.is_file():
            shutil.copyfile(index, env["GIT_INDEX_FILE"])
        git(["add", "-A"], root, env=env)
        tree = git_line(["write-tree"], root, env=env)
    message = f"coder: rolled-back attempt of {step_id}".encode()
    commit = git_line(["commit-tree", tree, "-p", checkpoint_sha], root, stdin=message)
    raw = git(["diff", "--no-renames", "--name-status", "-z", checkpoint_sha, commit], root)
    parts = raw.decode("utf-8", "replace").split("\0")
    changes = {path: status[0] for status, path in zip(parts[::2], parts[1::2], strict=False)}
    if not changes:
        return None
    git(["update-ref", ref, commit], root)
    return Attempt(step_id, commit, changes)


def restore_files(root: Path, attempt: Attempt, paths: list[str]) -> None:
    """Write `paths` as the attempt left them (a path it deleted is deleted). The worktree is
    the model's: a link it made at a path, or at a parent, is replaced, never written
    through (`sandbox.nofollow`)."""
    for rel in paths:
        if attempt.changes[rel] == "D":
            if not is_link_beneath(root, rel.rsplit("/", 1)[0] if "/" in rel else ""):
                target = root / rel
                if target.is_symlink() or target.is_file():
                    remove_beneath(root, rel)
            continue
        mode = git_line(["ls-tree", "--format=%(objectmode)", attempt.commit, "--", rel], root)
        data = git(["cat-file", "blob", f"{attempt.commit}:{rel}"], root)
        if mode == "120000":
            symlink_beneath(root, rel, data.decode("utf-8", "replace"))
        else:
            write_beneath(root, rel, data, 0o755 if mode == "100755" else 0o644)
