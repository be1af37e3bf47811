"""A throwaway tree of one commit with some files laid over it, for a proof that runs beside
the run's worktree and never touches it.

A test proven to fail before a step must fail on the code as it was at the step's checkpoint,
with the step's own version of its test files: a detached `git worktree` at the checkpoint
commit, in a temporary directory, with those files written over it. Confined commands see it
at the checkout's path, as they see the run's worktree (`sandbox.repo_env`), so an editable
install or an absolute path resolves to this tree's code, not the fixed one.

A harness killed during a proof (SIGKILL runs no cleanup) leaves the tree in the temporary
directory and in `git worktree list`. An owner file in the tree's holder names the process
(`sandbox.owners`); the next run, and `coder clean`, remove the trees whose owner is gone
(`prune_stale_proof_trees`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sandbox.acl import NOBODY_UID, grant_tree
from sandbox.gitcli import git, split_z
from sandbox.nofollow import (
    is_link_beneath,
    read_beneath,
    remove_beneath,
    symlink_beneath,
    write_beneath,
)
from sandbox.owners import owner_gone, write_owner

PREFIX = "coder-proof-"
OWNER = "owner.json"


@dataclass(frozen=True)
class Link:
    """A symlink to lay into the tree as a symlink: its text, never what it points to."""

    target: str


Overlay = Mapping[str, "bytes | Link | None"]
"""path -> the bytes of a regular file, a symlink, or None (the path is absent)."""


def read_overlay(root: Path, paths: Iterable[str]) -> dict[str, bytes | Link | None] | str:
    """How `paths` stand in the tree at `root` (the run's worktree), read without following a
    link: a symlink is taken as a symlink. A path whose parent directory is a link is refused
    (the reason, as a string): its bytes would be read from wherever the link points."""
    overlay: dict[str, bytes | Link | None] = {}
    for rel in sorted(set(paths)):
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if parent and is_link_beneath(root, parent):
            return f"{rel} lies under a symlink; the proof lays only files the step wrote"
        path = root / rel
        if path.is_symlink():
            overlay[rel] = Link(os.readlink(path))
        elif path.is_file():
            data = read_beneath(root, rel)
            if data is None:
                return f"{rel} could not be read without following a link"
            overlay[rel] = data
        else:
            overlay[rel] = None
    return overlay


@contextmanager
def tree_at(repo: Path, commit: str, overlay: Overlay) -> Iterator[Path]:
    """A detached worktree of `repo` at `commit`, with `overlay` written over it; removed on
    exit, whatever happened. `repo` is any worktree of the repository (the run's own): the new
    tree shares its objects, not its index or HEAD. The checkout may hold the repository's own
    symlinks: the overlay replaces them, never writes through them (`sandbox.nofollow`)."""
    holder = Path(tempfile.mkdtemp(prefix=PREFIX))
    tree = holder / "tree"
    added = False
    try:
        write_owner(holder / OWNER)
        tree.mkdir()
        if os.geteuid() == 0:
            os.chmod(holder, 0o711)
            grant_tree(tree, NOBODY_UID)  # confined commands run as nobody under a root harness
        git(["worktree", "add", "-q", "--detach", str(tree), commit], repo)
        added = True
        for rel, data in overlay.items():
            if data is None:
                remove_beneath(tree, rel)
            elif isinstance(data, Link):
                symlink_beneath(tree, rel, data.target)
            else:
                write_beneath(tree, rel, data)
        yield tree
    finally:
        if added:
            git(["worktree", "remove", "--force", "--force", str(tree)], repo, check=False)
        shutil.rmtree(holder, ignore_errors=True)
        if added:
            git(["worktree", "prune"], repo, check=False)


def prune_stale_proof_trees(repo: Path) -> list[Path]:
    """Remove the proof trees whose owner process is gone: those `repo`'s git lists as its
    worktrees (wherever they are) and those left in this temporary directory; the holders
    removed."""
    removed: list[Path] = []
    gone = False  # a proof tree git still lists though its directory went
    listing = split_z(git(["worktree", "list", "--porcelain", "-z"], repo, check=False))
    for line in listing:
        if not line.startswith("worktree "):
            continue
        tree = Path(line.removeprefix("worktree "))
        if tree.name != "tree" or not tree.parent.name.startswith(PREFIX):
            continue
        gone = gone or not os.path.lexists(tree.parent)
        if _stale(tree.parent):
            git(["worktree", "remove", "--force", "--force", str(tree)], repo, check=False)
            shutil.rmtree(tree.parent, ignore_errors=True)
            removed.append(tree.parent)
    for holder in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        if holder not in removed and _stale(holder):
            shutil.rmtree(holder, ignore_errors=True)
            removed.append(holder)
    if removed or gone:
        git(["worktree", "prune"], repo, check=False)
    return removed


def _stale(holder: Path) -> bool:
    """A proof tree's holder that this user made and whose owner is gone. One without an owner
    file is left alone: it may be one being made this moment, or an older harness's, which
    cannot be judged."""
    if not holder.name.startswith(PREFIX):
        return False
    try:
        info = holder.lstat()
    except OSError:
        return False
    if not os.path.isdir(holder) or holder.is_symlink() or info.st_uid != os.geteuid():
        return False
    return (holder / OWNER).is_file() and owner_gone(holder / OWNER)
