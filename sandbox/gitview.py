"""What commands see of the user's git directory: only what the run's worktree needs.

`git status`, `git diff` and `git log` in the run's worktree read the object store, the refs,
the common HEAD and config (scrubbed, sandbox/gitconfig.py), `info/exclude` and the run's own
`worktrees/<name>/` (its HEAD and index). Nothing else of the git directory is shown:
not the user's index (staged, uncommitted content), not `refs/stash` or the reflogs (a stash
holds uncommitted and, with `-u`, untracked files such as `.env`), not hooks, other
worktrees' directories, `coder-worktrees/`, or any other file under `.git/`.

Objects are shared, so the content a user staged or stashed is also a loose object in the
store, readable by anyone who knows or lists its id. The loose objects reachable only from
the user's indexes and stashes are masked too (found with two git calls, cached while the
indexes, stash and refs are unchanged). Objects already packed cannot be masked one by
one; `git gc` packs a stash only when it is old enough to be an unreachable leftover or
kept by the reflog, which this view does not show either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sandbox.gitcli import git, split_z
from sandbox.mounts import MountPlan

_KEPT_FILES = ("HEAD", "info/exclude", "shallow", "commondir")
_KEPT_DIRS = ("objects", "modules")
_STASH = "refs/stash"


@dataclass(frozen=True)
class GitDirs:
    common: Path  # the repository's git directory
    own: Path  # the run's worktrees/<name> inside it


def bind_git_dir(plan: MountPlan, dirs: GitDirs, view: Path, scratch: Path) -> None:
    """The narrowed git directory at `view` (an empty tmpfs, sealed read-only by the plan)."""
    plan.hide(view, size=1 << 20)
    for name in _KEPT_FILES:
        path = dirs.common / name
        if path.is_file() and not path.is_symlink():
            plan.ro(path, view / name)
    for name in _KEPT_DIRS:
        path = dirs.common / name
        if path.is_dir() and not path.is_symlink():
            plan.ro(path, view / name)
    plan.dir(view / "refs")
    refs = dirs.common / "refs"
    for entry in sorted(refs.iterdir()) if refs.is_dir() else []:
        if entry.name != "stash" and not entry.is_symlink():
            plan.ro(entry, view / "refs" / entry.name)
    packed = dirs.common / "packed-refs"
    if packed.is_file():
        plan.ro(_without_stash(packed, scratch / "packed-refs"), view / "packed-refs")
    plan.ro(dirs.own, view / dirs.own.relative_to(dirs.common))
    for path in private_objects(dirs):
        plan.ro(Path("/dev/null"), view / path.relative_to(dirs.common))


def _without_stash(packed: Path, copy: Path) -> Path:
    """packed-refs as it is, or a copy without refs/stash when it holds one."""
    data = packed.read_bytes()
    if f" {_STASH}\n".encode() not in data:
        return packed
    lines = data.splitlines(keepends=True)
    kept: list[bytes] = []
    skipping = False
    for line in lines:
        if line.startswith(b"^"):  # the peeled value of the ref above
            if not skipping:
                kept.append(line)
            continue
        skipping = line.rstrip(b"\n").endswith(f" {_STASH}".encode())
        if not skipping:
            kept.append(line)
    copy.write_bytes(b"".join(kept))
    os.chmod(copy, 0o644)
    return copy


_cache: dict[Path, tuple[tuple[float, ...], list[Path]]] = {}


def private_objects(dirs: GitDirs) -> list[Path]:
    """Loose objects reachable only from the user's indexes (staged content) or stashes."""
    common = dirs.common
    indexes = [(common, common / "index")]
    worktrees = common / "worktrees"
    if worktrees.is_dir():
        for entry in sorted(worktrees.iterdir()):
            if entry != dirs.own and (entry / "index").is_file():
                indexes.append((entry, entry / "index"))
    watched = [index for _, index in indexes]
    watched += [common / _STASH, common / "logs" / _STASH, common / "packed-refs", common / "refs"]
    key = tuple(_mtime(p) for p in watched)
    cached = _cache.get(common)
    if cached is not None and cached[0] == key:
        return cached[1]
    ids: set[str] = set()
    for gitdir, index in indexes:
        if index.is_file():
            ids |= _staged(gitdir)
    ids |= _stashed(common)
    found = sorted(
        path for oid in ids if (path := common / "objects" / oid[:2] / oid[2:]).is_file()
    )
    _cache[common] = (key, found)
    return found


def _staged(gitdir: Path) -> set[str]:
    """Blobs an index holds that its HEAD's tree does not (content staged, uncommitted)."""
    out = git(
        [f"--git-dir={gitdir}", "diff-index", "--cached", "--raw", "-z", "--no-renames", "HEAD"],
        gitdir,
        check=False,
    )
    ids: set[str] = set()
    for item in split_z(out):
        if item.startswith(":"):
            fields = item.split()
            if len(fields) >= 4:
                ids.add(fields[3])
    return {oid for oid in ids if oid.strip("0")}


def _stashed(common: Path) -> set[str]:
    """Objects reachable from the stash (and its reflog) and from no branch, tag or HEAD."""
    if not (common / _STASH).exists() and not (common / "packed-refs").is_file():
        return set()
    entries = git([f"--git-dir={common}", "log", "-g", "--format=%H", _STASH], common, check=False)
    stashes = entries.decode().split()
    tip = git([f"--git-dir={common}", "rev-parse", "-q", "--verify", _STASH], common, check=False)
    stashes += tip.decode().split()
    if not stashes:
        return set()
    out = git(
        [
            f"--git-dir={common}",
            "rev-list",
            "--objects",
            *sorted(set(stashes)),
            "--not",
            "--branches",
            "--tags",
            "--remotes",
            "HEAD",
        ],
        common,
        check=False,
    )
    return {line.split()[0] for line in out.decode().splitlines() if line.strip()}


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1.0
