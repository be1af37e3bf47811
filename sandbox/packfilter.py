"""A pack of the user's repository without some of its objects, for the view commands get.

`git gc` packs what the user staged, stashed or keeps in reflogs together with everything
else; a pack cannot be masked object by object the way a loose object can. So a pack that
holds an object commands must not read is replaced, in their view, by a copy without it:
`git pack-objects` fed every other object of that pack (deltas against a dropped object are
recomputed, never reused). Packs are immutable and named by their content, so the copy is
cached by the pack's name and the objects dropped, under `<git dir>/coder-packs/` (which the
view never shows), built once and reused by every later command and run.

The pack index is read here (version 2: magic, version, a 256-entry fan-out table, then the
sorted object names), so finding whether a pack holds an object costs a binary search, not a
git call.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from sandbox.gitcli import git

CACHE_DIR = "coder-packs"
_IDX_MAGIC = b"\xfftOc"
_HEADER = 8
_FANOUT = 256 * 4
_STALE_S = 3600.0
"""A copy no command has chosen for this long is removed when another copy of the same pack
is chosen (concurrent runs may each want their own; a command binds the copy it chose)."""


class PackIndex:
    """The object names of one `pack-*.idx` (version 2), read once."""

    def __init__(self, path: Path, hash_len: int) -> None:
        with open(path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if data[:4] != _IDX_MAGIC or int.from_bytes(data[4:8], "big") != 2:
            raise ValueError(f"{path.name}: not a version 2 pack index")
        self.path = path
        self.hash_len = hash_len
        self.count = int.from_bytes(data[_HEADER + _FANOUT - 4 : _HEADER + _FANOUT], "big")
        start = _HEADER + _FANOUT
        self._names = memoryview(data)[start : start + self.count * hash_len]
        self._fanout = memoryview(data)[_HEADER : _HEADER + _FANOUT]

    def holds(self, oid: bytes) -> bool:
        first = oid[0]
        low = int.from_bytes(self._fanout[4 * (first - 1) : 4 * first], "big") if first else 0
        high = int.from_bytes(self._fanout[4 * first : 4 * first + 4], "big")
        size = self.hash_len
        while low < high:
            middle = (low + high) // 2
            name = bytes(self._names[middle * size : (middle + 1) * size])
            if name == oid:
                return True
            if name < oid:
                low = middle + 1
            else:
                high = middle
        return False

    def held(self, oids: Iterable[str]) -> set[str]:
        """Those of `oids` (hex) this pack holds."""
        return {
            oid for oid in oids if len(oid) == 2 * self.hash_len and self.holds(bytes.fromhex(oid))
        }

    def names(self) -> Iterator[bytes]:
        size = self.hash_len
        for index in range(self.count):
            yield bytes(self._names[index * size : (index + 1) * size])


def filtered_pack(common: Path, index: PackIndex, drop: set[str]) -> list[Path]:
    """The files (`.pack`, `.idx`) of a copy of `index`'s pack without `drop`, made once and
    cached; older copies of the same pack that no command can still be choosing are removed."""
    pack = index.path.name.removesuffix(".idx")
    digest = hashlib.sha256("\n".join(sorted(drop)).encode()).hexdigest()[:16]
    cache = common / CACHE_DIR
    target = cache / f"{pack}-{digest}"
    if not target.is_dir():
        cache.mkdir(mode=0o755, exist_ok=True)
        _build(common, index, {bytes.fromhex(oid) for oid in drop}, cache, target)
    os.utime(target)  # chosen now
    _sweep(cache, pack, keep=target)
    return sorted(p for p in target.iterdir() if p.suffix in (".pack", ".idx"))


def _build(common: Path, index: PackIndex, drop: set[bytes], cache: Path, target: Path) -> None:
    """pack-objects in a temporary directory beside `target`, renamed into place: a run that
    builds the same copy at the same time takes whichever lands first."""
    work = Path(tempfile.mkdtemp(prefix="building-", dir=cache))
    try:
        kept = b"".join(name.hex().encode() + b"\n" for name in index.names() if name not in drop)
        git([f"--git-dir={common}", "pack-objects", "-q", str(work / "pack")], common, stdin=kept)
        for path in work.iterdir():
            path.chmod(0o444)
        work.chmod(0o755)
        try:
            work.rename(target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sweep(cache: Path, pack: str, keep: Path) -> None:
    now = time.time()
    for entry in cache.iterdir():
        if entry == keep or not entry.is_dir():
            continue
        stale_copy = entry.name.startswith(f"{pack}-")
        orphan = entry.name.startswith("pack-") and not _source_exists(cache.parent, entry.name)
        leftover = entry.name.startswith("building-")
        try:
            old = now - entry.stat().st_mtime > _STALE_S
        except OSError:
            continue
        if old and (stale_copy or orphan or leftover):
            shutil.rmtree(entry, ignore_errors=True)


def _source_exists(common: Path, name: str) -> bool:
    """Whether the pack a cached copy was made from is still in the repository."""
    pack = name.rsplit("-", 1)[0]
    return (common / "objects" / "pack" / f"{pack}.idx").is_file()


def hash_len(common: Path) -> int:
    """Bytes of an object name in this repository: 32 for SHA-256, else 20."""
    out = git([f"--git-dir={common}", "rev-parse", "--show-object-format"], common, check=False)
    return 32 if out.strip() == b"sha256" else 20
