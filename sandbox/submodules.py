"""The checkout's submodules, present in the worktree at the commits the superproject records.

`git worktree add` leaves each submodule an empty directory. We fill it offline from the
user's own copy: `git clone --shared --no-checkout` of the submodule's git directory (a
self-contained `.git` whose objects come from the user's through alternates, so nothing is
copied and no network is used) and a checkout of the recorded commit. Nothing of the user's
metadata changes. Nested submodules are handled the same way, one level at a time.

A submodule the user never initialized, or whose recorded commit their copy lacks, stays
empty with a note: fetching it would need the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sandbox.gitcli import GitError, git, git_line, split_z

_GITLINK = "160000"


@dataclass(frozen=True)
class Submodule:
    rel: str  # path in the superproject's worktree (nested ones include their parents)
    commit: str
    objects: Path  # the user's object directory the clone borrows from


def check_out_submodules(
    checkout: Path, worktree: Path, notes: list[str], prefix: str = ""
) -> list[Submodule]:
    """Fill every initialized submodule of `worktree` from `checkout`; returns what it did."""
    if not (worktree / ".gitmodules").is_file():
        return []
    recorded = _recorded(worktree)
    done: list[Submodule] = []
    for rel, commit in recorded:
        shown = prefix + rel
        source = checkout / rel
        try:
            git_dir = Path(git_line(["rev-parse", "--absolute-git-dir"], source))
            objects = Path(
                git_line(["rev-parse", "--path-format=absolute", "--git-path", "objects"], source)
            )
        except (GitError, OSError):
            notes.append(
                f"submodule {shown} is not initialized in your checkout; it stays empty "
                "(run `git submodule update --init` there to give runs a copy)"
            )
            continue
        if not git_dir.is_dir() or git_dir == _git_dir_of(checkout):
            notes.append(f"submodule {shown} is not initialized in your checkout; it stays empty")
            continue
        target = worktree / rel
        try:
            git(["clone", "-q", "--shared", "--no-checkout", str(git_dir), str(target)], worktree)
            git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit], target)
        except GitError as error:
            notes.append(f"submodule {shown}: commit {commit[:12]} is not in your copy ({error})")
            continue
        done.append(Submodule(shown, commit, objects))
        done += check_out_submodules(source, target, notes, prefix=shown + "/")
    return done


def _recorded(worktree: Path) -> list[tuple[str, str]]:
    """(path, commit) of each gitlink the worktree's index holds."""
    try:
        out = git(["ls-files", "-z", "--stage"], worktree)
    except GitError:
        return []
    found = []
    for record in split_z(out):
        meta, _, path = record.partition("\t")
        fields = meta.split()
        if len(fields) >= 2 and fields[0] == _GITLINK:
            found.append((path, fields[1]))
    return found


def _git_dir_of(path: Path) -> Path | None:
    try:
        return Path(git_line(["rev-parse", "--absolute-git-dir"], path))
    except GitError:
        return None
