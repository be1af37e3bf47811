"""Taking a verified run's change into the user's working tree (`--apply`, `coder apply RUN_DIR`).

The change was verified against `base_commit` and nothing else, so it is applied only to a tree
that is exactly that commit: HEAD still at the base, no uncommitted changes. Two runs applying
at once could each see a clean base and leave A+B, which was never verified together, so the
check and the apply happen under one lock per repository (an flock in the git common dir). A
change that is not applied is never silent: the person gets one line saying why, and how to
take it anyway.
"""

from __future__ import annotations

import fcntl
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from coder.loop.outputs import save_result
from contracts.result import RunResult
from sandbox.gitcli import GitError, git, git_line, split_z

LOCK_NAME = "coder-apply.lock"
LOCK_WAIT_S = 60.0


class ApplyInputError(Exception):
    """Not a run directory, or one whose repository is gone: one line, exit 2."""


@dataclass(frozen=True)
class ApplyOutcome:
    applied: bool
    line: str
    """What the person is told, one line: applied, or why not and how to take the change."""
    reason: str = ""
    """Why not, short, for result.json's message."""


def apply_run(repo: Path, result: RunResult, run_dir: Path) -> ApplyOutcome:
    """Apply `run_dir/final.patch` to `repo` if the run verified and the tree is exactly the base;
    on success result.json records `applied`."""
    merge = f"`git merge {result.branch}`"
    again = f"`coder apply {run_dir}`"
    if result.applied:
        return _not(f"already applied to {repo}", "already applied")
    if result.status != "verified":
        return _not(
            f"the run did not verify ({result.stop_reason}); the branch {result.branch} holds "
            "what it did",
            "the run did not verify a change",
        )
    patch = run_dir / "final.patch"
    if not result.patch.strip() or not patch.is_file() or patch.stat().st_size == 0:
        return _not("the run verified but changed nothing", "the run changed nothing")
    with _repository_lock(repo) as locked:
        if not locked:
            return _not(
                f"another `coder apply` held the lock for {LOCK_WAIT_S:.0f}s; try {again}",
                "the apply lock was busy",
            )
        head = git_line(["rev-parse", "--verify", "-q", "HEAD^{commit}"], repo)
        if head != result.base_commit:
            return _not(
                f"HEAD moved since the run started (base {result.base_commit[:10]}, now "
                f"{head[:10]}); take it with {merge}",
                "HEAD moved since the base",
            )
        dirty = _changed_paths(repo)
        if dirty:
            shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
            return _not(
                f"your working tree has uncommitted changes ({shown}); commit or stash them, "
                f"then run {again} (or {merge})",
                "your working tree has uncommitted changes",
            )
        try:
            git(["apply", "--check", str(patch)], repo)
            git(["apply", str(patch)], repo)
        except GitError as exc:
            return _not(
                f"the patch does not apply to your tree ({str(exc)[:160]}); take it with {merge}",
                "the patch does not apply cleanly",
            )
    result.applied = True
    result.message += "; applied to your working tree"
    save_result(run_dir, result)
    return ApplyOutcome(True, f"applied to your working tree at {repo} (not committed)")


def take_hint(result: RunResult, run_dir: Path) -> str:
    """For a verified run that was not asked to apply: how to take its change."""
    return f"to take the change: `git merge {result.branch}` or `coder apply {run_dir}`"


def apply_run_dir(run_dir: Path) -> ApplyOutcome:
    """`coder apply RUN_DIR`: the same checks as `--apply`, for a run that has finished."""
    result = load_result(run_dir)
    repo = _run_repository(run_dir)
    try:
        top = Path(git_line(["rev-parse", "--show-toplevel"], repo))
    except GitError:
        raise ApplyInputError(f"{repo}, the run's repository, is not a git repository") from None
    return apply_run(top, result, run_dir.resolve())


def load_result(run_dir: Path) -> RunResult:
    path = run_dir / "result.json"
    if not path.is_file():
        raise ApplyInputError(f"{run_dir} is not a finished run directory (no result.json)")
    try:
        return RunResult.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise ApplyInputError(f"{path}: not a valid result ({where}: {first['msg']})") from None


def _run_repository(run_dir: Path) -> Path:
    """The repository a run worked on: from its trace, else from the default run-dir layout."""
    trace = run_dir / "trace.jsonl"
    if trace.is_file():
        with trace.open("rb") as handle:
            try:
                first = json.loads(handle.readline())
            except (json.JSONDecodeError, UnicodeDecodeError):
                first = None
        if isinstance(first, dict) and isinstance(first.get("repo"), str):
            repo = Path(first["repo"])
            if repo.is_dir():
                return repo
            raise ApplyInputError(f"the run's repository {repo} does not exist any more")
    resolved = run_dir.resolve()
    if resolved.parent.name == "runs" and resolved.parent.parent.name == ".coder":
        return resolved.parent.parent.parent
    raise ApplyInputError(f"{run_dir}: cannot tell which repository the run worked on")


@contextmanager
def _repository_lock(repo: Path) -> Iterator[bool]:
    """Held across check and apply, so two appliers cannot both see the clean base."""
    common = Path(git_line(["rev-parse", "--path-format=absolute", "--git-common-dir"], repo))
    with (common / LOCK_NAME).open("a") as handle:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.05)
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _changed_paths(repo: Path) -> list[str]:
    """Tracked changes and untracked files: an earlier apply's new file counts, or two runs
    that each added a file would both find the tree clean."""
    entries = iter(split_z(git(["--no-optional-locks", "status", "--porcelain", "-z"], repo)))
    paths = []
    for entry in entries:
        paths.append(entry[3:])
        if entry[:1] in ("R", "C"):
            next(entries, None)  # the path it was renamed or copied from
    return paths


def _not(line: str, reason: str) -> ApplyOutcome:
    return ApplyOutcome(False, f"not applied: {line}", reason)
