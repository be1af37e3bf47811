"""The files a repository tracks, each with the git blob id of its current content.

Read from the git index (no subprocess); a file whose size or mtime differs from its index entry
has been edited since it was staged, so its id is recomputed from the bytes on disk, as git
itself would. Outside a git repository every regular file under the root is listed.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import git

_SKIP_DIRS = {
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
}


@dataclass(frozen=True)
class TrackedFile:
    path: str
    """Repository-relative, forward slashes."""
    blob_id: str


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def tracked_files(root: Path) -> list[TrackedFile]:
    try:
        entries = git.Repo(root).index.entries
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError, OSError):
        return _walk(root)
    out = []
    for (path, stage), entry in sorted(entries.items()):
        if stage not in (0, 2) or entry.mode & 0o170000 != 0o100000:
            continue  # skip conflicts' other stages, submodules and symlinks
        full = root / path
        try:
            st = full.stat()
        except OSError:
            continue  # deleted in the working tree
        sec, nsec = entry.mtime
        if (
            st.st_size == entry.size
            and int(st.st_mtime) == sec
            and st.st_mtime_ns % 1_000_000_000 == nsec
        ):
            out.append(TrackedFile(str(path), entry.hexsha))
        else:
            out.append(TrackedFile(str(path), _hash_file(full)))
    return out


def _hash_file(path: Path) -> str:
    try:
        return blob_id(path.read_bytes())
    except OSError:
        return ""


def _walk(root: Path) -> list[TrackedFile]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if full.is_file() and not full.is_symlink():
                out.append(TrackedFile(full.relative_to(root).as_posix(), _hash_file(full)))
    return out
