"""An instance's `prepare` command (e.g. `npm ci`), run once at its base and reused by every run.

The command runs outside the sandbox (it needs the package registry), in a checkout of
base_commit, but it runs the repository's lifecycle scripts, so it gets what a confined command
gets short of the network (coder/bench/prepare_env.py): a secret-free environment, a private
HOME and npm cache, and, for a root harness, the user `nobody`. The checkout is made in a
temporary directory and renamed into the cache, `deps/<instance_id>/`, when it succeeded, with
a stamp naming the command and the commit, so a cache that holds it is used as is: offline,
nothing is fetched. Each run then gets a real copy of its `node_modules/` (`cp -a`: never
links), so nothing a run writes can reach the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from coder.bench.prepare_env import PrepareSpace, npm_cache, prepare_space, run_prepare
from coder.bench.swebench import Instance
from sandbox.gitcli import GitError, git
from sandbox.nofollow import read_beneath, remove_beneath, write_beneath

PREPARE_TIMEOUT_S = 1200.0
STAMP = ".coder-prepared.json"
COPIED = ("node_modules",)
"""What a prepared checkout gives each run's tree."""


@dataclass
class Prepared:
    deps: dict[str, Path] = field(default_factory=dict)
    """instance_id -> the prepared checkout whose node_modules each run gets."""
    errors: dict[str, str] = field(default_factory=dict)
    """instance_id -> why its prepare failed (one line)."""


def local_cache(repos: Path) -> Path:
    """The cache of clones the user named with --repos: keyed by where they are."""
    from coder.bench.shipped import cache_root

    key = hashlib.sha256(str(repos.resolve()).encode()).hexdigest()[:16]
    return cache_root() / f"local-{key}"


def prepare_all(
    instances: Iterable[Instance],
    clones: Path,
    cache: Path,
    say: Callable[[str], None],
    workers: int = 1,
) -> Prepared:
    """Prepare every instance that has a `prepare`; the repositories side by side (`workers`
    at a time), the instances of one repository in order, so that one with the same
    package.json and lockfile as an earlier one gets a copy of its node_modules."""
    groups: dict[str, list[Instance]] = {}
    for instance in instances:
        if instance.prepare:
            groups.setdefault(instance.clone_name, []).append(instance)
    prepared = Prepared()
    if not groups:
        return prepared
    with npm_cache() as npm, ThreadPoolExecutor(max_workers=max(1, workers)) as pool:

        def one_repository(group: list[Instance]) -> Prepared:
            return _prepare_group(group, clones, cache, say, npm)

        for done in pool.map(one_repository, groups.values()):
            prepared.deps.update(done.deps)
            prepared.errors.update(done.errors)
    return prepared


def _prepare_group(
    group: list[Instance], clones: Path, cache: Path, say: Callable[[str], None], npm: Path
) -> Prepared:
    prepared = Prepared()
    installed: dict[str, tuple[str, Path]] = {}
    """install_key -> (instance_id, its prepared checkout): a plain `npm ci` of the same
    package.json and lockfile gives the same node_modules, so it is copied, not run again."""
    for instance in group:
        target = cache / "deps" / instance.instance_id
        try:
            if not _is_prepared(target, instance):
                _prepare(instance, clones, target, say, installed, npm)
        except PrepareError as exc:
            say(f"prepare {instance.instance_id}: {exc}")
            prepared.errors[instance.instance_id] = str(exc)
            continue
        key = install_key(instance.prepare or "", target)
        if key is not None:
            installed.setdefault(key, (instance.instance_id, target))
        prepared.deps[instance.instance_id] = target
    return prepared


_PLAIN_NPM_CI = re.compile(r"npm ci(?:\s+--[\w-]+(?:=[\w.-]+)?)*")
_INSTALL_INPUTS = ("package.json", "package-lock.json", "npm-shrinkwrap.json")


def install_key(command: str, tree: Path) -> str | None:
    """What a plain `npm ci [--flags]` makes node_modules from: the command, package.json and
    the lockfile. None for any other command, and for workspaces (their package.json files
    are inputs too)."""
    if not _PLAIN_NPM_CI.fullmatch(command.strip()):
        return None
    digest = hashlib.sha256(command.strip().encode())
    for name in _INSTALL_INPUTS:
        data = read_beneath(tree, name) or b""
        if name == "package.json" and (not data or b'"workspaces"' in data):
            return None
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


class PrepareError(Exception):
    """The prepare command failed: names the command and its last error line."""


def _stamp(instance: Instance) -> dict[str, str]:
    return {"command": instance.prepare or "", "base_commit": instance.base_commit}


def _is_prepared(target: Path, instance: Instance) -> bool:
    try:
        return bool(json.loads(read_beneath(target, STAMP) or b"") == _stamp(instance))
    except ValueError:
        return False


