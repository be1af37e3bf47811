"""One fixture × mode in its own temporary directory."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coder.bench.attempts import attempt_fields, attempt_models, chosen_dir
from coder.bench.classes import failure_class, judged
from coder.bench.evidence import gather
from coder.bench.fixtures import Fixture
from coder.bench.jobs import Row, model_for, result_fields, run_row
from coder.bench.layout import lay_out
from sandbox.gitcli import git

if TYPE_CHECKING:
    from contracts.result import RunResult
    from sandbox.confine import CommandResult

ACCEPTANCE_TIMEOUT_S = 120.0
KEEP_ALL_ENV = "CODER_BENCH_KEEP"
"""Set (to anything): every run's directory is kept, not only those that missed expected.json."""
FIXTURE_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": "-p no:cacheprovider"}
"""Fixtures use no third-party plugins of the Python runner; loading the host's costs up to
seconds a run."""


@dataclass(frozen=True)
class FixtureJob:
    fixture: Fixture
    mode: str
    model: str | None
    record: Path | None = None
    """Record the model's replies here (a file `--model script:` replays)."""
    attempts: int = 1
    """`--attempts N`: the run is N attempts and a selection (coder.bench.attempts)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.fixture.name, self.mode)

    def run(self) -> Row:
        return run_one(self.fixture, self.mode, self.model, self.record, self.attempts)

    def failed(self, reason: str) -> Row:
        return _row(self.fixture, self.mode, error=reason)


def run_one(
    fixture: Fixture, mode: str, model: str | None, record: Path | None = None, attempts: int = 1
) -> dict[str, Any]:
    from coder.loop.runner import RunOptions, UsageError, run_task

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=f"coder-bench-{fixture.name}-{mode}-"))
    keep = False
    try:
        repo = _make_repo(fixture, work / "repo")
        options = RunOptions(
            repo=repo,
            task=fixture.spec.task,
            model=model_for(model, fixture.name, mode) or f"script:{fixture.script(mode)}",
            mode=mode,
            test_cmd=fixture.spec.test_cmd,
            out_dir=work / "run",
            command_env=FIXTURE_ENV,
            record=record,
        )
        try:
            if attempts > 1:
                result = _with_attempts(options, fixture, mode, model, attempts)
            else:
                result = run_task(options).result
        except Exception as exc:  # one broken run must not lose the whole report
            kind = "" if isinstance(exc, UsageError) else f"{type(exc).__name__}: "
            error = f"{kind}{exc}"
            return _row(
                fixture,
                mode,
                error=error,
                failure_class=failure_class(None, error),
                wall_s=time.monotonic() - started,
            )
        acceptance = _acceptance(fixture, repo, result.final_commit, work)
        resolved = acceptance.exit_code == 0 and not acceptance.timed_out
        many: dict[str, Any] = {}
        if attempts > 1:
            many = attempt_fields(result, work / "run", lambda c: _accepted(fixture, repo, c, work))
        claimed = result.status == "verified"
        evidence = gather(chosen_dir(work / "run", result), result, repo)
        row = _row(
            fixture,
            mode,
            **result_fields(result),
            resolved=resolved,
            shipped_broken=claimed and not resolved,
            wall_s=round(time.monotonic() - started, 3),
            **judged(evidence, resolved),
            **many,
        )
        expected = fixture.expected(mode) if attempts == 1 else None  # one run's outcome
        unexpected = unexpected_fields(row, expected)
        if unexpected or os.environ.get(KEEP_ALL_ENV):
            keep = True  # the run directory and its repository: enough to find out why
            row.update(unexpected=unexpected, kept=str(work))
            (work / "acceptance.log").write_text(acceptance.output, encoding="utf-8")
        return row
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _acceptance(fixture: Fixture, repo: Path, commit: str | None, work: Path) -> CommandResult:
    """The acceptance command on the tree at `commit` with the acceptance files laid over it."""
    from sandbox.confine import make_sandbox
    from sandbox.repo_env import prepare_tree_environment

    judge = Path(tempfile.mkdtemp(prefix="judge-", dir=work)) / "tree"
    git(["worktree", "add", "--detach", str(judge), commit or "HEAD"], repo)
    try:
        shutil.copytree(fixture.acceptance, judge, dirs_exist_ok=True)
        environment = prepare_tree_environment(
            judge,
            include=_fixture_includes(fixture.repo),
            sandbox_mode="auto",
            test_cmd=fixture.spec.acceptance_cmd,
        )
        sandbox = make_sandbox("auto", judge, environment=environment)
        return sandbox.run(
            fixture.spec.acceptance_cmd,
            cwd=judge,
            timeout_s=ACCEPTANCE_TIMEOUT_S,
            env=FIXTURE_ENV,
        )
    finally:
        git(["worktree", "remove", "--force", str(judge)], repo, check=False)


def _accepted(fixture: Fixture, repo: Path, commit: str | None, work: Path) -> bool:
    done = _acceptance(fixture, repo, commit, work)
    return done.exit_code == 0 and not done.timed_out


def _with_attempts(
    options: Any, fixture: Fixture, mode: str, model: str | None, attempts: int
) -> RunResult:
    """The run as N attempts, one after another in this job's process, and a selection."""
    from coder.attempts.driver import AttemptsOptions, run_attempts
    from coder.bench.executors import InProcess

    default = fixture.script(mode)
    per_job = model_for(model, fixture.name, mode)
    models = attempt_models(default, per_job, attempts)
    many = AttemptsOptions(attempts, models=models, executor=InProcess())
    return run_attempts(options, many).result


def unexpected_fields(row: dict[str, Any], expected: dict[str, object] | None) -> list[str]:
    """The fields of `row` that differ from the fixture's expected outcome (none expected: [])."""
    if not expected:
        return []
    return sorted(k for k, v in expected.items() if row.get(k) != v)


def _row(fixture: Fixture, mode: str, **fields: Any) -> dict[str, Any]:
    return run_row(fixture.name, mode, fixture.spec.language, **fields)


def _make_repo(fixture: Fixture, repo: Path) -> Path:
    shutil.copytree(
        fixture.repo, repo, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    git(["init", "-q", "-b", "main"], repo)
    git(["add", "-A"], repo)
    git(["commit", "-q", "-m", f"fixture {fixture.name}"], repo)
    lay_out(fixture.path, repo, fixture.layout)
    return repo


def _fixture_includes(repo: Path) -> list[str]:
    """The fixture's own `.worktreeinclude` patterns: the acceptance tree needs what the run's
    tree had (a generated `_version.py`), and a fixture shipped here is trusted, unlike the
    `.worktreeinclude` of a tree a pull request made."""
    try:
        lines = (repo / ".worktreeinclude").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
