"""Where coder keeps its own files in a repository (`<repo>/.coder/`), never through a link.

A repository can commit `.coder` (or `.coder/runs`) as a symlink; followed, it would make the
harness write run directories, plans and caches wherever the link points, as whatever user the
harness runs as. Every component under the repository is checked: a real directory, or not
there yet (then created as one).
"""

from __future__ import annotations

import os
from pathlib import Path

from coder.loop.usage import UsageError

CODER_DIR = ".coder"


def coder_path(repo: Path, *parts: str) -> Path:
    """`<repo>/.coder/<parts>`, refused (UsageError) when a component that exists is a symlink
    or not a directory; the last part may be missing or a directory."""
    path = repo
    for name in (CODER_DIR, *parts):
        path = path / name
        if path.is_symlink():
            raise UsageError(
                f"{path} is a symlink (to {os.readlink(path)}); coder keeps its runs under "
                f"{repo / CODER_DIR} and never follows a link there: remove it, or pass --out DIR"
            )
        if path.exists() and not path.is_dir():
            raise UsageError(
                f"{path} is not a directory; coder keeps its runs under {repo / CODER_DIR}: "
                "move it away, or pass --out DIR"
            )
    return path


def cache_dir(repo: Path, *parts: str) -> Path | None:
    """A cache directory under `.coder/`, or None (no cache) when a link is in the way."""
    try:
        return coder_path(repo, "cache", *parts)
    except UsageError:
        return None
