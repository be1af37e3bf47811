"""The repository's environment in the run's worktree: what the sandbox backends consume.

Computed once per run, after the worktree exists and before the sandbox is made. It records
where commands must see the worktree (the user's checkout path, so editable installs, venv
shebangs and absolute paths in config files resolve to the worktree), the git layout the
view rebuilds, the ignored paths brought in (dependency directories exposed, small files
copied; sandbox/includes.py, sandbox/materialize.py), the submodules checked out offline
(sandbox/submodules.py), and the editable installs that point into the checkout
(sandbox/editables.py), which only the same-path view makes safe to test with.

Everything that can be wrong with the input is checked before anything is written; the
error is one line (exit 2 at the CLI).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.access import denied_below
from sandbox.acl import NOBODY_UID, grants
from sandbox.editables import (
    EditableInstall,
    editable_installs,
    interpreter_prefixes,
    site_packages,
    test_command_venv,
    venv_base_prefix,
)
from sandbox.includes import IncludeError, Selection, find_selections, load_patterns
from sandbox.materialize import place
from sandbox.submodules import Submodule, check_out_submodules
from summarizers.runners.table import RUNNERS

CACHE_DIRS = (".cache", *dict.fromkeys(c for r in RUNNERS for c in r.caches))
"""Directories under an exposed node_modules that tools write to (`.cache`, which many share,
and each runner's own, `Runner.caches`): a throwaway tmpfs each."""


class RepoEnvironmentError(Exception):
    """The repository's environment cannot be set up as asked; one line for the person."""


@dataclass(frozen=True)
class GitLayout:
    common_dir: Path  # the repository's git directory (objects, refs, config)
    worktree_dir: Path | None  # <common>/worktrees/<name> when the root is a linked worktree


@dataclass(frozen=True)
class Exposure:
    rel: str  # where commands see it, relative to the checkout
    source: Path  # the user's copy on the host
    is_dir: bool


@dataclass
class RepoEnvironment:
    checkout: Path
    """Where commands see the worktree: the user's top level (or the root itself)."""
    worktree: Path
    git: GitLayout | None = None
    exposed: list[Exposure] = field(default_factory=list)
    caches: list[str] = field(default_factory=list)  # checkout-relative, under exposed dirs
    masked: list[str] = field(default_factory=list)  # checkout-relative, hidden from commands
    copied: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)  # secret-looking, brought as named
    submodules: list[Submodule] = field(default_factory=list)
    editables: list[EditableInstall] = field(default_factory=list)
    venv: Path | None = None
    prefixes: list[Path] = field(default_factory=list)
    """Interpreter prefixes commands need (bound back when they sit in a hidden home)."""
    shared_uid: int | None = None
    """The uid the worktree's ACL lets write it (root harness: commands run as that uid)."""
    notes: list[str] = field(default_factory=list)
    unverified_warning: str | None = None
    """Said before every command when none mode runs code an editable install misdirects."""

    @property
    def linked(self) -> bool:
        return self.checkout != self.worktree

    def view_path(self, host: Path) -> Path:
        """Where a host path inside the worktree appears to commands."""
        real = Path(os.path.realpath(host))
        if real == self.worktree or real.is_relative_to(self.worktree):
            return self.checkout / real.relative_to(self.worktree)
        return real

    def summary(self) -> dict[str, Any]:
        """For the trace (`environment` event)."""
        return {
            "checkout": str(self.checkout),
            "worktree": str(self.worktree),
            "exposed": [e.rel for e in self.exposed],
            "copied": self.copied,
            "secrets": self.secrets,
            "masked": self.masked,
            "submodules": [{"path": s.rel, "commit": s.commit} for s in self.submodules],
            "editables": [str(e.target) for e in self.editables],
            "venv": str(self.venv) if self.venv else None,
            "notes": self.notes,
        }


def plain_environment(root: Path, shared_uid: int | None = None) -> RepoEnvironment:
    """The environment of a bare root (no run workspace): seen at its own path, or at its
    repository's checkout when it is a linked worktree of one."""
    worktree = Path(os.path.realpath(root))
    layout = git_layout(worktree)
    checkout = _user_checkout(worktree, layout) or worktree
    return RepoEnvironment(checkout=checkout, worktree=worktree, git=layout, shared_uid=shared_uid)