def _prepare(
    instance: Instance,
    clones: Path,
    target: Path,
    say: Callable[[str], None],
    installed: dict[str, tuple[str, Path]],
    npm: Path,
) -> None:
    command = instance.prepare or ""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{instance.instance_id}-", dir=target.parent))
    try:
        with prepare_space(command, npm) as space:
            tree = space.tree(work)
            _check_out(instance, clones / instance.clone_name, tree, space)
            key = install_key(command, tree)
            same, source_deps = installed.get(key or "", ("", target))
            if same and (source_deps / "node_modules").is_dir():
                _copy_tree(source_deps / "node_modules", tree / "node_modules")
                _settle(tree, work, target, instance)
                say(
                    f"prepare {instance.instance_id}: the same package.json and lockfile as {same}: its node_modules copied"
                )
                return
            say(f"prepare {instance.instance_id}: {command}")
            for line in _notes(space):
                say(f"prepare {instance.instance_id}: {line}")
            started = time.monotonic()
            try:
                done = run_prepare(space, command, tree, PREPARE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise PrepareError(
                    f"`{command}` did not finish in {PREPARE_TIMEOUT_S:.0f}s"
                ) from None
            took = time.monotonic() - started
            if done.returncode != 0:
                raise PrepareError(
                    f"`{command}` failed (exit {done.returncode}, {took:.1f}s): "
                    f"{last_error_line(done.stderr + chr(10) + done.stdout)}"
                )
            _settle(tree, work, target, instance)
            say(f"prepare {instance.instance_id}: done in {took:.1f}s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _check_out(instance: Instance, source: Path, tree: Path, space: PrepareSpace) -> None:
    """base_commit of the clone at `tree`; its objects copied, never hardlinked, when another
    user will own the tree (it could otherwise change the clone's own object files)."""
    links = ["--no-hardlinks"] if space.uid is not None else []
    try:
        git(["clone", "-q", "--no-checkout", *links, str(source), str(tree)], tree.parent)
        git(["checkout", "-q", "--detach", instance.base_commit], tree)
    except GitError as exc:
        raise PrepareError(
            f"cannot check out {instance.base_commit[:12]} of {source}: {exc}"
        ) from None


def _notes(space: PrepareSpace) -> list[str]:
    notes = [space.note] if space.note else []
    if space.withheld:
        notes.append(f"withheld from its environment as credentials: {', '.join(space.withheld)}")
    return notes


def _settle(tree: Path, work: Path, target: Path, instance: Instance) -> None:
    """The prepared tree stamped and put in the cache's place whole (renamed, never half-made;
    a tree made in a scratch elsewhere is first copied into `work`, beside the cache's place).
    The instance's repository may commit the stamp's path as a link: it is replaced, never
    written through."""
    if tree.parent != work:
        subprocess.run(["cp", "-a", str(tree), str(work / "tree")], check=True)
        tree = work / "tree"
    write_beneath(tree, STAMP, json.dumps(_stamp(instance)).encode())
    shutil.rmtree(target, ignore_errors=True)
    tree.rename(target)


def _copy_tree(source: Path, dest: Path) -> None:
    """A real copy (`cp -a`: modes and symlinks inside kept as they are, no hardlinks). A link
    the repository committed at `dest` is removed first: `cp` would copy into its target."""
    if source.is_symlink():
        return
    remove_beneath(dest.parent, dest.name)
    subprocess.run(["cp", "-a", str(source), str(dest)], check=True)


def last_error_line(output: str) -> str:
    """The line that says what went wrong: the last one naming an error (npm's pointer to its
    own log file is not one), else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    lines = [line for line in lines if "complete log of this run" not in line]
    for line in reversed(lines):
        if "err" in line.lower():
            return line[:300]
    return lines[-1][:300] if lines else "it printed nothing"


def copy_deps(deps: Path | None, tree: Path) -> None:
    """A real copy of the prepared `node_modules/` into `tree`, kept out of git's view."""
    if deps is None:
        return
    for name in COPIED:
        if (deps / name).is_dir() and not os.path.lexists(tree / name):
            _copy_tree(deps / name, tree / name)
    exclude = Path(git(["rev-parse", "--git-common-dir"], tree).decode().strip())
    if not exclude.is_absolute():
        exclude = tree / exclude
    info = exclude / "info" / "exclude"
    info.parent.mkdir(parents=True, exist_ok=True)
    text = info.read_text(encoding="utf-8") if info.exists() else ""
    for name in COPIED:
        if f"/{name}/" not in text.splitlines():
            text += ("" if not text or text.endswith("\n") else "\n") + f"/{name}/\n"
    info.write_text(text, encoding="utf-8")
