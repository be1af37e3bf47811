"""One fixture × mode in its own temporary directory, and the pool that runs them all."""

from __future__ import annotations

import multiprocessing
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from coder.bench.classes import caught_by, failure_class
from coder.bench.evidence import RunEvidence, gather
from coder.bench.fixtures import Fixture
from coder.bench.layout import lay_out
from contracts.result import Timing
from sandbox.gitcli import git

ACCEPTANCE_TIMEOUT_S = 120.0
FIXTURE_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": "-p no:cacheprovider"}
"""Fixtures use no third-party pytest plugins; loading the host's costs up to seconds a run."""


def run_one(fixture: Fixture, mode: str, model: str | None) -> dict[str, Any]:
    from coder.loop.runner import RunOptions, UsageError, run_task
    from sandbox.confine import make_sandbox
    from sandbox.repo_env import prepare_tree_environment

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=f"coder-bench-{fixture.name}-{mode}-"))
    try:
        repo = _make_repo(fixture, work / "repo")
        options = RunOptions(
            repo=repo,
            task=fixture.spec.task,
            model=model or f"script:{fixture.script(mode)}",
            mode=mode,
            test_cmd=fixture.spec.test_cmd,
            out_dir=work / "run",
            command_env=FIXTURE_ENV,
        )
        try:
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
        judge = work / "judge"
        git(["worktree", "add", "--detach", str(judge), result.final_commit or "HEAD"], repo)
        shutil.copytree(fixture.acceptance, judge, dirs_exist_ok=True)
        environment = prepare_tree_environment(
            judge, include=[], sandbox_mode="auto", test_cmd=fixture.spec.acceptance_cmd
        )
        sandbox = make_sandbox("auto", judge, environment=environment)
        acceptance = sandbox.run(
            fixture.spec.acceptance_cmd,
            cwd=judge,
            timeout_s=ACCEPTANCE_TIMEOUT_S,
            env=FIXTURE_ENV,
        )
        resolved = acceptance.exit_code == 0 and not acceptance.timed_out
        claimed = result.status == "verified"
        evidence = gather(work / "run", result, repo)
        return _row(
            fixture,
            mode,
            resolved=resolved,
            claimed_success=claimed,
            shipped_broken=claimed and not resolved,
            stop_reason=result.stop_reason,
            steps=sum(1 for s in result.steps if s.status in ("verified", "done_unverified")),
            rollbacks=result.rollbacks,
            revisions=result.revisions,
            turns=result.model_turns,
            tokens={"input": result.tokens.input, "output": result.tokens.output},
            wall_s=round(time.monotonic() - started, 3),
            harness_s=result.harness_s,
            timing=result.timing.model_dump(),
            **judged(evidence, resolved),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _row(fixture: Fixture, mode: str, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "fixture": fixture.name,
        "mode": mode,
        "language": fixture.spec.language,
        "resolved": False,
        "claimed_success": False,
        "shipped_broken": False,
        "stop_reason": "error",
        "steps": 0,
        "rollbacks": 0,
        "revisions": 0,
        "turns": 0,
        "tokens": {"input": 0, "output": 0},
        "wall_s": 0.0,
        "harness_s": 0.0,
        "timing": Timing().model_dump(),
        "failure_class": None,
        "caught_by": None,
        "billed_input": 0.0,
        "model_s": 0.0,
    }
    row.update(fields)
    return row


def judged(evidence: RunEvidence, resolved: bool) -> dict[str, Any]:
    """The row's failure class (runs that did not resolve), what contract mode caught, and
    what the run cost."""
    return {
        "failure_class": None if resolved else failure_class(evidence),
        "caught_by": caught_by(evidence),
        "billed_input": evidence.billed_input,
        "model_s": evidence.model_s,
    }


def run_all(
    fixtures: list[Fixture],
    modes: tuple[str, ...],
    model: str | None,
    workers: int,
    on_done: Callable[[dict[str, Any]], None],
) -> list[dict[str, Any]]:
    jobs = [(f, m) for f in fixtures for m in modes if m not in f.missing]
    rows: list[dict[str, Any]] = []
    if workers <= 1:
        for fixture, mode in jobs:
            rows.append(run_one(fixture, mode, model))
            on_done(rows[-1])
        return _ordered(rows, jobs)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(run_one, f, m, model) for f, m in jobs]
        for future in as_completed(futures):
            rows.append(future.result())
            on_done(rows[-1])
    return _ordered(rows, jobs)


def _ordered(rows: list[dict[str, Any]], jobs: list[tuple[Fixture, str]]) -> list[dict[str, Any]]:
    index = {(f.name, m): i for i, (f, m) in enumerate(jobs)}
    return sorted(rows, key=lambda r: index[(r["fixture"], r["mode"])])


def _make_repo(fixture: Fixture, repo: Path) -> Path:
    shutil.copytree(
        fixture.repo, repo, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    git(["init", "-q", "-b", "main"], repo)
    git(["add", "-A"], repo)
    git(["commit", "-q", "-m", f"fixture {fixture.name}"], repo)
    lay_out(fixture.path, repo, fixture.layout)
    return repo
