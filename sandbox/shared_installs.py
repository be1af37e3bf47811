"""Dependency installs shared between checkouts, in directories the person running coder names.

A checkout's `node_modules` (or `.venv`, `venv`) may be a symlink to an install kept outside
it: one `npm ci` serving many checkouts, as coder's own bench and tests share the runners
`scripts/js-runners` installed (coder/bench/layout.py, `share_js_runners`). Commands then see
that install exactly as they would see the checkout's own directory: at the same relative
path, a read-only lower layer under a throwaway upper (sandbox/overlay.py), nothing copied.

A symlink out of the repository is otherwise refused, since it could show commands a host
directory the view hides (a home's `.ssh`). So it may lead only into a directory named in
`CODER_SHARED_INSTALLS` (absolute paths, separated by `:`): the environment of the person who
runs coder, which no repository, pull request or run directory can set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

SHARED_INSTALLS_ENV = "CODER_SHARED_INSTALLS"


def shared_roots(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The directories named in CODER_SHARED_INSTALLS (relative entries and `/` ignored)."""
    value = (os.environ if environ is None else environ).get(SHARED_INSTALLS_ENV, "")
    roots = []
    for entry in value.split(os.pathsep):
        if entry and os.path.isabs(entry):
            root = Path(os.path.realpath(entry))
            if root != Path("/"):
                roots.append(root)
    return roots


def in_shared_install(target: Path) -> bool:
    """Whether `target` (a resolved path) is a directory inside a named shared install."""
    return target.is_dir() and any(
        target == root or target.is_relative_to(root) for root in shared_roots()
    )


def trust_shared_install(path: Path) -> None:
    """Name `path` in CODER_SHARED_INSTALLS for this process and every process it starts."""
    entry = os.path.realpath(path)
    current = os.environ.get(SHARED_INSTALLS_ENV, "")
    if entry not in current.split(os.pathsep):
        os.environ[SHARED_INSTALLS_ENV] = os.pathsep.join(p for p in (current, entry) if p)