def prepare_environment(
    workspace: Any,
    *,
    include: list[str],
    sandbox_mode: str,
    test_cmd: str | None = None,
    allow_unverified: bool = False,
    source: Path | None = None,
    named_secrets: bool = True,
) -> RepoEnvironment:
    """Bring the checkout's ignored dependencies, included files and submodules into the
    run's worktree (`workspace`: a sandbox.workspace.Workspace) and say what commands see.
    `source`: where the ignored files are, when not in the checkout itself (a throwaway
    clone seen at its own path); `named_secrets=False` refuses even files named exactly
    (a pull request's configuration must not bring the CI checkout's secrets in)."""
    return _prepare(
        Path(os.path.realpath(workspace.repo)),
        Path(os.path.realpath(workspace.path)),
        workspace.shared_uid,
        include=include,
        sandbox_mode=sandbox_mode,
        test_cmd=test_cmd,
        allow_unverified=allow_unverified,
        source=source,
        named_secrets=named_secrets,
    )


def prepare_tree_environment(
    tree: Path,
    *,
    include: list[str],
    sandbox_mode: str,
    test_cmd: str | None = None,
    own_includes: bool = False,
) -> RepoEnvironment:
    """The same for a worktree made outside a run (`coder ci`'s trees of one commit, a run's
    throwaway trees): its checkout is found from git and named secrets never come in. Only
    `include` names what comes in, unless `own_includes`: a run's own tree (a proof's, a
    candidate's) also takes the checkout's `.worktreeinclude`, as the run's worktree did; a
    `coder ci` tree never does (the checkout's file may be a pull request's)."""
    plain = plain_environment(tree)
    return _prepare(
        plain.checkout,
        plain.worktree,
        NOBODY_UID if grants(plain.worktree) else None,
        include=include,
        sandbox_mode=sandbox_mode,
        test_cmd=test_cmd,
        allow_unverified=False,
        source=None,
        named_secrets=False,
        include_file=own_includes,
    )


def _prepare(
    checkout: Path,
    worktree: Path,
    shared_uid: int | None,
    *,
    include: list[str],
    sandbox_mode: str,
    test_cmd: str | None,
    allow_unverified: bool,
    source: Path | None,
    named_secrets: bool,
    include_file: bool = True,
) -> RepoEnvironment:
    origin = Path(os.path.realpath(source)) if source is not None else checkout
    linked = sandbox_mode == "none"
    try:
        patterns = load_patterns(origin, include, include_file=include_file)
        found = find_selections(origin, patterns, named_secrets=named_secrets)
    except IncludeError as error:
        raise RepoEnvironmentError(str(error)) from None
    venv = test_command_venv(test_cmd, origin)
    editables = editable_installs(checkout, site_packages(venv))
    warning = None
    if linked and editables:
        what = f"{editables[0].record.name} points Python at {editables[0].target}"
        if not allow_unverified:
            raise RepoEnvironmentError(
                f"an editable install in your checkout ({what}) would make tests import your "
                "unmodified code without bubblewrap; use --sandbox auto, or pass "
                "--allow-unverified to run anyway"
            )
        warning = f"unverified: {what}, so commands import your checkout, not the worktree"
    notes = list(found.notes)
    if not linked and shared_uid == NOBODY_UID and os.geteuid() == 0:
        found.selections = _readable_by(NOBODY_UID, origin, found.selections, notes)
    try:
        placed = place(found.selections, worktree, linked=linked, masked=set(found.secrets_masked))
    except OSError as error:
        raise RepoEnvironmentError(
            f"could not bring ignored files into the worktree: {error.strerror or error}"
        ) from None
    notes += placed.notes
    exposed = [Exposure(s.rel, s.source, s.is_dir) for s in placed.exposed]
    secrets = [
        s.rel
        for s in found.selections
        if s.secret and s.rel in placed.copied + [e.rel for e in exposed]
    ]
    if secrets:
        notes.append(f"brought in secret-looking file(s) you named: {', '.join(secrets)}")
    submodules = check_out_submodules(origin, worktree, notes)
    missing = _program_left_out(test_cmd, origin, worktree, exposed, placed.copied)
    if missing is not None:  # after the submodules, which may hold it
        raise RepoEnvironmentError(_left_out_message(missing, notes))
    base = venv_base_prefix(venv) if venv else None
    prefixes = [*interpreter_prefixes(), *([base] if base else []), *([venv] if venv else [])]
    return RepoEnvironment(
        checkout=checkout,
        worktree=worktree,
        git=git_layout(worktree),
        exposed=exposed,
        caches=[
            f"{e.rel}/{name}"
            for e in exposed
            if e.is_dir and e.rel.rsplit("/", 1)[-1] == "node_modules"
            for name in CACHE_DIRS
            if (e.source / name).is_dir()
        ],
        masked=[m for m in found.secrets_masked if any(m.startswith(e.rel + "/") for e in exposed)],
        copied=placed.copied,
        secrets=secrets,
        submodules=submodules,
        editables=editables,
        venv=venv,
        prefixes=list(dict.fromkeys(prefixes)),
        shared_uid=shared_uid,
        notes=notes,
        unverified_warning=warning,
    )


