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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sandbox.acl import NOBODY_UID, grant_tree
from sandbox.confine import Sandbox, SandboxUnavailable, make_sandbox
from sandbox.gitcli import git
from sandbox.nofollow import (
    is_link_beneath,
    read_beneath,
    remove_beneath,
    symlink_beneath,
    write_beneath,
)
from sandbox.repo_env import RepoEnvironmentError, prepare_tree_environment
from sandbox.wrapper import EnvSandbox

PREFIX = "coder-proof-"


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


def sandbox_like(
    tree: Path, like: Sandbox, include: list[str], test_cmd: str | None
) -> Sandbox | str:
    """A sandbox of the same mode, limits and command environment as `like` (the run's), for a
    throwaway tree; or why the tree could not be set up."""
    wrapped = like if isinstance(like, EnvSandbox) else None
    inner = wrapped.inner if wrapped else like
    try:
        environment = prepare_tree_environment(
            tree, include=include, sandbox_mode=like.name, test_cmd=test_cmd
        )
        made = make_sandbox(
            like.name, tree, environment=environment, limits=getattr(inner, "limits", None)
        )
    except (RepoEnvironmentError, SandboxUnavailable) as exc:
        return f"the tree at the commit could not be set up: {exc}"
    return EnvSandbox(made, wrapped.env if wrapped else {})
