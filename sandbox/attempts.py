"""A rolled-back attempt, kept so a retry can take it up again instead of re-typing it.

Before a failed step is rolled back, its worktree is recorded as a commit whose parent is the
step's checkpoint, in a throwaway object directory the run owns (`store`, beside the run's
worktree: `sandbox.workspace.attempts_dir`), never in the repository's object store or refs:
git reads the repository's objects through GIT_ALTERNATE_OBJECT_DIRECTORIES and writes only
into the store (GIT_OBJECT_DIRECTORY), with a temporary index, so nothing of the attempt can
be pushed, packed, listed by `git cat-file --batch-all-objects`, or read by a later run. The
store holds one attempt (saving another replaces it) and goes with the run's worktree.

What is kept is bounded like a commit: a file the caller names (one holding a secret the
harness holds) and a file over the file size bound are left out, each with the reason; a
change over the bound one step may commit is not kept at all. The retry restores the attempt,
whole or some of its files, byte for byte (binary files and deletions included).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.changes import scan_worktree
from sandbox.gitcli import GitError, git, git_line, join_z
from sandbox.nofollow import is_link_beneath, remove_beneath, symlink_beneath, write_beneath


@dataclass(frozen=True)
class Attempt:
    step_id: str
    commit: str
    """The attempt's worktree as a commit whose parent is the step's checkpoint (in `store`)."""
    changes: dict[str, str]
    """path -> A (added) | M (modified) | D (deleted), against the checkpoint: what was kept."""
    store: Path
    """The object directory holding the attempt's new objects."""
    not_kept: dict[str, str] = field(default_factory=dict)
    """path -> why it was left out (a secret, the file size bound)."""
    refused: str = ""
    """Why nothing of the attempt was kept (over the change bound); empty when it was."""


def save_attempt(
    root: Path,
    checkpoint_sha: str,
    step_id: str,
    store: Path,
    *,
    left_out: Mapping[str, str] | None = None,
    max_file_bytes: int | None = None,
    max_change_bytes: int | None = None,
) -> Attempt | None:
    """Record the worktree's change since the checkpoint in `store` (the attempt kept there
    before goes); None when there is no change. `left_out`: path -> why it must not be kept."""
    discard_attempt(store)
    scan = scan_worktree(root, checkpoint_sha, classify=False)
    paths = scan.touched()
    if not paths:
        return None
    not_kept = {p: why for p, why in (left_out or {}).items() if p in paths}
    sizes = {p: size for p in paths if p not in not_kept and (size := _file_size(root, p)) > 0}
    if max_file_bytes is not None:
        for rel, size in sizes.items():
            if size > max_file_bytes:
                not_kept[rel] = f"{size} bytes, over the {max_file_bytes} byte file size bound"
    total = sum(size for rel, size in sizes.items() if rel not in not_kept)
    if max_change_bytes is not None and total > max_change_bytes:
        refused = (
            f"the change was {total} bytes, over the bound of {max_change_bytes} bytes one step "
            "may commit"
        )
        return Attempt(step_id, checkpoint_sha, {}, store, not_kept, refused)
    kept = [p for p in paths if p not in not_kept]
    if not kept:
        return Attempt(step_id, checkpoint_sha, {}, store, not_kept)
    try:
        commit, changes = _record(root, checkpoint_sha, step_id, store, kept)
    except GitError as error:  # say, a path git finds beyond a link the step made
        discard_attempt(store)
        return Attempt(
            step_id, checkpoint_sha, {}, store, not_kept, f"git could not record it: {error}"
        )
    return Attempt(step_id, commit, changes, store, not_kept)


def _record(
    root: Path, checkpoint_sha: str, step_id: str, store: Path, kept: list[str]
) -> tuple[str, dict[str, str]]:
    """`kept` as they are in the worktree, committed over the checkpoint in `store`."""
    store.mkdir(parents=True, mode=0o700)
    env = _store_env(root, store)
    index = root / git_line(["rev-parse", "--git-path", "index"], root)
    with tempfile.TemporaryDirectory(prefix="coder-attempt-") as tmp:
        env["GIT_INDEX_FILE"] = str(Path(tmp) / "index")
        if index.is_file():
            shutil.copyfile(index, env["GIT_INDEX_FILE"])
        add = ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"]
        git(add, root, env=env, stdin=join_z(kept))
        tree = git_line(["write-tree"], root, env=env)
        message = f"coder: rolled-back attempt of {step_id}".encode()
        commit = git_line(["commit-tree", tree, "-p", checkpoint_sha], root, env=env, stdin=message)
    raw = git(
        ["diff", "--no-renames", "--name-status", "-z", checkpoint_sha, commit], root, env=env
    )
    parts = raw.decode("utf-8", "surrogateescape").split("\0")
    return commit, {path: status[0] for status, path in zip(parts[::2], parts[1::2], strict=False)}


def discard_attempt(store: Path) -> None:
    """Remove an attempt's store (the run ended, or a later attempt replaces it)."""
    shutil.rmtree(store, ignore_errors=True)


def restore_files(root: Path, attempt: Attempt, paths: list[str]) -> None:
    """Write `paths` as the attempt left them (a path it deleted is deleted). The worktree is
    the model's: a link it made at a path, or at a parent, is replaced, never written
    through (`sandbox.nofollow`)."""
    env = _store_env(root, attempt.store)
    for rel in paths:
        if attempt.changes[rel] == "D":
            if not is_link_beneath(root, rel.rsplit("/", 1)[0] if "/" in rel else ""):
                target = root / rel
                if target.is_symlink() or target.is_file():
                    remove_beneath(root, rel)
            continue
        listing = ["ls-tree", "--format=%(objectmode)", attempt.commit, "--", rel]
        mode = git_line(listing, root, env=env)
        data = git(["cat-file", "blob", f"{attempt.commit}:{rel}"], root, env=env)
        if mode == "120000":
            symlink_beneath(root, rel, data.decode("utf-8", "replace"))
        else:
            write_beneath(root, rel, data, 0o755 if mode == "100755" else 0o644)


def _store_env(root: Path, store: Path) -> dict[str, str]:
    """git writing new objects into `store` only, reading the repository's through it."""
    objects = git_line(["rev-parse", "--path-format=absolute", "--git-path", "objects"], root)
    return {"GIT_OBJECT_DIRECTORY": str(store), "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects}


def _file_size(root: Path, rel: str) -> int:
    """A regular file's size by lstat (0 for anything else, or nothing there)."""
    try:
        info = os.lstat(root / rel)
    except OSError:
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0
