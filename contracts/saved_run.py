"""state.json: what `coder resume` needs to continue a run, written as the run goes.

A run that is interrupted, times out or runs out of budget leaves its branch (one commit per
verified step) and this file. Everything here is the run's own record of itself, so a resume
never has to re-read the trace: the plan version in force, which steps verified and at which
commit, the step in progress and its checkpoint, the budgets and what was spent of them, and
the baseline the steps were judged against.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.readable import loc_path
from contracts.result import PlanSource, StepOutcome, Timing

STATE_FILE = "state.json"
RESUMABLE = frozenset(
    {"interrupted", "timeout", "turn_budget", "token_budget", "revisions_exhausted"}
)
"""Stop reasons a run can be resumed from: it was cut short, not judged."""


class _Saved(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SavedLimits(_Saved):
    """The run's budgets, as totals over the run and every resumption of it."""

    max_turns: int
    max_revisions: int
    timeout_s: float
    cmd_timeout_s: float
    max_tokens: int


class SavedSpent(_Saved):
    """What the run has used of its budgets so far."""

    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    wall_s: float = 0.0
    timing: Timing = Field(default_factory=Timing)
    """The time parts spent so far (`harness_s` is left to the result: the rest of `wall_s`)."""
    plan_versions: int = 0
    revisions: int = 0
    rollbacks: int = 0


class SavedBaseline(_Saved):
    """The baseline test run, without its log: what later runs are judged against."""

    command: str | None
    ran: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    outcomes: dict[str, str] = Field(default_factory=dict)
    messages: dict[str, str] = Field(default_factory=dict)
    incomplete: str | None = None
    removed: list[str] = Field(default_factory=list)
    missing_environment: list[str] = Field(default_factory=list)


class InProgress(_Saved):
    step: str
    checkpoint: str
    """The commit the step started from: where a resume starts it again."""


class SavedRun(_Saved):
    format: Literal[1] = 1
    run_id: str
    repo: str
    """The repository's top level when the run was made."""
    branch: str
    base_commit: str
    head: str
    """The run branch's commit when this was written: a resume requires the branch there."""
    mode: str
    model: str
    task: str
    task_context: str = ""
    test_cmd: str | None = None
    sandbox: str | None = None
    """The --sandbox flag the run was given (None: the repository's config or auto)."""
    allow_unverified: bool = False
    revise: bool = True
    approve: bool = False
    limits: SavedLimits
    spent: SavedSpent = Field(default_factory=SavedSpent)
    status: Literal["running", "ended"] = "running"
    stop_reason: str | None = None
    message: str = ""
    plan: dict[str, Any] | None = None
    """The plan version in force (wire form); None before the first one was accepted."""
    plan_version: int | None = None
    plan_sources: list[PlanSource] = Field(default_factory=list)
    steps: list[StepOutcome] = Field(default_factory=list)
    step_commits: dict[str, str] = Field(default_factory=dict)
    verified: list[str] = Field(default_factory=list)
    in_progress: InProgress | None = None
    awaiting_revision: str | None = None
    """A step that failed and was rolled back; the revision it needs had not been accepted."""
    failures: dict[str, str] = Field(default_factory=dict)
    """The last failure account of each failed step, as the planner and executor saw it."""
    baseline: SavedBaseline | None = None
    resumed_from: str | None = None
    resumed_by: str | None = None
    """Set on the old run's file once a resume took it over: it is not resumed twice."""


class SavedRunError(Exception):
    """state.json is missing or unreadable; one line for the person."""


def load_saved_run(run_dir: Path) -> SavedRun:
    path = run_dir / STATE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SavedRunError(f"{run_dir} is not a run directory (no {STATE_FILE})") from None
    except OSError as exc:
        raise SavedRunError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        return SavedRun.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        raise SavedRunError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = loc_path(tuple(first["loc"])) or "state"
        raise SavedRunError(f"{path} is not a run state ({where}: {first['msg']})") from None


def save_run(run_dir: Path, saved: SavedRun) -> None:
    """Write atomically: a resume must never find half a file."""
    path = run_dir / STATE_FILE
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(saved.model_dump_json(indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
