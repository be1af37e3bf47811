"""What an executor runs: one (fixture or instance, mode) job, and the run record it returns.

A job is a small picklable value that knows how to run itself wherever an executor puts it
(a local process, a Ray node) and how to describe its own failure when the process running it
died, so no executor has to know fixtures from SWE-bench instances.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from contracts.result import RunResult, Timing

Row = dict[str, Any]


class BenchJob(Protocol):
    @property
    def key(self) -> tuple[str, str]:
        """(fixture or instance name, mode): unique among the jobs of one bench."""
        ...

    def run(self) -> Row:
        """The run record; never raises for anything the run does."""
        ...

    def failed(self, reason: str) -> Row:
        """The record of a job whose process died before it could return one."""
        ...


def run_row(name: str, mode: str, language: str, **fields: Any) -> Row:
    """A run record with every field the report reads; what did not happen stays zero."""
    row: Row = {
        "fixture": name,
        "mode": mode,
        "language": language,
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
        "failed_checks": [],
        "billed_input": 0.0,
        "model_s": 0.0,
    }
    row.update(fields)
    return row


def result_fields(result: RunResult) -> Row:
    """What a run record takes from the run's own result.json."""
    return {
        "claimed_success": result.status == "verified",
        "stop_reason": result.stop_reason,
        "message": result.message,
        "steps": sum(1 for s in result.steps if s.status in ("verified", "done_unverified")),
        "rollbacks": result.rollbacks,
        "revisions": result.revisions,
        "turns": result.model_turns,
        "tokens": result.tokens.model_dump(),  # input, output; the cache figures if reported
        "harness_s": result.harness_s,
        "timing": result.timing.model_dump(),
    }


def model_for(model: str | None, name: str, mode: str) -> str | None:
    """`script:DIR` means one scripted model per job: DIR/<name>.<mode>.json."""
    if model and model.startswith("script:"):
        directory = Path(model.removeprefix("script:"))
        if directory.is_dir():
            return f"script:{directory / f'{name}.{mode}.json'}"
    return model


def absolute_model(model: str | None) -> str | None:
    """A `script:` path made absolute, so a job finds it from any directory on any node."""
    if model and model.startswith("script:"):
        return f"script:{Path(model.removeprefix('script:')).resolve()}"
    return model


class Executor(Protocol):
    """Runs bench jobs somewhere (the local process pool, Ray) and hands back their rows."""

    name: str

    def run(self, jobs: Sequence[BenchJob], on_done: Callable[[Row], None]) -> list[Row]: ...

    def close(self) -> None:
        """Release what the executor started (a local Ray instance); safe to call twice."""
        ...


class ExecutorUnavailable(Exception):
    """The executor cannot start (Ray missing, no cluster at the address): one line, exit 2."""


def ordered(rows: list[Row], jobs: Sequence[BenchJob]) -> list[Row]:
    """Rows in the order of their jobs, whatever order they finished in."""
    index = {job.key: i for i, job in enumerate(jobs)}
    return sorted(rows, key=lambda r: index.get((r["fixture"], r["mode"]), len(index)))