def _readable_by(
    uid: int, origin: Path, selections: list[Selection], notes: list[str]
) -> list[Selection]:
    """The included paths the command's user may read on the host (a copy or a bind would
    otherwise hand it what the permissions deny; dependency directories are checked when
    the privileges are chosen, sandbox/privileges.py)."""
    kept: list[Selection] = []
    for selection in selections:
        denied = (
            None
            if selection.origin == "dependency"
            else denied_below(origin, selection.source, uid, uid)
        )
        if denied is None:
            kept.append(selection)
        else:
            where = denied.relative_to(origin).as_posix()
            notes.append(
                f"left out {selection.rel}: commands run as uid {uid}, which may not read "
                f"{where} in your checkout"
            )
    return kept


@dataclass(frozen=True)
class LeftOut:
    program: str  # the test command's first word, as written
    directory: str  # checkout-relative: the part of its path the worktree lacks


def _program_left_out(
    command: str | None,
    checkout: Path,
    worktree: Path,
    exposed: list[Exposure],
    copied: list[str],
) -> LeftOut | None:
    """The test command's program when it is a file of the checkout that the run's worktree
    lacks (neither tracked nor brought in): run there, it could only be "not found"."""
    program = command_program(command)
    if program is None:
        return None
    path = Path(program)
    if path.is_absolute():
        if not path.is_relative_to(checkout):
            return None
        path = path.relative_to(checkout)
    rel = path.as_posix()
    if rel.startswith("../") or not (checkout / rel).exists():
        return None
    brought = [e.rel for e in exposed] + copied
    if any(rel == b or rel.startswith(b + "/") for b in brought) or (worktree / rel).exists():
        return None
    parts = rel.split("/")
    for end in range(1, len(parts) + 1):
        prefix = "/".join(parts[:end])
        if not (worktree / prefix).exists():
            return LeftOut(program, prefix)
    return None


def command_program(command: str | None) -> str | None:
    """The first word of a test command after its `NAME=value` assignments, when it is a
    path (`.venv/bin/python`, `node_modules/.bin/<runner>`); None for a name looked up on PATH."""
    try:
        words = shlex.split(command or "")
    except ValueError:
        return None
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    return words[0] if words and "/" in words[0] else None


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _left_out_message(left: LeftOut, notes: list[str]) -> str:
    why = next((n for n in notes if f"{left.directory} " in n or f"{left.directory}:" in n), None)
    because = f" ({why})" if why else ""
    return (
        f"the test command runs {left.program}, which is in your checkout but not in the run's "
        f"worktree: {left.directory} is neither tracked nor brought in{because}; bring it in "
        f'with include = ["/{left.directory}"] in .coder.toml (or the line /{left.directory} '
        "in .worktreeinclude)"
    )


def git_layout(root: Path) -> GitLayout | None:
    """The git directories behind `root` when it is a linked worktree (`.git` is a file)."""
    dot_git = root / ".git"
    if not dot_git.is_file() or dot_git.is_symlink():
        return None
    try:
        first = dot_git.read_text().splitlines()[0]
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = Path(os.path.realpath(root / first.removeprefix("gitdir:").strip()))
    try:
        common = Path(os.path.realpath(gitdir / (gitdir / "commondir").read_text().strip()))
    except OSError:
        return GitLayout(gitdir, None) if gitdir.is_dir() else None
    if not common.is_dir():
        return None
    return GitLayout(common, gitdir if gitdir != common and gitdir.is_dir() else None)


def _user_checkout(worktree: Path, layout: GitLayout | None) -> Path | None:
    """The user's own top level for a linked worktree: `<top>/.git` is the common dir."""
    if layout is None or layout.worktree_dir is None:
        return None
    common = layout.common_dir
    top = common.parent if common.name == ".git" else None
    if top is None or top == Path("/") or top == worktree or not top.is_dir():
        return None
    return top
