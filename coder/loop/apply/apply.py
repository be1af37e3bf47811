"""Taking a verified run's change into the user's working tree (`--apply`, `coder apply RUN_DIR`).

The change was verified against `base_commit` and nothing else, so it is applied only to a tree
that is exactly that commit: HEAD still at the base, no uncommitted changes, nothing untracked
or ignored where the change writes. Two runs applying at once could each see a clean base and
leave A+B, which was never verified together, so the check and the apply happen under one lock
per repository (an flock in the git common dir). The run's files are data, not authority: the
change is the diff of the run's own branch `coder/<run-id>` against its base, in the
repository the command line names, and only what the run verified: the branch's tip is the
run's final commit, every commit since the base is one the run made, and `final.patch` is
there and equals the branch's diff (a commit added to the branch later, or a final.patch
missing or rewritten, is refused). Whether the change
is applied is judged from the tree every time, and result.json is brought in line with it. A
change that is not applied is never silent: the person gets one line saying what is in the
way and how to take the change anyway.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from coder.loop.apply.applytree import (
    Change,
    change_in_head,
    dry_run,
    holds_change,
    in_the_way,
    read_change,
    remove_stale_indexes,
    switch,
)
from coder.loop.run.outputs import save_result
from contracts.result import RunResult
from sandbox.gitcli import GitError, git, git_line, git_ok, split_z
from sandbox.workspace import uncommitted_changes

LOCK_NAME = "coder-apply.lock"
LOCK_WAIT_S = 60.0
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def is_run_branch(branch: str) -> bool:
    """`coder/<run-id>`: the only branches a run works on (a resumed run keeps the branch of
    the run it continues, so the id may be an earlier run's)."""
    prefix, _, run_id = branch.partition("/")
    return prefix == "coder" and RUN_ID.fullmatch(run_id) is not None


class ApplyInputError(Exception):
    """Not a run directory, one whose files disagree with its branch, or a repository that is
    not the run's: one line, exit 2."""


@dataclass(frozen=True)
class ApplyOutcome:
    applied: bool
    line: str
    """What the person is told, one line: applied, or why not and how to take the change."""
    reason: str = ""
    """Why not, short, for result.json's message."""
    interrupted: str = ""
    """The signal that came while the tree was being switched (held back until it was done)."""


def apply_run(
    repo: Path, result: RunResult, run_dir: Path, announce: Callable[[str], None] | None = None
) -> ApplyOutcome:
    """Take the run's change (its branch against its base) into `repo`'s working tree if the
    run verified and the tree is exactly the base; result.json's `applied` says what the tree
    holds afterwards."""
    if result.status != "verified":
        return _not(
            f"the run did not verify ({result.stop_reason}); the branch {result.branch} holds "
            "what it did",
            "the run did not verify a change",
        )
    change = run_change(repo, result, run_dir)
    if not change.entries:
        return _not("the run verified but changed nothing", "the run changed nothing")
    take = _how_to_take(result, run_dir, repo)
    with _repository_lock(repo) as lock:
        if lock is None:
            return _not(
                f"another `coder apply` held the lock for {LOCK_WAIT_S:.0f}s; try again: "
                f"{take.again}",
                "the apply lock was busy",
            )
        remove_stale_indexes(repo)
        refusal = _judge(repo, result, change, run_dir, take)
        if refusal is not None:
            return refusal
        said = f"applying {len(change.entries)} changed path(s) to {repo}"
        problem, caught = switch(repo, change, lock, lambda: (announce or _quiet)(said))
        applied = holds_change(repo, change)
        _record(run_dir, result, applied)
    names = ", ".join(signal.Signals(sig).name for sig in caught)
    held = f" ({names} came during the switch and waited for it)" if caught else ""
    if applied:
        return ApplyOutcome(
            True, f"applied to your working tree at {repo} (not committed){held}", "", names
        )
    return ApplyOutcome(
        False,
        f"not applied: git refused the switch ({problem}); your tree is as it was; take the "
        f"change with {take.merge}{held}",
        "git refused the switch",
        names,
    )


def run_change(repo: Path, result: RunResult, run_dir: Path) -> Change:
    """The run's change as its own branch holds it, and only what the run verified: the branch
    tip is the run's final commit, every commit since the base is one the run made, and
    final.patch is there and is the branch's diff."""
    branch = result.branch
    if not is_run_branch(branch):
        raise ApplyInputError(
            f"{run_dir}: result.json names branch {branch!r}, not a run's own "
            f"coder/<run-id>; only a run's own branch is taken"
        )
    try:
        tip = git_line(["rev-parse", "--verify", "-q", f"refs/heads/{branch}^{{commit}}"], repo)
    except GitError:
        raise ApplyInputError(
            f"{repo} has no branch {branch}: the run was made in another repository (pass "
            "--repo), or its branch was deleted"
        ) from None
    if tip != result.final_commit:
        raise ApplyInputError(
            f"branch {branch} is at {tip[:10]}, not the run's final commit "
            f"{(result.final_commit or 'none')[:10]}: what was added to it after the run is "
            f"not verified; take the branch yourself with `git merge {branch}` if you trust it"
        )
    base = result.base_commit
    if not git_ok(["merge-base", "--is-ancestor", base, tip], repo):
        raise ApplyInputError(
            f"{run_dir}: result.json's base {base[:12]} is not an ancestor of branch {branch}"
        )
    stranger = _commit_not_the_runs(repo, result.mode, base, tip)
    if stranger:
        raise ApplyInputError(
            f"branch {branch} holds commit {stranger[:10]}, which is not a step the run "
            f"committed (no Coder-Step/Coder-Verified trailers): it is not verified"
        )
    _same_patch(run_dir / "final.patch", git(["diff", "--binary", base, tip], repo), branch)
    return read_change(repo, base, tip)


def _commit_not_the_runs(repo: Path, mode: str, base: str, tip: str) -> str | None:
    """The first commit between base and tip that the run did not make, or None. A contract
    run commits each verified step with `Coder-Step:` and `Coder-Verified:` trailers, the plan
    baseline with `Coder-Step:`; every run's commit subject starts `coder: `."""
    fields = "%x1f".join(
        ["%H", "%s", *(f"%(trailers:key=Coder-{key},valueonly)" for key in ("Step", "Verified"))]
    )
    raw = git(["log", "-z", f"--format={fields}", f"{base}..{tip}"], repo)
    needed = {"contract": (2, 3), "plan": (2,)}.get(mode, ())
    for record in split_z(raw):
        parts = record.split("\x1f")
        if not parts[1].startswith("coder: ") or any(not parts[i].strip() for i in needed):
            return parts[0]
    return None


def _same_patch(patch: Path, on_branch: bytes, branch: str) -> None:
    """final.patch, a regular file, byte for byte the branch's diff against its base."""
    take = f"take the branch with `git merge {branch}` if you trust it"
    try:
        with open(patch, "rb", opener=_no_follow) as handle:
            written = handle.read(len(on_branch) + 1)
    except FileNotFoundError:
        raise ApplyInputError(
            f"{patch} is missing: the change the run verified cannot be checked; {take}"
        ) from None
    except OSError as exc:
        why = "a symlink" if exc.errno == errno.ELOOP else f"unreadable: {exc.strerror}"
        raise ApplyInputError(f"{patch} is {why}; {take}") from None
    if written != on_branch:
        raise ApplyInputError(
            f"{patch} differs from branch {branch}'s diff against its base: it is not the "
            f"change the run verified; {take}"
        )


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


@dataclass(frozen=True)
class _Take:
    merge: str
    cherry_pick: str
    again: str


def _how_to_take(result: RunResult, run_dir: Path, repo: Path) -> _Take:
    return _Take(
        merge=f"`git merge {result.branch}`",
        cherry_pick=f"`git cherry-pick {result.base_commit[:10]}..{result.branch}`",
        again=apply_command(run_dir, repo),
    )


def apply_command(run_dir: Path, repo: Path) -> str:
    """`coder apply RUN_DIR`, with `--repo` when the run directory is not in the repository."""
    inside = run_dir.resolve().is_relative_to(repo.resolve())
    return f"`coder apply {run_dir}`" if inside else f"`coder apply {run_dir} --repo {repo}`"


def _judge(
    repo: Path, result: RunResult, change: Change, run_dir: Path, take: _Take
) -> ApplyOutcome | None:
    """Why the tree cannot take the change now (what changed, how to take it), or None."""
    head = git_line(["rev-parse", "--verify", "-q", "HEAD^{commit}"], repo, check=False)
    if head and change_in_head(repo, change):
        _record(run_dir, result, False)
        return _not(
            f"HEAD ({head[:10]}) already holds the change (branch {result.branch} is merged "
            "or its tree committed); nothing to take",
            "the change is already committed",
        )
    if head != result.base_commit:
        _record(run_dir, result, False)
        return _not(
            f"HEAD moved since the run started (base {result.base_commit[:10]}, now "
            f"{head[:10] or 'no commit'}); take it with {take.merge} (or {take.cherry_pick})",
            "HEAD moved since the base",
        )
    if holds_change(repo, change):
        _record(run_dir, result, True)
        return _not(
            f"already applied: your working tree at {repo} holds the change (uncommitted)",
            "already applied",
        )
    _record(run_dir, result, False)
    dirty = uncommitted_changes(repo)
    if dirty:
        return _not(
            f"your working tree has uncommitted changes ({_few(dirty)}); commit or stash them, "
            f"then run {take.again} (or {take.merge})",
            "your working tree has uncommitted changes",
        )
    blocked = in_the_way(repo, change)
    if blocked:
        return _not(
            f"untracked or ignored paths are where the change writes ({_few(blocked)}); move "
            f"them away, then run {take.again} (or {take.merge})",
            "untracked or ignored paths are in the way",
        )
    problem = dry_run(repo, change)
    if problem:
        return _not(
            f"git would refuse the switch ({problem[:160]}); take it with {take.merge}",
            "the change does not apply cleanly",
        )
    return None


def _record(run_dir: Path, result: RunResult, applied: bool) -> None:
    """result.json says what the tree holds (only when that changed)."""
    if result.applied == applied:
        return
    result.applied = applied
    note = "; applied to your working tree"
    if applied and note not in result.message:
        result.message += note
    elif not applied:
        result.message = result.message.replace(note, "")
    save_result(run_dir, result)


def _few(paths: list[str]) -> str:
    shown = ", ".join(_one_line(p) for p in paths[:3])
    return shown + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _one_line(text: str) -> str:
    return text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text


def _quiet(_line: str) -> None:
    return None


def take_hint(result: RunResult, run_dir: Path, repo: Path) -> str:
    """For a verified run that was not asked to apply: how to take its change."""
    return f"to take the change: `git merge {result.branch}` or {apply_command(run_dir, repo)}"


def apply_run_dir(
    run_dir: Path, repo: Path | None = None, announce: Callable[[str], None] | None = None
) -> ApplyOutcome:
    """`coder apply RUN_DIR [--repo R]`: the same checks as `--apply`, for a finished run, in
    the repository the command line names (`--repo`, else the one RUN_DIR lies in)."""
    result = load_result(run_dir)
    top = _run_repository(run_dir, repo, result)
    return apply_run(top, result, run_dir.resolve(), announce)


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


def _run_repository(run_dir: Path, given: Path | None, result: RunResult) -> Path:
    """The repository to apply to: `--repo`, else the one whose `.coder/runs/` holds RUN_DIR.
    What the run's own files say (the trace's `repo`) only helps the person name it."""
    resolved = run_dir.resolve()
    where = given
    if where is None and resolved.parent.name == "runs" and resolved.parent.parent.name == ".coder":
        where = resolved.parent.parent.parent
    if where is None:
        raise ApplyInputError(
            f"{run_dir} is not in a repository's .coder/runs/; name the repository to apply "
            f"to: coder apply {run_dir} --repo PATH (the run's branch is {result.branch})"
        )
    try:
        return Path(git_line(["rev-parse", "--show-toplevel"], where)).resolve()
    except GitError:
        raise ApplyInputError(f"{where} is not a git repository") from None


@contextmanager
def _repository_lock(repo: Path) -> Iterator[int | None]:
    """Held across check and apply, so two appliers cannot both see the clean base; its file
    descriptor (git holds it through the switch), or None when it stayed busy."""
    common = Path(git_line(["rev-parse", "--path-format=absolute", "--git-common-dir"], repo))
    with (common / LOCK_NAME).open("a") as handle:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield None
                    return
                time.sleep(0.05)
        try:
            yield handle.fileno()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _not(line: str, reason: str) -> ApplyOutcome:
    return ApplyOutcome(False, f"not applied: {line}", reason)
