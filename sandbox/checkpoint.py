"""Checkpoints before each step, commits after it, and rollbacks that check their own work.

A checkpoint is the HEAD commit of the clean worktree plus the (collapsed) list of ignored
entries that already exist, so a rollback can tell the ignored files a step created (remove)
from the ones earlier steps made (keep). Its cost is two small git calls, run concurrently.

A rollback moves HEAD to the target, applies the plan (the step's `discardPaths`, or every
path the step touched), then asks git again whether each touched path now equals the target.
Anything the plan missed is restored by the harness and the report says `complete=False`.
Every operation is limited to the changed paths; the only whole-tree work is git's own
status scan, which reads file contents only where stat data changed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sandbox.artifacts import MAGIC_PATHSPECS, Artifacts
from sandbox.changes import (
    LIST_IGNORED,
    PathChange,
    WorktreeScan,
    hash_files,
    list_ignored,
    path_batches,
    scan_worktree,
)
from sandbox.gitcli import GitError, git, git_concurrently, git_line, git_ok, join_z, split_z
from sandbox.globs import any_match

_GITLINK = "160000"  # a submodule: a directory in the worktree, not ours to replace
_SYMLINK = "120000"
_HEAD_N = re.compile(r"HEAD~(\d+)")


class RollbackError(Exception):
    """The worktree could not be brought back to the target: the run cannot go on safely."""


class ChangeTooLarge(Exception):
    """The worktree's change is over what one commit may hold; the message says which bound."""


class InvalidRollbackRef(ValueError):
    """A rollbackPlan.gitCheckout that names nothing on the run branch; one line, for the model."""


@dataclass(frozen=True)
class Checkpoint:
    sha: str
    step_id: str
    ignored: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RollbackReport:
    to: str
    paths: list[str]  # every path that differed from the target before the rollback
    complete: bool  # the plan alone restored everything
    restored_by_harness: list[str]  # what the plan missed and the harness restored


