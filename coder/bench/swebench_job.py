"""One SWE-bench instance × mode: a throwaway clone at base_commit, a `coder run`, the grade.

The local clone in DIR is only read: the run works in a local clone of it checked out at
base_commit, in a temporary directory of the node that runs the job. Its objects are hard
links, not borrowed: a `--shared` clone's objects stay in DIR, which confined commands cannot
see (`git` in a step's `run` said "bad object HEAD"). Bad input that only the clone can reveal (no clone, a base_commit it does
not hold, a test_patch that does not apply there) ends the job with one line before any model
call.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coder.bench.attempts import attempt_fields, attempt_models, chosen_dir
from coder.bench.classes import judged
from coder.bench.evidence import gather
from coder.bench.jobs import Row, model_for, result_fields, run_row
from coder.bench.prepare import copy_deps
from coder.bench.swebench import Instance
from sandbox.gitcli import GitError, git, git_ok

if TYPE_CHECKING:
    from contracts.result import RunResult


class InstanceError(Exception):
    """This instance cannot run against the local clones; one line."""


@dataclass(frozen=True)
class InstanceJob:
    instance: Instance
    mode: str
    repos: Path
    model: str | None
    hints: bool = False
    deps: Path | None = None
    """The prepared checkout whose node_modules/ the run's tree gets (instance.prepare)."""
    setup_error: str | None = None
    """Why the instance cannot run (its prepare failed): the row says so, nothing runs."""
    record: Path | None = None
    """Record the model's replies here (a file `--model script:` replays)."""
    attempts: int = 1
    """`--attempts N`: the run is N attempts and a selection (coder.bench.attempts)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.instance.instance_id, self.mode)

    def run(self) -> Row:
        return run_instance(self)

    def failed(self, reason: str) -> Row:
        return _row(self, error=reason)


def run_instance(job: InstanceJob) -> Row:
    from coder.bench.swebench_eval import RESOLVED, UNRESOLVED, evaluate
    from coder.loop.runner import RunOptions, UsageError, run_task

    started = time.monotonic()
    instance = job.instance
    if job.setup_error:
        return _row(job, error=job.setup_error)
    work = Path(tempfile.mkdtemp(prefix=f"coder-swebench-{instance.instance_id}-{job.mode}-"))
    try:
        try:
            repo = prepare_clone(job.repos, instance, work / "repo")
            copy_deps(job.deps, repo)
        except InstanceError as exc:
            return _row(job, error=str(exc), wall_s=round(time.monotonic() - started, 3))
        options = RunOptions(
            repo=repo,
            task=instance.task(job.hints),
            model=model_for(job.model, instance.instance_id, job.mode),
            mode=job.mode,
            out_dir=work / "run",
            record=job.record,
        )
        try:
            if job.attempts > 1:
                result = _with_attempts(options, job)
            else:
                result = run_task(options).result
        except Exception as exc:  # one broken run must not lose the whole report
            kind = "" if isinstance(exc, UsageError) else f"{type(exc).__name__}: "
            return _row(job, error=f"{kind}{exc}", wall_s=round(time.monotonic() - started, 3))
        evaluation = evaluate(
            repo, instance, result.final_commit or instance.base_commit, work, job.deps
        )
        claimed = result.status == "verified"
        resolved = evaluation.status == RESOLVED
        many: dict[str, Any] = {}
        if job.attempts > 1:

            def judge(commit: str | None) -> bool:
                done = evaluate(repo, instance, commit or instance.base_commit, work, job.deps)
                return done.status == RESOLVED

            many = attempt_fields(result, work / "run", judge)
        return _row(
            job,
            **many,
            **result_fields(result),
            resolved=resolved,
            shipped_broken=claimed and evaluation.status == UNRESOLVED,
            wall_s=round(time.monotonic() - started, 3),
            **judged(gather(chosen_dir(work / "run", result), result, repo), resolved),
            evaluation=evaluation.as_json(),
            model_patch=result.patch,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _with_attempts(options: Any, job: InstanceJob) -> RunResult:
    """The run as N attempts, one after another in this job's process, and a selection."""
    from coder.attempts.driver import AttemptsOptions, run_attempts
    from coder.bench.executors import InProcess

    first = model_for(job.model, job.instance.instance_id, job.mode)
    models = attempt_models(Path(str(first).removeprefix("script:")), first, job.attempts)
    many = AttemptsOptions(job.attempts, models=models, executor=InProcess())
    return run_attempts(options, many).result


def prepare_clone(repos: Path, instance: Instance, dest: Path) -> Path:
    """A clone of DIR/owner__name at base_commit, with test_patch known to apply there."""
    source = repos / instance.clone_name
    if not source.is_dir():
        raise InstanceError(f"no clone of {instance.repo} in {repos} (expected {source})")
    if not ((source / ".git").exists() or (source / "objects").is_dir()):
        raise InstanceError(f"{source} is not a git repository")
    base = instance.base_commit
    if not git_ok(["cat-file", "-e", f"{base}^{{commit}}"], source):
        raise InstanceError(f"base_commit {base} is not in {source}")
    try:
        git(["clone", "-q", "--local", "--no-checkout", str(source), str(dest)], dest.parent)
        git(["checkout", "-q", "--detach", base], dest)
    except GitError as exc:
        raise InstanceError(f"cannot clone {source} at {base[:12]}: {exc}") from None
    try:
        git(
            ["apply", "--check", "--whitespace=nowarn", "-"],
            dest,
            stdin=instance.test_patch.encode("utf-8"),
        )
    except GitError as exc:
        raise InstanceError(
            f"test_patch does not apply at base_commit {base[:12]}: {exc}"
        ) from None
    return dest


def _row(job: InstanceJob, **fields: Any) -> Row:
    fields.setdefault("model_patch", "")
    ident = job.instance.instance_id
    return run_row(ident, job.mode, job.instance.language, instance_id=ident, **fields)
