"""What a command under bubblewrap sees: the host read-only, the worktree at the checkout's path.

In order (later mounts shadow earlier ones, see sandbox/mounts.py):
- the host file system read-only, a fresh /dev (with a private /dev/shm) and /proc, with
  /proc/sys read-only (root without capabilities could still write sysctls through it);
- a private, size-capped /tmp holding HOME; empty read-only tmpfs over /run (and a real
  /var/run), where the host's service sockets live, over every home directory
  (sandbox/homes.py), with the toolchains bound back read-only and their credential files
  masked again, and over the repository's other host paths (its git directory, a main
  checkout the run's checkout is a linked worktree of);
- the worktree, writable, at the user's checkout path, so the user's tree is hidden behind it
  and editable installs, venv shebangs and absolute paths resolve to the worktree; over it,
  the checkout's dependency directories (node_modules, .venv, ...), writable through an
  overlay whose writes are thrown away (sandbox/overlay.py), or where the host offers none,
  read-only with a tmpfs over their caches;
- git: the worktree's `.git` file replaced by one naming `/run/coder/git/worktrees/<name>`,
  and at /run/coder/git, read-only, only what the run's worktree needs of the repository's
  git directory (sandbox/gitview.py: no index, stash, reflogs, hooks or other worktrees),
  each config replaced by a copy without credentials (sandbox/gitconfig.py);
  submodule clones borrow their objects from /run/coder/modules/<i>;
- last, /dev/null over every host Unix socket still reachable (sandbox/sockets.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.environment import PYCACHE_DIR
from sandbox.gitconfig import write_scrubbed
from sandbox.gitview import GitDirs, bind_git_dir
from sandbox.mounts import MountPlan
from sandbox.pycview import usable
from sandbox.repo_env import RepoEnvironment

PRIVATE_HOME = Path("/tmp/home")
PRIVATE_TMP = Path("/tmp")
REPORTS_VIEW = PRIVATE_TMP / ".coder-reports"
"""Where a command sees its reports directory (`$CODER_REPORTS`): bound from `scratch/reports`
on the host, so what a runner writes there outlives the private /tmp."""
GIT_VIEW = Path("/run/coder/git")
MODULES_VIEW = Path("/run/coder/modules")
_SMALL_TMPFS = 64 << 20


@dataclass(frozen=True)
class HostFacts:
    """What the view needs to know about the host, found once per sandbox."""

    homes: Sequence[Path] = ()
    tools: Sequence[Path] = ()  # bound back from hidden homes
    credentials: Sequence[Path] = ()  # inside the tools, masked again
    privileged_masks: Sequence[Path] = ()  # shadow-like files, for root without capabilities
    git_configs: Sequence[Path] = ()  # host config files under the git directory
    home: Path | None = None  # the harness user's, where its tool configuration lives
    tool_copies: Mapping[Path, Path] | None = None  # config file -> its scrubbed copy
    tool_binds: Sequence[Path] = ()  # shown read-only as they are (corepack's cache)
    pycache: Path | None = None  # the interpreter's bytecode (sandbox/pycview.py), at the prefix


def covered_roots(facts: HostFacts) -> list[Path]:
    """The tmpfs roots the view puts over the host (their subdirectories are ours)."""
    roots = [PRIVATE_TMP, Path("/run"), *facts.homes]
    if _real_var_run():
        roots.append(Path("/var/run"))
    return roots


def build_view(
    env: RepoEnvironment,
    facts: HostFacts,
    *,
    tmp_bytes: int,
    scratch: Path,
    sockets: Sequence[Path] = (),
    writable: Mapping[Path, Path | None] | None = None,
) -> MountPlan:
    """The mounts for one command; `scratch` is a directory for the synthesized files.
    `writable`: exposed directories (by source) made writable, each with the merged
    overlay to bind (None: bwrap's own `--tmp-overlay`)."""
    plan = MountPlan()
    plan.ro(Path("/"))
    plan.special("dev", Path("/dev"))
    plan.tmpfs(Path("/dev/shm"), perms=0o1777, size=max(tmp_bytes // 4, 1 << 20))
    plan.special("remount-ro", Path("/dev"))
    plan.special("proc", Path("/proc"))
    plan.ro(Path("/proc/sys"))
    if Path("/proc/sysrq-trigger").exists():
        plan.ro(Path("/proc/sysrq-trigger"))
    plan.tmpfs(PRIVATE_TMP, perms=0o1777, size=tmp_bytes)
    plan.dir(PRIVATE_HOME, perms=0o777)
    if facts.pycache is not None and usable(facts.pycache):
        plan.ro(facts.pycache, PRIVATE_TMP / PYCACHE_DIR)
    if (scratch / "reports").is_dir():
        plan.rw(scratch / "reports", REPORTS_VIEW)
    for root in covered_roots(facts):
        if root != PRIVATE_TMP:
            plan.hide(root, size=_SMALL_TMPFS)
    for path in facts.privileged_masks:
        plan.mask(path, is_dir=path.is_dir())
    for path in _other_trees(env, covered_roots(facts)):
        plan.hide(path, size=1 << 20)
    for tool in facts.tools:
        plan.ro(tool)
    for path in facts.credentials:
        plan.mask(path, is_dir=path.is_dir())
    _tool_config(plan, facts)
    _worktree(plan, env, writable or {})
    _git(plan, env, facts, scratch)
    for socket in sockets:
        for inside in plan.visible_at(socket):
            plan.ro(Path("/dev/null"), inside)
    plan.seal()
    return plan


def _tool_config(plan: MountPlan, facts: HostFacts) -> None:
    """The user's tool configuration, scrubbed (sandbox/toolconfig.py), at its own path and
    under the private HOME, whose directories stay writable for the tools."""
    for path in facts.tool_binds:
        plan.ro(path)
    if facts.home is None:
        return
    for original, copy in (facts.tool_copies or {}).items():
        rel = original.relative_to(facts.home)
        plan.ro(copy, original)
        for parent in reversed(rel.parents[:-1]):
            plan.dir(PRIVATE_HOME / parent, perms=0o777)
        plan.ro(copy, PRIVATE_HOME / rel)


def _other_trees(env: RepoEnvironment, covered: Sequence[Path]) -> list[Path]:
    """Host paths of the repository that are not where commands see the worktree: the git
    directory (seen at /run/coder/git instead, with its configs scrubbed), and the main
    checkout when the run's checkout is a linked worktree of it (its untracked files are
    the user's, like the checkout's own)."""
    git = env.git
    if git is None:
        return []
    found: list[Path] = []
    if git.common_dir.name == ".git" and git.common_dir.parent != env.checkout:
        found.append(git.common_dir.parent)
    elif not _under(git.common_dir, [env.checkout]):
        found.append(git.common_dir)
    return [p for p in found if p != Path("/") and not _under(p, covered)]


def _worktree(plan: MountPlan, env: RepoEnvironment, writable: Mapping[Path, Path | None]) -> None:
    checkout = env.checkout
    plan.rw(env.worktree, checkout)
    for exposure in env.exposed:
        inside = checkout / exposure.rel
        if exposure.source not in writable:
            plan.ro(exposure.source, inside)
            continue
        merged = writable[exposure.source]
        if merged is None:
            plan.tmp_overlay(exposure.source, inside)
        else:
            plan.rw(merged, inside)
    overlaid = [checkout / e.rel for e in env.exposed if e.source in writable]
    for cache in env.caches:
        if not _under(checkout / cache, overlaid):
            plan.tmpfs(checkout / cache, perms=0o1777, size=_SMALL_TMPFS * 4)
    for rel in env.masked:
        plan.mask(checkout / rel, is_dir=(checkout / rel).is_dir())


def _git(plan: MountPlan, env: RepoEnvironment, facts: HostFacts, scratch: Path) -> None:
    dot_git = env.worktree / ".git"
    inside = env.checkout / ".git"
    git = env.git
    if (
        git is None
        or git.worktree_dir is None
        or not git.worktree_dir.is_relative_to(git.common_dir)
    ):
        if dot_git.exists() and not dot_git.is_symlink():
            plan.ro(dot_git, inside)  # a command must not plant hooks or point it elsewhere
        return
    name = git.worktree_dir.relative_to(git.common_dir)
    gitfile = _write(scratch / "gitfile", f"gitdir: {GIT_VIEW / name}\n")
    plan.ro(gitfile, inside)
    plan.dir(GIT_VIEW.parent)
    bind_git_dir(plan, GitDirs(git.common_dir, git.worktree_dir), GIT_VIEW, scratch)
    for index, config in enumerate(facts.git_configs):
        copy = scratch / f"config-{index}"
        write_scrubbed(config, copy)  # per command: the config may have changed
        os.chmod(copy, 0o644)
        plan.ro(copy, GIT_VIEW / config.relative_to(git.common_dir))
    for index, module in enumerate(env.submodules):
        alternates = env.worktree / module.rel / ".git" / "objects" / "info" / "alternates"
        if not alternates.is_file() or not module.objects.is_dir():
            continue
        borrowed = MODULES_VIEW / str(index)
        plan.ro(module.objects, borrowed)
        synth = _write(scratch / f"alternates-{index}", f"{borrowed}\n")
        plan.ro(synth, env.checkout / module.rel / ".git" / "objects" / "info" / "alternates")


def git_config_files(env: RepoEnvironment) -> list[Path]:
    """Config files under the git directory that may hold credentials."""
    git = env.git
    if git is None:
        return []
    candidates = [git.common_dir / "config", git.common_dir / "config.worktree"]
    if git.worktree_dir is not None:
        candidates.append(git.worktree_dir / "config.worktree")
    modules = git.common_dir / "modules"
    if modules.is_dir():
        candidates += sorted(modules.glob("**/config"))
    return [c for c in candidates if c.is_file() and c.is_relative_to(git.common_dir)]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


def _under(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _real_var_run() -> bool:
    var_run = Path("/var/run")
    return var_run.is_dir() and not var_run.is_symlink()
