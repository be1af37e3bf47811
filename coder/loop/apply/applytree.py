"""The mechanics of taking a run's change: the working tree goes from the base to the branch's
tree in one step, or stays as it was.

Nothing touches the working tree until the whole change has been checked against it: every
path it will write must be free (an untracked or ignored file or directory in the way would
be overwritten or half-written: `git read-tree -u` removes an ignored directory to put a file
there, `git apply` deletes tracked files and then stops at it). The switch itself is one
`git read-tree -m -u` on a private index (the user's index stays at the base, so the change
shows as unstaged edits and new files, as `git apply` leaves them), run in a session of its
own with Ctrl-C, SIGTERM and SIGHUP held back until it is done: a person who interrupts gets
the tree whole, one way or the other. Whether the change is in the tree is always judged from
the tree itself, never from a flag a file carries.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sandbox.changes import path_batches
from sandbox.gitcli import git, git_detached, git_line, git_ok, split_z

RUNS_HOME = ".coder"
"""Where run directories live in a repository: no change may write it."""
DEFERRED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
INDEX_PREFIX = "coder-apply-"


@dataclass(frozen=True)
class Change:
    """A run's change: its branch's tree against the base, path by path."""

    base: str
    tip: str
    entries: tuple[tuple[str, str], ...]
    """(status letter, path), renames split into a deletion and an addition."""

    @property
    def deleted(self) -> frozenset[str]:
        return frozenset(path for status, path in self.entries if status == "D")


def read_change(repo: Path, base: str, tip: str) -> Change:
    raw = git(["diff", "--name-status", "-z", "--no-renames", base, tip], repo)
    items = split_z(raw)
    return Change(base, tip, tuple(zip(items[0::2], items[1::2], strict=True)))


def in_the_way(repo: Path, change: Change) -> list[str]:
    """Paths of the tree the change would overwrite that it does not own: untracked or ignored
    files and directories where it adds a file, a file or symlink where it needs a directory,
    and anything under `.coder` (the run directories)."""
    blocked: list[str] = []
    deleted = change.deleted
    for status, path in change.entries:
        if path == RUNS_HOME or path.startswith(RUNS_HOME + "/"):
            blocked.append(path)
            continue
        if status != "A":
            continue
        parts = path.split("/")
        for depth in range(1, len(parts)):
            prefix = "/".join(parts[:depth])
            where = repo / prefix
            if (where.is_symlink() or (where.exists() and not where.is_dir())) and (
                prefix not in deleted
            ):
                blocked.append(prefix)
                break
        else:
            target = repo / path
            if os.path.lexists(target) and not _only_deleted_inside(target, path, deleted):
                blocked.append(path)
    return sorted(set(blocked))


def _only_deleted_inside(target: Path, path: str, deleted: frozenset[str]) -> bool:
    """A directory the change empties (every file in it is one it deletes) is not in the way."""
    if target.is_symlink() or not target.is_dir():
        return False
    for root, _dirs, files in os.walk(target):
        for name in files:
            rel = f"{path}/{Path(root, name).relative_to(target).as_posix()}"
            if rel not in deleted:
                return False
    return True


def holds_change(repo: Path, change: Change) -> bool:
    """Whether the working tree holds exactly the branch's version of every path the change
    touches (whatever the index and the rest of the tree say)."""
    with private_index(repo) as index:
        env = {"GIT_INDEX_FILE": str(index)}
        git(["read-tree", change.tip], repo, env=env)
        git(["update-index", "-q", "--refresh"], repo, env=env, check=False)
        touched = [path for status, path in change.entries if status != "D"]
        for batch in path_batches(touched):
            out = git(["diff-files", "--name-only", "-z", "--", *batch], repo, env=env)
            if out.strip(b"\0"):
                return False
    return not any(os.path.lexists(repo / path) for path in change.deleted)


def change_in_head(repo: Path, change: Change) -> bool:
    """The change is already committed: the branch is merged into HEAD, or HEAD has its tree."""
    if git_ok(["merge-base", "--is-ancestor", change.tip, "HEAD"], repo):
        return True
    head_tree = git_line(["rev-parse", "-q", "--verify", "HEAD^{tree}"], repo, check=False)
    return head_tree == git_line(["rev-parse", f"{change.tip}^{{tree}}"], repo)


def dry_run(repo: Path, change: Change) -> str | None:
    """git's own objection to the switch, or None; nothing is written."""
    with private_index(repo, from_user=True) as index:
        env = {"GIT_INDEX_FILE": str(index)}
        code, errors = git_detached(
            ["read-tree", "-n", "-m", "-u", change.base, change.tip], repo, env=env
        )
    return _first_line(errors) if code else None


def switch(
    repo: Path, change: Change, lock_fd: int, announce: Callable[[], None]
) -> tuple[str | None, list[int]]:
    """Move the working tree from the base to the branch's tree: git's objection (None when it
    went through) and the signals that arrived meanwhile, held back until it was done. git
    holds the apply lock (`lock_fd`) until it exits, even if this process is killed, so the
    next applier judges a finished tree."""
    with private_index(repo, from_user=True) as index, deferred_signals() as caught:
        announce()
        code, errors = git_detached(
            ["read-tree", "-m", "-u", change.base, change.tip],
            repo,
            env={"GIT_INDEX_FILE": str(index)},
            pass_fds=(lock_fd,),
        )
    return (_first_line(errors) if code else None), caught


def remove_stale_indexes(repo: Path) -> None:
    """Private indexes an applier killed mid-way left behind (called under the apply lock)."""
    for stale in _git_dir(repo).glob(INDEX_PREFIX + "*"):
        stale.unlink(missing_ok=True)


@contextmanager
def private_index(repo: Path, from_user: bool = False) -> Iterator[Path]:
    """A throwaway index file; with `from_user`, a copy of the user's index (its stat data saves
    hashing every file again)."""
    git_dir = _git_dir(repo)
    index = git_dir / f"{INDEX_PREFIX}{os.getpid()}-{id(object())}.index"
    try:
        user_index = git_dir / "index"
        if from_user:
            if user_index.is_file():
                shutil.copyfile(user_index, index)
            else:
                git(["read-tree", "HEAD"], repo, env={"GIT_INDEX_FILE": str(index)})
        yield index
    finally:
        index.unlink(missing_ok=True)
        Path(f"{index}.lock").unlink(missing_ok=True)


@contextmanager
def deferred_signals() -> Iterator[list[int]]:
    """Ctrl-C, SIGTERM and SIGHUP held back for the block; the list gets those that came."""
    caught: list[int] = []
    old = signal.pthread_sigmask(signal.SIG_BLOCK, DEFERRED)
    try:
        yield caught
    finally:
        while (info := signal.sigtimedwait(DEFERRED, 0)) is not None:
            caught.append(info.si_signo)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _git_dir(repo: Path) -> Path:
    return Path(git_line(["rev-parse", "--absolute-git-dir"], repo))


def _first_line(errors: str) -> str:
    lines = [line.strip() for line in errors.splitlines() if line.strip()]
    first = lines[0] if lines else "git failed"
    return first.removeprefix("fatal: ").removeprefix("error: ")
