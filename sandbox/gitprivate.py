"""Which objects of the user's repository commands must not read, and where they lie.

Public is what the refs the view shows reach: every ref but `refs/stash`, and HEAD. Private
are the objects only the user's own state reaches: content staged in an index (the user's, or
another worktree's; not the run's own), everything reachable only from the stash or from
reflogs (a stash, a commit amended or reset away), and the objects of cruft packs (unreachable
leftovers `git gc` keeps). `git rev-list A --not B` is exact for commits but not for trees and
blobs (a staged file that equals a file of an old commit is listed), so a candidate is checked
against a walk of the public history before it is withheld: withholding a public object would
break `git log -p` in the view. The walk is done only when there are candidates, and kept
while the refs outside the runs' own branches and the set of packs are unchanged; the runs'
branches only add what they made, found by a short walk of their new commits.

A loose private object is masked where it lies; a pack holding one is replaced in the view by
a copy without it (sandbox/packfilter.py). Objects no ref, index or reflog reaches and that
lie loose (dangling: git prunes them after two weeks) are not looked for: finding them is a
walk of everything on every change of state.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.gitcli import git, git_to_file, split_z
from sandbox.packfilter import PackIndex, hash_len

STASH = "refs/stash"
_RUN_BRANCHES = "refs/heads/coder/*"
_PUBLIC = ["--exclude=" + STASH, "--exclude=" + _RUN_BRANCHES, "--all", "HEAD"]
"""The public refs outside the runs' own branches (rev-list arguments)."""


@dataclass(frozen=True)
class Private:
    loose: list[Path] = field(default_factory=list)
    """Loose object files to mask."""
    packs: dict[Path, tuple[PackIndex, set[str]]] = field(default_factory=dict)
    """pack-*.idx -> its index and the private objects the pack holds."""


_views: dict[Path, tuple[tuple[object, ...], Private]] = {}
_walks: dict[Path, tuple[tuple[object, ...], set[str], set[str]]] = {}


def private_objects(common: Path, own: Path) -> Private:
    """What of the object store at `common` the run whose git directory is `own` must not
    show its commands; cached while the refs, indexes, reflog of HEAD and packs stand."""
    indexes = _indexes(common, own)
    refs = git([f"--git-dir={common}", "show-ref", "--head"], common, check=False)
    packs = _packs(common)
    key = (refs, tuple(_mtime(i) for i in indexes), _mtime(common / "logs" / "HEAD"), packs)
    cached = _views.get(common)
    if cached is not None and cached[0] == key:
        return cached[1]
    size = hash_len(common)
    indexes_by_pack = {idx: PackIndex(idx, size) for idx in packs}
    candidates: set[str] = set()
    for index_file in indexes:
        candidates |= _staged(index_file.parent)
    candidates |= _private_history(common, refs)
    for idx, pack in indexes_by_pack.items():
        if idx.with_suffix(".mtimes").is_file():  # a cruft pack: unreachable objects
            candidates |= {name.hex() for name in pack.names()}
    private = candidates - _public(common, candidates, refs, packs) if candidates else set()
    objects = common / "objects"
    view = Private(
        loose=sorted(p for oid in private if (p := objects / oid[:2] / oid[2:]).is_file()),
        packs={
            idx: (pack, held)
            for idx, pack in indexes_by_pack.items()
            if private and (held := pack.held(private))
        },
    )
    _views[common] = (key, view)
    return view


def _indexes(common: Path, own: Path) -> list[Path]:
    """The index files of the repository's worktrees, the run's own left out."""
    found = [common / "index"]
    worktrees = common / "worktrees"
    if worktrees.is_dir():
        found += [e / "index" for e in sorted(worktrees.iterdir()) if e != own]
    return [index for index in found if index.is_file()]


def _packs(common: Path) -> tuple[Path, ...]:
    pack_dir = common / "objects" / "pack"
    try:
        return tuple(sorted(pack_dir.glob("pack-*.idx")))
    except OSError:
        return ()


def _staged(gitdir: Path) -> set[str]:
    """Blobs an index holds that its HEAD's tree does not (content staged, uncommitted); none
    for a worktree removed meanwhile (another attempt's, ending while this run starts)."""
    try:
        out = git(
            [f"--git-dir={gitdir}", "diff-index", "--cached", "--raw", "-z", "--no-renames"]
            + ["HEAD"],
            gitdir,
            check=False,
        )
    except FileNotFoundError:
        return set()
    ids: set[str] = set()
    for item in split_z(out):
        if item.startswith(":"):
            fields = item.split()
            if len(fields) >= 4:
                ids.add(fields[3])
    return {oid for oid in ids if oid.strip("0")}


def _private_history(common: Path, refs: bytes) -> set[str]:
    """Objects reachable from the stash and the reflogs and not from the public refs' edge."""
    tips = [STASH] if f" {STASH}\n".encode() in refs else []
    out = git(
        [f"--git-dir={common}", "rev-list", "--objects", "--no-object-names", "--reflog"]
        + [*tips, "--not", f"--exclude={STASH}", "--all", "HEAD"],
        common,
        check=False,
    )
    return set(out.decode().split())


def _public(common: Path, candidates: set[str], refs: bytes, packs: tuple[Path, ...]) -> set[str]:
    """Those of `candidates` the public refs reach (exact: a walk of their whole history)."""
    outside_runs = b"\n".join(
        line for line in refs.splitlines() if b" refs/heads/coder/" not in line
    )
    key = (outside_runs, packs)
    walked = _walks.get(common)
    if walked is not None and walked[0] == key and candidates <= walked[1]:
        public = walked[2] & candidates
    else:
        public = _walk(common, ["--use-bitmap-index", *_PUBLIC], candidates)
        _walks[common] = (key, set(candidates), public)
    runs = ["--branches=coder/*", "--not", *_PUBLIC]
    return public | _walk(common, runs, candidates)


def _walk(common: Path, revs: list[str], wanted: set[str]) -> set[str]:
    """Those of `wanted` that `git rev-list --objects REVS` lists; its output goes through a
    file, never held whole (a large repository has millions of objects)."""
    fd, name = tempfile.mkstemp(prefix="coder-walk-")
    os.close(fd)
    try:
        args = [f"--git-dir={common}", "rev-list", "--objects", "--no-object-names", *revs]
        git_to_file(args, common, Path(name))
        with open(name, "rb") as listing:
            return {oid for line in listing if (oid := line.strip().decode()) in wanted}
    finally:
        os.unlink(name)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return -1
