"""What kind of entry a step may leave in the tree it commits: files and directories, and
symlinks that point inside the repository.

A symlink to `/etc/shadow` (or `../../home/me/.ssh`) is harmless in the worktree and a hazard
once committed and applied: whatever reads it next, a later run, an editor, CI, reads the
target. A gitlink (a nested repository, or an index entry of mode 160000) commits a pointer to
a commit that no one can fetch. Both fail the step with the reason; neither is ever committed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from sandbox.gitcli import git, split_z

GITLINK_MODE = "160000"


def entry_problems(root: Path, paths: Iterable[str]) -> list[str]:
    """One reason per changed path that is not a file, a directory or an inward symlink."""
    wanted = [p.rstrip("/") for p in paths if p.rstrip("/")]
    problems: list[str] = []
    gitlinks = _gitlinks(root, wanted)
    for path in wanted:
        full = root / path
        if path in gitlinks:
            problems.append(
                f"{path} is a gitlink (a nested repository's commit, which no one can fetch): "
                "commit its files instead"
            )
        elif full.is_symlink():
            target = os.readlink(full)
            if not _points_inside(path, target):
                problems.append(
                    f"{path} is a symlink to {target}, outside the repository: symlinks must "
                    "point inside it"
                )
        elif full.is_dir() and (full / ".git").exists():
            problems.append(
                f"{path} is a nested git repository (it would be committed as a gitlink): "
                "commit its files, without its .git"
            )
    return problems


def _points_inside(path: str, target: str) -> bool:
    if os.path.isabs(target):
        return False
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
    first = resolved.split("/", 1)[0]
    return resolved != "." and first not in ("..", ".git")


def _gitlinks(root: Path, paths: list[str]) -> set[str]:
    """The paths among `paths` that the index holds as gitlinks. The index is listed whole
    and filtered here: `ls-files` takes no pathspec on stdin, and a step can leave more paths
    than one command line holds."""
    if not paths:
        return set()
    staged = split_z(git(["ls-files", "-s", "-z"], root, check=False))
    wanted = set(paths)
    return {
        path
        for entry in staged
        if entry.startswith(GITLINK_MODE + " ") and "\t" in entry
        if (path := entry.split("\t", 1)[1]) in wanted
    }
