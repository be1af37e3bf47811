"""A run's private git worktree, on its own branch, inside the user's `.git/`.

The user's working tree is never written: the run starts from the committed HEAD
(uncommitted changes stay where they are, and the run says they exist), and only `.git/`
metadata changes (the worktree, its branch, one line in `.git/info/exclude`; not even the
user's index, which `git status` would otherwise refresh).

A worktree is owned by the process that made it. An owner file next to it records the pid
and that process's start time; a worktree whose owner is gone was left by a killed run and
is removed by the next one (`prune_stale_worktrees`). The owner file is written before the
worktree exists, so there is no moment at which a live run's worktree looks abandoned.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from sandbox.acl import NOBODY_UID, grant_tree
from sandbox.gitcli import GitError, git, git_line, git_ok, split_z
from sandbox.includes import DEPENDENCY_DIRS
from sandbox.owners import owner_gone, read_owner, write_owner
from sandbox.proof_tree import prune_stale_proof_trees

WORKTREES_DIR = "coder-worktrees"
BRANCH_PREFIX = "coder/"
EXCLUDE_LINE = ".coder/"
_OWNER_SUFFIX = ".owner.json"
_ATTEMPTS_SUFFIX = ".attempts"
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
# Checkout inflates every blob: CPU-bound on fast disks, so let git use a few cores for it.
_CHECKOUT = ("-c", f"checkout.workers={min(4, os.cpu_count() or 1)}")


class WorkspaceError(Exception):
    """The repository cannot host a run; the message is one line for the person (exit 2)."""


def new_run_id() -> str:
    """Sortable by start time (UTC), unique enough for concurrent runs: 20261130-043012-a1b2c3."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


