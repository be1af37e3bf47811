"""The interpreter's own bytecode, where Python looks for it under `PYTHONPYCACHEPREFIX`.

Confined commands run with `PYTHONPYCACHEPREFIX` in their private /tmp (sandbox/environment.py)
so that no `.pyc` in the worktree is ever read: an unchecked-hash one, or a timestamp one forged
to match its source's size and time, would make the tests import code other than the worktree's.
With a prefix, Python looks for the bytecode of every module under it, the standard library's
and site-packages' too; finding none there, it compiled them from source on every command
(importing a test runner took 1.7 s instead of 0.5 s, paid by each test run of each step).

This view mirrors the `__pycache__/*.pyc` files of the harness interpreter's standard library
and site-packages, directories no confined command can write, at the paths Python looks for
them under the prefix: one symlink per file. The sandbox mounts it read-only at the prefix.
Nothing of a worktree is in it (a checkout inside those directories gets no view). A link is by
path: bytecode rewritten in place is read as it is now, checked against its source as always;
a removed file falls back to the source; a package installed after the view was built compiles
as before until the next view, keyed by the directories' modification times.

Built once per interpreter and installation into `$XDG_CACHE_HOME/coder/pycview/<key>` (a few
seconds, once); views of other keys older than a day are removed."""

from __future__ import annotations

import hashlib
import os
import shutil
import site
import sys
import sysconfig
import tempfile
import time
from functools import cache
from pathlib import Path

VIEW_DIR = "pycview"
READY = ".ready"
"""Written last: a view without it is being built, or its builder died."""
STALE_S = 24 * 3600


@cache
def interpreter_roots() -> tuple[Path, ...]:
    """The harness interpreter's standard library and site-packages directories, outermost
    only (site-packages usually lies inside the standard library's directory)."""
    found = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    found |= set(site.getsitepackages())
    paths = sorted({Path(p) for p in found if p and os.path.isdir(p)})
    return tuple(p for p in paths if not any(q != p and p.is_relative_to(q) for q in paths))


def overlaps(view_roots: tuple[Path, ...], tree: Path) -> bool:
    """A tree inside one of the roots, or holding one: its bytecode could be in the view."""
    return any(tree.is_relative_to(r) or r.is_relative_to(tree) for r in view_roots)


@cache
def pyc_view() -> Path | None:
    """The view for this interpreter, built on first use; None where it cannot be made (a
    read-only cache directory): commands then compile as before."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "coder" / VIEW_DIR
    try:
        return built_view(base, interpreter_roots())
    except OSError:
        return None


def usable(view: Path | None) -> bool:
    """Still there to be mounted (another harness may have removed an old one)."""
    return view is not None and (view / READY).is_file()


def built_view(base: Path, roots: tuple[Path, ...]) -> Path:
    """The view of `roots` under `base`, built there unless one of the same key is."""
    view = base / _key(roots)
    if usable(view):
        return view
    base.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{view.name}-", dir=base))
    try:
        for root in roots:
            _mirror(root, building)
        for top, _, _ in os.walk(building):
            os.chmod(top, 0o755)  # whatever the umask: commands may run as another user
        (building / READY).write_text(" ".join(str(r) for r in roots) + "\n", encoding="utf-8")
        try:
            building.rename(view)
        except OSError:
            if not usable(view):  # not another builder's finished view: a real failure
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    _remove_stale(base, keep=view)
    return view


def _mirror(root: Path, view: Path) -> None:
    """A link at `view/<dir>/<name>.pyc` to each `<dir>/__pycache__/<name>.pyc` under `root`,
    where Python with `view` as its prefix looks for `<dir>/<name>.py`'s bytecode."""
    for top, dirs, files in os.walk(root):
        if os.path.basename(top) != "__pycache__":
            continue
        dirs.clear()
        into = Path(str(view) + os.path.dirname(top))
        into.mkdir(mode=0o755, parents=True, exist_ok=True)
        for name in files:
            if name.endswith(".pyc") and os.path.isfile(os.path.join(top, name)):
                os.symlink(os.path.join(top, name), into / name)


def _key(roots: tuple[Path, ...]) -> str:
    """The interpreter and the state of its directories: installing a package changes
    site-packages' modification time, and so the key."""
    parts = [sys.implementation.cache_tag or "", sys.executable]
    for root in roots:
        dirs = [root, *(Path(p) for p in site.getsitepackages() if Path(p).is_relative_to(root))]
        parts += [f"{d}:{d.stat().st_mtime_ns}" for d in dirs if d.is_dir()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _remove_stale(base: Path, keep: Path) -> None:
    """Views of other keys (an older installation), and builds a dead builder left, once
    they are a day old."""
    cutoff = time.time() - STALE_S
    for entry in base.iterdir():
        if entry == keep:
            continue
        try:
            if entry.lstat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue
