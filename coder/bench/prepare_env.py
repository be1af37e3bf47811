"""How an instance's `prepare` command (`npm ci`) runs: the repository's own lifecycle scripts
run with it, so it gets what a confined command gets and no more, short of the network.

It cannot run in the sandbox (it needs the package registry), so it is kept apart by other
means: the environment is the sandbox's secret-free allowlist (sandbox/environment.py), with
only the package managers' own settings and proxies added back, never one that looks like a
credential; HOME is a private directory holding the user's tool configuration without its
credentials (sandbox/toolconfig.py), so a registry set in `~/.npmrc` still counts but its
token does not; npm's cache is one of the bench's own, shared by the prepares of one
`prepare_all` (the user's may not be readable, and a script must not write into it; npm checks
every package it takes from a cache against the lockfile's integrity). When the harness is root, the command runs as `nobody` in a scratch
directory under the system's temporary directory (which `nobody` can reach, unlike a cache
under /root), and the tree is given back to root before the harness copies it into the cache.
Where `nobody` could not run the tools (node under /root/.nvm), it runs as root, and says why.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sandbox.acl import NOBODY_UID
from sandbox.environment import sandbox_environment
from sandbox.passenv import credential_name, credential_value
from sandbox.scratch import sweep_stale
from sandbox.secrets import SecretScan
from sandbox.toolconfig import tool_config

PASSED_PREFIXES = ("npm_config_", "yarn_", "pnpm_", "corepack_")
"""Settings of the package managers a prepare runs (lower-cased name prefixes)."""
PASSED_NAMES = frozenset({"http_proxy", "https_proxy", "no_proxy", "all_proxy"})
SPACE_PREFIX = "coder-prepare-"
NPM_CACHE_PREFIX = "coder-npm-cache-"
"""Scratch directories in the system's temporary directory, `<prefix><pid>-…`: a killed
bench's are swept by the next (sandbox/scratch.py)."""


@dataclass(frozen=True)
class PrepareSpace:
    """Where and how one prepare runs."""

    root: Path
    """The scratch directory: `home/`, `tmp/`, and `tree/` when `uid` is set."""
    env: dict[str, str]
    uid: int | None = None
    """The user the command runs as (`nobody` for a root harness); None: the harness's own."""
    note: str | None = None
    """Why a root harness runs it as root."""
    withheld: tuple[str, ...] = ()
    """Variables of the package managers' that were not passed, as credentials."""

    def tree(self, work: Path) -> Path:
        """Where the checkout is made: in the scratch when another user runs the command
        (it can reach that), else in `work`, the cache's own temporary directory."""
        return self.root / "tree" if self.uid is not None else work / "tree"


@contextmanager
def npm_cache() -> Iterator[Path]:
    """npm's cache for the prepares of one `prepare_all`, removed afterwards."""
    sweep_stale(NPM_CACHE_PREFIX)
    cache = Path(tempfile.mkdtemp(prefix=f"{NPM_CACHE_PREFIX}{os.getpid()}-"))
    try:
        yield cache
    finally:
        shutil.rmtree(cache, ignore_errors=True)


@contextmanager
def prepare_space(command: str, cache: Path) -> Iterator[PrepareSpace]:
    """A scratch directory and environment for one prepare, removed afterwards; `cache`:
    npm's (npm_cache)."""
    sweep_stale(SPACE_PREFIX)
    root = Path(tempfile.mkdtemp(prefix=f"{SPACE_PREFIX}{os.getpid()}-"))
    try:
        home, tmp = root / "home", root / "tmp"
        for directory in (home, tmp):
            directory.mkdir()
        _bring_tool_config(home)
        extra, withheld = _package_manager_settings(os.environ)
        extra["npm_config_cache"] = str(cache)
        extra["npm_config_update_notifier"] = "false"
        env = sandbox_environment(os.environ, extra, home=str(home), tmpdir=str(tmp))
        env.pop("PYTHONPYCACHEPREFIX", None)
        uid, note = _who_runs(command, root, cache)
        if uid is not None:
            own_tree(root, uid)
            own_tree(cache, uid)
        yield PrepareSpace(root, env, uid, note, tuple(withheld))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_prepare(
    space: PrepareSpace, command: str, tree: Path, timeout_s: float
) -> subprocess.CompletedProcess[str]:
    """Run `command` in `tree` as the space says; the tree belongs to the harness again
    afterwards. subprocess.TimeoutExpired when it took too long (all it started is killed)."""
    if space.uid is not None:
        own_tree(tree, space.uid)
    process = subprocess.Popen(
        command,
        shell=True,
        cwd=tree,
        env=space.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
        user=space.uid,
        group=space.uid,
        extra_groups=[] if space.uid is not None else None,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        raise
    finally:
        if space.uid is not None:
            own_tree(tree, os.geteuid(), os.getegid())
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def own_tree(top: Path, uid: int, gid: int | None = None) -> None:
    """Give `top` and everything below it to `uid`, never following a link."""
    gid = uid if gid is None else gid
    os.lchown(top, uid, gid)
    for parent, dirs, files in os.walk(top, followlinks=False):
        for name in (*dirs, *files):
            os.lchown(os.path.join(parent, name), uid, gid)


def _who_runs(command: str, root: Path, cache: Path) -> tuple[int | None, str | None]:
    """(`nobody` for a root harness when it can reach the scratch and run the tools, else
    None; why not)."""
    if os.geteuid() != 0:
        return None, None
    first = command.strip().split()[0] if command.strip() else ""
    tools = (shutil.which(first), shutil.which("node"))
    needed = [root, cache, *(Path(p) for p in tools if p)]
    for path in needed:
        blocked = _blocked(path)
        if blocked is not None:
            return None, (
                f"runs as root in a secret-free environment: {blocked} is out of reach of "
                "other users"
            )
    return NOBODY_UID, None


def _blocked(path: Path) -> Path | None:
    """The first directory on the way to `path` (its target too) that others cannot search."""
    for target in dict.fromkeys((path, Path(os.path.realpath(path)))):
        for parent in reversed(target.parents):
            try:
                if not os.stat(parent).st_mode & stat.S_IXOTH:
                    return parent
            except OSError:
                return parent
    return None


def _package_manager_settings(host: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The package managers' variables and proxies a prepare needs, and the names withheld:
    a name or value that looks like a credential, or holds a secret the harness holds."""
    scan = SecretScan.of_environment(host)
    passed: dict[str, str] = {}
    withheld: list[str] = []
    for name, value in host.items():
        lower = name.lower()
        if not (lower in PASSED_NAMES or lower.startswith(PASSED_PREFIXES)):
            continue
        if credential_name(name) or credential_value(value) or scan.holds(value):
            withheld.append(name)
        else:
            passed[name] = value
    return passed, withheld


def _bring_tool_config(home: Path) -> None:
    """The user's package-manager configuration, without its credentials, in `home`."""
    try:
        real = Path.home()
    except RuntimeError:
        return
    found = tool_config(real)
    try:
        for original, copy in found.copies.items():
            placed = home / original.relative_to(real)
            placed.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(copy, placed)
    finally:
        if found.scratch is not None:
            shutil.rmtree(found.scratch, ignore_errors=True)