@dataclass
class Workspace:
    repo: Path  # the user's repository (its top level); never written except .git metadata
    path: Path  # the worktree: <git common dir>/coder-worktrees/<run-id>
    branch: str  # coder/<run-id>
    base_commit: str
    user_tree_dirty: bool
    detached_head: bool = False
    notes: list[str] = field(default_factory=list)  # one line each, for the person
    shared_uid: int | None = None
    """The uid the worktree is writable for by ACL inheritance (root harness: `nobody`)."""
    owns_branch: bool = True  # False for a resumed run's: its branch is the earlier run's
    _closed: bool = field(default=False, init=False, repr=False)

    @classmethod
    def create(
        cls, repo: Path, run_id: str, *, throwaway: bool = False, branch: str | None = None
    ) -> Workspace:
        """A worktree on a new branch `coder/<run_id>` (or `branch`, under `coder/`: one
        attempt of several, `coder/<run-id>/a2`). `throwaway`: the branch is deleted at the
        end (a `coder plan` session), so a killed owner's branch goes with its worktree."""
        _check_run_id(run_id)
        if branch is not None and not branch.startswith(BRANCH_PREFIX):
            raise WorkspaceError(f"a run's branch is under {BRANCH_PREFIX}, not {branch!r}")
        top, common = _locate(Path(repo))
        base, branch_name = _base(top)
        dirty = _enter(top, common)
        branch = branch or BRANCH_PREFIX + run_id
        if git_ok(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], top):
            raise WorkspaceError(f"branch {branch} already exists; use another run id")
        path, shared_uid = _add_worktree(
            top,
            common,
            run_id,
            ["-b", branch],
            [base],
            made=branch,
            failure="could not create the worktree",
            throwaway=throwaway,
        )
        notes = []
        if branch_name is None:
            notes.append(f"HEAD is detached; the run starts from commit {base[:12]}")
        if dirty:
            notes.append(
                "your working tree has uncommitted changes; the run starts from the last "
                "commit (HEAD) and leaves them untouched"
            )
        return cls(
            repo=top,
            path=path,
            branch=branch,
            base_commit=base,
            user_tree_dirty=dirty,
            detached_head=branch_name is None,
            notes=notes,
            shared_uid=shared_uid,
        )

    @classmethod
    def reopen(cls, repo: Path, run_id: str, branch: str, base_commit: str) -> Workspace:
        """A worktree for run `run_id` on an existing run branch, at the branch's commit: a
        resumed run goes on where the run it resumes stopped."""
        _check_run_id(run_id)
        top, common = _locate(Path(repo))
        if not git_ok(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], top):
            raise WorkspaceError(f"branch {branch} does not exist in {top}")
        dirty = _enter(top, common)
        path, shared_uid = _add_worktree(
            top, common, run_id, [], [branch], made=None, failure=f"could not check out {branch}"
        )
        return cls(
            repo=top,
            path=path,
            branch=branch,
            base_commit=base_commit,
            user_tree_dirty=dirty,
            shared_uid=shared_uid,
            owns_branch=False,
        )

    def close(self) -> None:
        """Remove the worktree and its rolled-back attempt (the branch and its commits stay).
        Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            shutil.rmtree(attempts_dir(self.path), ignore_errors=True)
            _remove_worktree(self.repo, self.path)
        finally:
            _owner_file(self.path).unlink(missing_ok=True)

    def delete_branch(self) -> None:
        """Close, then delete the run's branch: for a run that ends before it began. A
        branch this workspace did not create (a resumed run's) is never deleted."""
        self.close()
        if self.owns_branch:
            git(["branch", "-q", "-D", self.branch], self.repo, check=False)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def attempts_dir(worktree: Path) -> Path:
    """Where a run keeps its rolled-back attempt (`sandbox.attempts`): beside its worktree, so
    it goes with it, at the run's end or when a later run prunes a killed one's."""
    return worktree.with_name(worktree.name + _ATTEMPTS_SUFFIX)


def run_in_progress(repo: Path, run_id: str) -> bool:
    """Whether a live process still owns run `run_id`'s worktree (stale ones are pruned)."""
    top, common = _locate(Path(repo))
    _prune(top, common)
    return (common / WORKTREES_DIR / run_id).exists()


def prune_stale_worktrees(repo: Path) -> list[Path]:
    """Remove worktrees whose owning process is gone; returns the paths removed."""
    return _prune(*_locate(Path(repo)))


def _prune(top: Path, common: Path) -> list[Path]:
    """Run worktrees, and proof trees (`sandbox.proof_tree`), whose owner is gone."""
    prune_stale_proof_trees(top)
    root = common / WORKTREES_DIR
    if not root.is_dir():
        return []
    run_ids = _run_ids(root)
    pruned: list[Path] = []
    for run_id in sorted(run_ids):
        path = root / run_id
        owner = _owner_file(path)
        if not owner_gone(owner):
            continue
        throwaway = _throwaway_branch(owner)
        shutil.rmtree(attempts_dir(path), ignore_errors=True)
        _remove_worktree(top, path, prune=False)
        owner.unlink(missing_ok=True)
        pruned.append(path)
        if throwaway is not None:
            git(["worktree", "prune"], top, check=False)
            git(["branch", "-q", "-D", throwaway], top, check=False)
    if pruned:
        git(["worktree", "prune"], top, check=False)
    return pruned


def _run_ids(root: Path) -> set[str]:
    """The runs coder's directory holds something of: a worktree, an owner file, an attempt."""
    ids = {p.name for p in root.iterdir() if p.is_dir() and not p.name.endswith(_ATTEMPTS_SUFFIX)}
    ids |= {p.name.removesuffix(_OWNER_SUFFIX) for p in root.glob("*" + _OWNER_SUFFIX)}
    ids |= {p.name.removesuffix(_ATTEMPTS_SUFFIX) for p in root.glob("*" + _ATTEMPTS_SUFFIX)}
    return ids


def live_runs(repo: Path) -> tuple[set[str], set[str]]:
    """(run ids, branches) of the runs going on now in `repo` (stale worktrees pruned first):
    every worktree under coder's directory whose owner lives, and the branch each has out."""
    top, common = _locate(Path(repo))
    _prune(top, common)
    root = common / WORKTREES_DIR
    ids = _run_ids(root) if root.is_dir() else set()
    branches = set()
    listing = git(["worktree", "list", "--porcelain"], top).decode("utf-8", errors="replace")
    for line in listing.splitlines():
        if line.startswith("branch refs/heads/"):
            branches.add(line.removeprefix("branch refs/heads/"))
    return ids, branches


def ensure_excluded(common_dir: Path) -> None:
    """Add `.coder/` to the repository's info/exclude once (it holds run outputs)."""
    exclude = common_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    text = exclude.read_text() if exclude.exists() else ""
    if any(
        line.strip() in (".coder", ".coder/", "/.coder", "/.coder/") for line in text.splitlines()
    ):
        return
    separator = "" if not text or text.endswith("\n") else "\n"
    with exclude.open("a") as handle:
        handle.write(f"{separator}{EXCLUDE_LINE}\n")


def _check_run_id(run_id: str) -> None:
    if not _RUN_ID.fullmatch(run_id):
        raise WorkspaceError(f"invalid run id {run_id!r}: use letters, digits, '.', '_', '-'")


def _enter(top: Path, common: Path) -> bool:
    """Ready the repository for another worktree; whether the user's tree is dirty."""
    ensure_excluded(common)
    _prune(top, common)
    return bool(uncommitted_changes(top))


def uncommitted_changes(top: Path) -> list[str]:
    """What `git status` lists in the user's tree (a rename's old path left out), less the
    top's dependency directories git neither tracks nor ignores (a `.venv` made in a
    project without that ignore line): those are the environment, brought into a run's
    view as ignored ones are (sandbox/includes.py), not changes of the user's."""
    status = ["--no-optional-locks", "status", "--porcelain", "-z", "-unormal"]
    entries = iter(split_z(git(status, top)))
    paths = []
    for entry in entries:
        path = entry[3:]
        if entry[:1] in ("R", "C"):
            next(entries, None)  # the path it was renamed or copied from
        if entry[:2] == "??" and _is_environment(top, path):
            continue
        paths.append(path)
    return paths


def _is_environment(top: Path, path: str) -> bool:
    rel = path.rstrip("/")
    return rel in DEPENDENCY_DIRS and (path.endswith("/") or (top / rel).is_dir())


def _add_worktree(
    top: Path,
    common: Path,
    run_id: str,
    before: list[str],
    after: list[str],
    *,
    made: str | None,
    failure: str,
    throwaway: bool = False,
) -> tuple[Path, int | None]:
    """`git worktree add BEFORE <path> AFTER` for run `run_id`, owner file first; on any
    failure (Ctrl-C included) nothing half made is left, not even a branch it made. Returns
    the path and the uid the worktree is shared with by ACL (a root harness: `nobody`)."""
    path = common / WORKTREES_DIR / run_id
    if path.exists():
        raise WorkspaceError(f"{path} already exists; use another run id")
    path.parent.mkdir(parents=True, exist_ok=True)
    owner = _owner_file(path)
    _write_owner(owner, run_id, throwaway=made if throwaway else None)
    shared_uid = None
    try:
        path.mkdir()  # empty, so the ACL is in place before git writes the first file
        if os.geteuid() == 0 and grant_tree(path, NOBODY_UID):
            shared_uid = NOBODY_UID
        git([*_CHECKOUT, "worktree", "add", "-q", *before, str(path), *after], top)
    except BaseException as error:
        _remove_worktree(top, path)
        if made is not None:
            git(["branch", "-q", "-D", made], top, check=False)
        owner.unlink(missing_ok=True)
        if isinstance(error, GitError):
            raise WorkspaceError(f"{failure}: {error}") from None
        raise
    return path, shared_uid


def _locate(repo: Path) -> tuple[Path, Path]:
    """(top level, git common dir), or WorkspaceError saying why `repo` cannot host a run."""
    if not repo.is_dir():
        raise WorkspaceError(f"{repo} is not a directory")
    try:
        bare, in_tree = (
            git(["rev-parse", "--is-bare-repository", "--is-inside-work-tree"], repo)
            .decode()
            .split()
        )
    except (GitError, ValueError):
        raise WorkspaceError(f"{repo} is not a git repository (run `git init` first)") from None
    if bare == "true":
        raise WorkspaceError(f"{repo} is a bare repository; coder needs one with a working tree")
    if in_tree != "true":
        raise WorkspaceError(f"{repo} is inside a .git directory, not a working tree")
    try:
        out = git(
            ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], repo
        )
    except GitError as error:
        raise WorkspaceError(f"{repo}: {error}") from None
    top, common = out.decode("utf-8", errors="surrogateescape").splitlines()[:2]
    return Path(top).resolve(), Path(common).resolve()


def _base(top: Path) -> tuple[str, str | None]:
    """(HEAD commit, current branch or None when detached)."""
    try:
        branch: str | None = git_line(["symbolic-ref", "-q", "--short", "HEAD"], top)
    except GitError:
        branch = None
    try:
        base = git_line(["rev-parse", "--verify", "-q", "HEAD^{commit}"], top)
    except GitError:
        raise WorkspaceError(
            f"{top} has no commits on {branch or 'HEAD'} yet (unborn HEAD); "
            "commit something for the run to start from"
        ) from None
    return base, branch


def _owner_file(path: Path) -> Path:
    return path.with_name(path.name + _OWNER_SUFFIX)


def _write_owner(owner: Path, run_id: str, *, throwaway: str | None = None) -> None:
    if throwaway is not None:
        write_owner(owner, run_id=run_id, throwaway_branch=throwaway)
    else:
        write_owner(owner, run_id=run_id)


def _throwaway_branch(owner: Path) -> str | None:
    """The branch a killed owner would have deleted at its end (a `coder plan` session's)."""
    branch = read_owner(owner).get("throwaway_branch")
    return branch if isinstance(branch, str) and branch.startswith(BRANCH_PREFIX) else None


def _remove_worktree(top: Path, path: Path, *, prune: bool = True) -> None:
    try:
        git(["worktree", "remove", "--force", "--force", str(path)], top)
    except GitError:
        if path.exists():
            shutil.rmtree(path, onerror=_make_writable_and_retry)
        if prune:
            git(["worktree", "prune"], top, check=False)


def _make_writable_and_retry(func, target, _exc_info):  # type: ignore[no-untyped-def]
    """A step may have made directories read-only; the worktree must still go."""
    parent = os.path.dirname(target)
    os.chmod(parent, 0o700)
    if os.path.isdir(target) and not os.path.islink(target):
        os.chmod(target, 0o700)
    func(target)