class Checkpoints:
    def __init__(
        self,
        workspace_path: Path,
        *,
        max_file_bytes: int | None = None,
        max_change_bytes: int | None = None,
        artifacts: Artifacts | None = None,
    ) -> None:
        self.root = Path(workspace_path)
        self.artifacts = artifacts or Artifacts()
        """What the test runners write into the tree: untracked, they are no change."""
        self.max_file_bytes = max_file_bytes
        """No file larger than this is ever committed (the commands' file size bound)."""
        self.max_change_bytes = max_change_bytes
        """No commit holds more than this in changed files together: `oversized_change`."""
        self.left_out: list[str] = []
        """What the last commit left out for being over it (and took out of the worktree)."""
        self._taken: dict[str, Checkpoint] = {}  # by sha: the latest checkpoint at each commit

    def take(self, step_id: str) -> Checkpoint:
        head, ignored = git_concurrently(
            self.root,
            ["rev-parse", "--verify", "HEAD^{commit}"],
            LIST_IGNORED,
        )
        checkpoint = Checkpoint(head.decode().strip(), step_id, frozenset(split_z(ignored)))
        self._taken[checkpoint.sha] = checkpoint
        return checkpoint

    def changes_since(self, sha: str) -> list[PathChange]:
        """Tracked and untracked changes since `sha` (ignored files are not changes)."""
        head, full = git(["rev-parse", "HEAD", f"{sha}^{{commit}}"], self.root).decode().split()
        changes = scan_worktree(self.root, None if full == head else full).changes
        return [c for c in changes if c.kind != "added" or not self.artifacts.matches(c.path)]

    def oversized_change(self) -> str | None:
        """Why the worktree's change (untracked and modified files, not ignored ones) may not
        be committed: over `max_change_bytes` together, in words; None when it may. Sizes
        from lstat, so checking costs no reading; the files over `max_file_bytes`, which the
        commit leaves out anyway, do not count."""
        if self.max_change_bytes is None:
            return None
        sizes = {
            rel: size
            for rel, size in self._changed_sizes().items()
            if self.max_file_bytes is None or size <= self.max_file_bytes
        }
        total = sum(sizes.values())
        if total <= self.max_change_bytes:
            return None
        largest = sorted(sizes, key=lambda rel: -sizes[rel])[:3]
        named = ", ".join(f"{rel} ({sizes[rel]} bytes)" for rel in largest)
        return (
            f"not committed: the change is {total} bytes in {len(sizes)} files, over the "
            f"bound of {self.max_change_bytes} bytes one step may commit (largest: {named})"
        )

    def patch_since(self, sha: str) -> str:
        """The worktree's change since `sha` as a patch, new untracked files included (ignored
        ones not). Staged in a copy of the index, so the real one is left as it was, with new
        objects written to a throwaway object directory: a change that is rolled back leaves
        nothing in the repository's object store. A change over the commit bound is not
        staged at all: what `oversized_change` says stands in."""
        too_big = self.oversized_change()
        if too_big is not None:
            return f"(not shown: {too_big.removeprefix('not committed: ')})"
        index = self.root / git_line(["rev-parse", "--git-path", "index"], self.root)
        objects = git_line(
            ["rev-parse", "--path-format=absolute", "--git-path", "objects"], self.root
        )
        with tempfile.TemporaryDirectory(prefix="coder-index-") as tmp:
            env = {
                "GIT_INDEX_FILE": str(Path(tmp) / "index"),
                "GIT_OBJECT_DIRECTORY": str(Path(tmp) / "objects"),
                "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects,
            }
            os.mkdir(env["GIT_OBJECT_DIRECTORY"])
            if index.is_file():
                shutil.copyfile(index, env["GIT_INDEX_FILE"])
            git(self._add_all(), self.root, env={**env, **MAGIC_PATHSPECS})
            diff = ["diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", sha]
            patch = git(diff, self.root, env=env)
        return patch.decode("utf-8", errors="replace")

    def commit(self, message: str) -> str:
        """Stage everything and commit, even when nothing changed; returns the new sha.
        A file over `max_file_bytes` is never staged (git would hold all of it in memory):
        it is taken out of the worktree first, back to its committed version if it has one.
        A change over `max_change_bytes` is not committed at all: ChangeTooLarge."""
        self.left_out = self._drop_oversized()
        too_big = self.oversized_change()
        if too_big is not None:
            raise ChangeTooLarge(too_big)
        git(self._add_all(), self.root, env=MAGIC_PATHSPECS)
        git(["commit", "-q", "--allow-empty", "--no-verify", "-m", message], self.root)
        return git_line(["rev-parse", "HEAD"], self.root)

    def intend_to_add(self) -> None:
        """Untracked files (not ignored ones, not runner artifacts) marked intent-to-add in the
        index, so that `git diff` against a commit counts them."""
        add = self._add_all()
        git([*add[:2], "--intent-to-add", *add[2:]], self.root, env=MAGIC_PATHSPECS)

    def _add_all(self) -> list[str]:
        """`git add -A`, leaving out untracked runner artifacts (run with `MAGIC_PATHSPECS`)."""
        if not self.artifacts.patterns:
            return ["add", "-A"]
        untracked = split_z(git(["ls-files", "-z", "--others", "--exclude-standard"], self.root))
        specs = self.artifacts.exclude_pathspecs(untracked)
        return ["add", "-A", "--", ".", *specs] if specs else ["add", "-A"]

    def _changed_sizes(self) -> dict[str, int]:
        """Untracked and modified regular files (not ignored ones, not runner artifacts), by
        size."""
        listed = self.artifacts.without(
            split_z(
                git(["ls-files", "-z", "--others", "--exclude-standard", "--modified"], self.root)
            )
        )
        sizes = {}
        for rel in dict.fromkeys(listed):
            try:
                info = (self.root / rel).lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                sizes[rel] = info.st_size
        return sizes

    def _drop_oversized(self) -> list[str]:
        if self.max_file_bytes is None:
            return []
        limit = self.max_file_bytes
        big = [rel for rel, size in self._changed_sizes().items() if size > limit]
        if big:
            tracked: set[str] = set()
            for batch in path_batches(big):
                tracked |= set(split_z(git(["ls-files", "-z", "--", *batch], self.root)))
            for rel in big:
                (self.root / rel).unlink()
            if tracked:
                git(
                    ["checkout", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul"],
                    self.root,
                    stdin=join_z(sorted(tracked)),
                )
        return big

    def contains(self, commit: str, sha: str) -> bool:
        """Whether `sha` is in the history of `commit` (a rollback to `commit` keeps it)."""
        return git_ok(["merge-base", "--is-ancestor", sha, commit], self.root)

    def rollback(
        self,
        checkpoint: Checkpoint | str,
        target_sha: str,
        discard_paths: Sequence[str] | None = None,
    ) -> RollbackReport:
        """Bring the worktree (and HEAD) back to `target_sha`, an ancestor of HEAD.

        The plan is `discard_paths` (paths or globs) applied to the paths that differ; None
        means all of them, and so does a target further back than the checkpoint (earlier
        steps' commits are dropped, the equivalent of reset --hard plus clean). Ignored
        entries count when they are new since the checkpoint. Given only a sha, the
        checkpoint this object took there supplies that baseline; without one, no ignored
        file is removed, since nothing can tell which ones the step made."""
        if isinstance(checkpoint, str):
            checkpoint = self._recall(checkpoint)
        target = self._move_head_to(target_sha)
        further_back = target != checkpoint.sha and git_ok(
            ["merge-base", "--is-ancestor", target, checkpoint.sha], self.root
        )
        scan = scan_worktree(self.root, with_ignored=True, classify=False)
        touched = scan.touched(checkpoint.ignored)
        if discard_paths is None or further_back:
            plan = touched
        else:
            plan = [p for p in touched if any_match(p, tuple(discard_paths)) is not None]
        self._restore(target, plan, scan)
        missed = self._still_differing(touched, scan)
        if missed:
            self._restore(target, missed, scan)
            left = self._still_differing(touched, scan)
            if left:
                raise RollbackError(
                    f"could not restore {', '.join(left[:5])} to {target[:12]}; "
                    "the worktree no longer matches any checkpoint"
                )
        return RollbackReport(target, touched, not missed, missed)

    def _recall(self, sha: str) -> Checkpoint:
        full = git_line(["rev-parse", "--verify", f"{sha}^{{commit}}"], self.root)
        known = self._taken.get(full)
        if known is not None:
            return known
        return Checkpoint(full, "", list_ignored(self.root))

    def _move_head_to(self, target_sha: str) -> str:
        """Resolve the target and move HEAD (not the files) there; it must be HEAD's ancestor."""
        try:
            if target_sha.startswith("-"):
                raise ValueError(target_sha)
            out = git(["rev-parse", f"{target_sha}^{{commit}}", "HEAD"], self.root)
            target, head = out.decode().split()
        except (GitError, ValueError):
            raise ValueError(f"rollback target {target_sha!r} is not a commit") from None
        if target != head:
            if not git_ok(["merge-base", "--is-ancestor", target, head], self.root):
                raise ValueError(f"rollback target {target[:12]} is not behind HEAD on this branch")
            git(["reset", "-q", "--soft", target], self.root)
        return target

    def _restore(self, target: str, paths: Sequence[str], scan: WorktreeScan) -> None:
        """Make each path what it is in `target` (HEAD, where the scan was taken): check it
        out, or remove it if absent there."""
        if not paths:
            return
        present = scan.base_modes  # the scan was taken with HEAD at the target
        removed = [p for p in paths if p not in present]
        for rel in sorted(removed, reverse=True):
            _remove(self.root, rel)
        unstage = [p for p in removed if p in scan.indexed]
        if unstage:
            git(
                ["rm", "-q", "--cached", "-r", "--ignore-unmatch", "--pathspec-from-file=-"]
                + ["--pathspec-file-nul"],
                self.root,
                stdin=join_z(unstage),
            )
        wanted = [p for p in paths if p in present]
        if not wanted:
            return
        for rel in wanted:
            full = self.root / rel
            if present[rel] != _GITLINK and full.is_dir() and not full.is_symlink():
                _remove(self.root, rel)  # the step put a directory where the target has a file
        try:
            git(
                ["checkout", "-q", target, "--pathspec-from-file=-", "--pathspec-file-nul"],
                self.root,
                stdin=join_z(wanted),
            )
        except GitError:
            pass  # whatever did not come back is caught by the verification that follows

    def _still_differing(self, touched: Sequence[str], scan: WorktreeScan) -> list[str]:
        """The touched paths that do not yet equal the target, checked path by path: absent
        where the target lacks them, else the target's file type, mode and blob id (hashed
        by git, so the repository's filters apply). Costs follow the touched paths only."""
        differing: list[str] = []
        to_hash: list[str] = []
        for rel in touched:
            full = self.root / rel
            mode = scan.base_modes.get(rel)
            if mode is None:
                if os.path.lexists(full):
                    differing.append(rel)
                continue
            if mode == _GITLINK:
                continue
            try:
                info = os.lstat(full)
            except OSError:
                differing.append(rel)
                continue
            if mode == _SYMLINK:
                blob = scan.base_blobs[rel]
                if not stat.S_ISLNK(info.st_mode) or _link_blob(full, blob) != blob:
                    differing.append(rel)
            elif not stat.S_ISREG(info.st_mode) or _file_mode(info) != mode:
                differing.append(rel)
            else:
                to_hash.append(rel)
        try:
            hashes = hash_files(self.root, to_hash)
        except GitError:  # an unreadable file, say: it is not the target's either
            hashes = {}
        differing += [rel for rel in to_hash if hashes.get(rel) != scan.base_blobs[rel]]
        return differing


def resolve_rollback_ref(
    ref: str,
    checkpoint_sha: str,
    step_commits: Mapping[str, str],
    cwd: Path,
    *,
    base_commit: str | None = None,
) -> str:
    """The commit a rollbackPlan.gitCheckout names: HEAD~1 is the checkpoint before the step,
    HEAD~N is N-1 commits before it, step:<id> is the commit of that verified step."""
    text = ref.strip()
    match = _HEAD_N.fullmatch(text)
    if match:
        n = int(match.group(1))
        if n < 1:
            raise InvalidRollbackRef(f"{ref}: use HEAD~N with N >= 1 (HEAD~1 = before this step)")
        rev = checkpoint_sha if n == 1 else f"{checkpoint_sha}~{n - 1}"
        try:
            sha = git_line(["rev-parse", "--verify", "-q", f"{rev}^{{commit}}"], cwd)
        except GitError:
            raise InvalidRollbackRef(f"{ref} goes back further than the branch's history") from None
        if base_commit and not git_ok(["merge-base", "--is-ancestor", base_commit, sha], cwd):
            raise InvalidRollbackRef(
                f"{ref} goes back past the run's base commit {base_commit[:12]}"
            )
        return sha
    if text.startswith("step:"):
        step_id = text.removeprefix("step:")
        if step_id in step_commits:
            return step_commits[step_id]
        known = ", ".join(sorted(step_commits)) or "none yet"
        raise InvalidRollbackRef(f"{ref}: no verified step {step_id!r} (verified: {known})")
    raise InvalidRollbackRef(
        f"{ref!r} is not a rollback target; use HEAD~N (N >= 1, HEAD~1 = the checkpoint "
        "before this step) or step:<stepId>"
    )


def _remove(root: Path, rel: str) -> None:
    """Delete a file, link or directory the target does not have, and emptied parents.
    Failures are left to the verification that follows, which names what is still there."""
    full = root / rel
    try:
        if full.is_dir() and not full.is_symlink():
            shutil.rmtree(full)
        elif os.path.lexists(full):
            full.unlink()
    except OSError:
        return
    parent = full.parent
    while parent != root and parent.is_relative_to(root):
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


def _file_mode(info: os.stat_result) -> str:
    return "100755" if info.st_mode & stat.S_IXUSR else "100644"


def _link_blob(path: Path, like: str) -> str:
    """The object id git gives a symlink (its target text as a blob), in the hash the
    repository uses: SHA-256 when the expected id is 64 hex digits, else SHA-1."""
    target = os.fsencode(os.readlink(path))
    algorithm = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algorithm(b"blob %d\0" % len(target) + target).hexdigest()
