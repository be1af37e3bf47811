"""What commands see of the user's git directory: only what the run's worktree needs.

`git status`, `git diff` and `git log` in the run's worktree read the object store, the refs,
the common HEAD and config (scrubbed, sandbox/gitconfig.py), `info/exclude` and the run's own
`worktrees/<name>/` (its HEAD and index). Nothing else of the git directory is shown:
not the user's index (staged, uncommitted content), not `refs/stash` or the reflogs (a stash
holds uncommitted and, with `-u`, untracked files such as `.env`), not hooks, other
worktrees' directories, `coder-worktrees/`, or any other file under `.git/`.

Objects are shared, so the content a user staged or stashed is also an object in the store,
readable by anyone who knows or lists its id, loose or (once `git gc` ran, as git does on
its own) in a pack. The objects only the user's indexes, stash and reflogs reach
(sandbox/gitprivate.py) are withheld: a loose one is masked, and a pack holding one is
shown as a copy without it (sandbox/packfilter.py); the other packs are shown as they are.
A multi-pack index is not shown when a pack is replaced (git reads the packs without it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sandbox.gitprivate import STASH, Private, private_objects
from sandbox.mounts import MountPlan
from sandbox.packfilter import filtered_pack

_KEPT_FILES = ("HEAD", "info/exclude", "shallow", "commondir")
_KEPT_DIRS = ("objects", "modules")
_STASH = STASH
_PACK_FILES = (".pack", ".idx", ".rev", ".bitmap", ".keep", ".promisor", ".mtimes")


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
    private = private_objects(dirs.common, dirs.own)
    for path in private.loose:
        plan.ro(Path("/dev/null"), view / path.relative_to(dirs.common))
    if private.packs:
        _bind_packs(plan, dirs.common, private, view / "objects" / "pack")


def _bind_packs(plan: MountPlan, common: Path, private: Private, view: Path) -> None:
    """The pack directory with each pack that holds a private object replaced by its copy
    without them; the other packs as they are."""
    plan.hide(view, size=1 << 20)
    replaced = {idx.name.removesuffix(".idx") for idx in private.packs}
    source = common / "objects" / "pack"
    for entry in sorted(source.iterdir()):
        stem, suffix = os.path.splitext(entry.name)
        if stem.startswith("pack-") and suffix in _PACK_FILES and stem not in replaced:
            if entry.is_file() and not entry.is_symlink():
                plan.ro(entry, view / entry.name)
    for index, drop in private.packs.values():
        for path in filtered_pack(common, index, drop):
            plan.ro(path, view / path.name)


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
