"""Run state (what changes as the run goes) kept apart from the run's fixed settings."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from coder.loop.state.failure_account import FailureAccount
from contracts.result import InvariantOutcome, PlanSource, StepOutcome
from contracts.validation import ValidPlan

if TYPE_CHECKING:
    from coder.verdict.final_check import FullRun


class RunStop(Exception):
    """A fatal condition: the run ends with this stop reason. Never shown to the model."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be, so that ending too writes the run's outputs; the
    run says it was terminated, not interrupted by the user."""


@dataclass(frozen=True)
class Limits:
    max_turns: int = 60
    max_revisions: int = 3
    timeout_s: float = 1800.0
    cmd_timeout_s: float = 120.0
    max_tokens: int = 2_000_000
    max_parse_errors: int = 3
    no_progress_turns: int = 8
    context_tokens: int = 24_000
    """The most any one model call's context may hold; a hard limit the call must fit."""
    max_reply_tokens: int = 4096
    """The longest reply a model call may write (the request's max_tokens)."""
    token_source: str = "defaults"
    """Where the two limits above came from (flags, config, the server's window, defaults)."""
    mask_threshold: int | None = None
    """Context tokens of a phase past which old outputs are masked (default: context_tokens,
    at most 32k); see coder/loop/conversation/context.py."""


def command_timeout(limits: Limits, state: RunState) -> float:
    """A command may run for its own limit, but never past the run's wall-clock timeout."""
    left = limits.timeout_s - state.elapsed()
    return max(1.0, min(limits.cmd_timeout_s, left))


def model_timeout(limits: Limits, state: RunState) -> float:
    """A model call may wait only what is left of the run (the provider bounds it further)."""
    return max(1.0, limits.timeout_s - state.elapsed())


TimePart = Literal[
    "setup_s", "baseline_s", "model_s", "tool_commands_s", "verification_s", "final_check_s"
]


@dataclass
class Spent:
    """Seconds by what they went on (result.json `timing`); the harness's share is the rest."""

    setup_s: float = 0.0
    baseline_s: float = 0.0
    model_s: float = 0.0
    tool_commands_s: float = 0.0
    verification_s: float = 0.0
    final_check_s: float = 0.0

    @contextmanager
    def clock(self, part: TimePart) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            setattr(self, part, getattr(self, part) + time.monotonic() - started)

    def accounted(self) -> float:
        return sum(getattr(self, f.name) for f in fields(self))


@dataclass
class RunState:
    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    replies: int = 0
    """Model calls that came back with a reply: 0 means the model was never reached."""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    """Of input_tokens, what the provider read from its prompt cache."""
    cache_write_tokens: int = 0
    """Of input_tokens, what the provider wrote to its prompt cache."""
    spent: Spent = field(default_factory=Spent)
    plan: ValidPlan | None = None
    plan_version: int = 0
    """The version number of `plan` (versions a person has not approved yet are not in force)."""
    plan_versions: int = 0
    revisions: int = 0
    rollbacks: int = 0
    steps: dict[str, StepOutcome] = field(default_factory=dict)
    step_commits: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)
    """A verified step's finish_step summary: what later steps are told it did."""
    verified: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    idle_turns: int = 0
    failed_calls: dict[str, int] = field(default_factory=dict)
    full_run: FullRun | None = None
    """The last step verification's run of the repository's test command, and its tree."""
    plan_sources: list[PlanSource] = field(default_factory=list)
    """Who wrote each plan version: "model" or "user" (--plan FILE, an edit under --approve)."""
    failures: dict[str, str] = field(default_factory=dict)
    """The last failure account of each step that failed verification."""
    failure_accounts: dict[str, FailureAccount] = field(default_factory=dict)
    """The same accounts check by check, so a retried step is told only the checks its
    revised plan still has (not kept in state.json: a resumed run tells the whole text)."""
    environmental: set[str] = field(default_factory=set)
    """Steps whose last failure was the sandbox's doing (a read-only path, the network), not
    the change's: the revision must not tell the model to change correct code."""
    said_removed: list[str] = field(default_factory=list)
    """Tests react mode's `final_answer` says the task asked to delete or skip: the final
    check does not count them (a plan's steps say it with `tests_removed` invariants)."""
    awaiting_revision: str | None = None
    """A step that failed and was rolled back, until the revision it caused is accepted."""

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def outcome(self, step_id: str) -> StepOutcome:
        if step_id not in self.steps:
            self.steps[step_id] = StepOutcome(stepId=step_id, status="pending")
        return self.steps[step_id]

    def record_checks(self, step_id: str, checks: list[Any], status: str) -> None:
        out = self.outcome(step_id)
        out.invariants = [
            InvariantOutcome(kind=c.kind, status=c.status, detail=c.detail) for c in checks
        ]
        out.status = status  # type: ignore[assignment]
