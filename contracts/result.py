"""result.json: the one file a person, the bench and the PR bot read to know how a run ended."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

RunStatus = Literal["verified", "failed", "stopped"]
StopReason = Literal[
    "completed",
    "revisions_exhausted",
    "turn_budget",
    "token_budget",
    "timeout",
    "no_progress",
    "model_error",
    "needs_input",
    "stopped_by_model",
    "interrupted",
    "final_check_failed",
    "rejected_by_user",
]
Mode = Literal["contract", "react", "plan", "reflect"]
InvariantStatus = Literal["passed", "failed", "unverified", "skipped"]
StepStatus = Literal["pending", "verified", "failed", "rolled_back", "done_unverified"]

STATUS_FOR_REASON: dict[str, RunStatus] = {
    "completed": "verified",
    "revisions_exhausted": "failed",
    "final_check_failed": "failed",
    "model_error": "failed",
    "turn_budget": "stopped",
    "token_budget": "stopped",
    "timeout": "stopped",
    "no_progress": "stopped",
    "needs_input": "stopped",
    "stopped_by_model": "stopped",
    "interrupted": "stopped",
    "rejected_by_user": "stopped",
}
PlanSource = Literal["model", "user"]
"""Who wrote a plan version: the planner, or a person (`--plan FILE`, an edit under --approve)."""


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InvariantOutcome(_Out):
    kind: str
    status: InvariantStatus
    detail: str | None = None
    """One line on what was checked, e.g. the command or symbol."""


class StepOutcome(_Out):
    stepId: str
    status: StepStatus
    attempts: int = 0
    invariants: list[InvariantOutcome] = Field(default_factory=list)
    commit: str | None = None


class Tokens(_Out):
    input: int = 0
    """Every prompt token the run sent, cached or not (what budgets count)."""
    output: int = 0
    cache_read: int | None = None
    """Of `input`, the tokens the provider read from its prompt cache; set only when the
    provider reported cache reads or writes (Anthropic, OpenAI), absent otherwise."""
    cache_write: int | None = None
    """Of `input`, the tokens written to the prompt cache (Anthropic bills them at 1.25x)."""
    billed_input: float | None = None
    """`input` as billed, in plain-input tokens: cache reads and writes at their price
    (coder/models/pricing.py); set with the cache figures."""

    @model_serializer(mode="wrap")
    def _without_unreported(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A provider that reports no cache leaves `tokens` as DESIGN has it: input, output."""
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k in ("input", "output")}


class Timing(_Out):
    """Where a run's wall time went, in seconds. The parts add up to `wall_s`."""

    setup_s: float = 0.0
    """Before the first model call, the baseline aside: configuration, the worktree, the
    sandbox probe, the repository map."""
    baseline_s: float = 0.0
    """The test command on the untouched worktree."""
    model_s: float = 0.0
    """Waiting for the model: the latency of every call."""
    tool_commands_s: float = 0.0
    """Commands the model ran with `run`."""
    verification_s: float = 0.0
    """Commands of the step invariants (`tests_pass`, `command_succeeds`)."""
    final_check_s: float = 0.0
    """The test command on the final tree."""
    harness_s: float = 0.0
    """The rest: the harness's own work between those (context, checkpoints, symbol checks,
    commits, rollbacks, outputs)."""


class FinalCheck(_Out):
    command: str | None
    passed: bool
    new_failures: list[str] = Field(default_factory=list)
    """Tests that passed at the base and now fail or did not run (a regression)."""
    detail: str = ""
    timed_out: bool = False
    """The test command hit its time limit and was killed (a hang, or a suite too slow)."""


class BaselineResult(_Out):
    """The repository's test command on the untouched worktree, before the first model call."""

    command: str
    """The test command (as configured; the run may have taken its stop flags out)."""
    exit_code: int | None
    """None when the command timed out."""
    passed: int = 0
    """How many tests passed."""
    failing: list[str] = Field(default_factory=list)
    """The ids of the tests that failed or errored, as the runner names them."""


class PullRequestRecord(_Out):
    """The pull request a `coder ci fix` run worked on, and where its fix went."""

    number: int | None = None
    base: str | None = None
    """The PR's base commit (the `--base` given), when known."""
    head: str
    """The PR's head commit: the run started from it (`base_commit` of the run)."""
    pushed_branch: str | None = None
    pushed_commit: str | None = None
    """Set once the push succeeded."""


CandidateStatus = Literal["verified", "failed", "stopped", "not_run"]
"""An attempt's status: a run's, or `not_run` (stopped before it began: enough attempts had
agreed, the cost bound was reached, or its process died before it wrote a result)."""


class Candidate(_Out):
    """One attempt of a run with `--attempts N`, as the selection saw it."""

    attempt: int
    """1 to N; its branch was `coder/<run-id>/a<attempt>`, its run directory `a<attempt>/`."""
    model: str
    status: CandidateStatus
    stop_reason: str
    tokens: Tokens = Field(default_factory=Tokens)
    wall_s: float = 0.0
    proofs_passed: int = 0
    """Of the other verified candidates' proven regression tests, how many pass on this
    candidate's tree (with their own test files laid over it)."""
    proofs_total: int = 0
    """How many of the other verified candidates' proven tests were run on this tree."""
    changed_lines: int = 0
    """Lines added and removed by its change, against the base."""
    proven: int = 0
    """Its own proven regression tests, the ones run on the others' trees: its steps'
    `tests_fail_before`, or for a run that proved none (react, reflect) the tests it added or
    changed that fail on the base and pass on its tree."""
    selected: bool = False


class RunResult(_Out):
    run_id: str
    status: RunStatus
    stop_reason: StopReason
    mode: Mode
    model: str
    task: str
    base_commit: str
    branch: str
    final_commit: str | None
    steps: list[StepOutcome] = Field(default_factory=list)
    plan_versions: int = 0
    rollbacks: int = 0
    revisions: int = 0
    model_turns: int = 0
    tokens: Tokens = Field(default_factory=Tokens)
    wall_s: float = 0.0
    patch: str = ""
    message: str = ""
    """One line for the person: why the run stopped, or what it verified."""
    final_check: FinalCheck | None = None
    harness_s: float = 0.0
    """The harness's own work after setup, as `timing.harness_s` (kept where readers look)."""
    timing: Timing = Field(default_factory=Timing)
    applied: bool = False
    baseline: BaselineResult | None = None
    """None when there is no test command."""
    pr: PullRequestRecord | None = None
    """Set by the PR bot: which pull request, and where the verified fix was pushed."""
    plan_source: PlanSource | None = None
    """Who wrote the first plan version: "user" when it came from `--plan FILE`."""
    plan_sources: list[PlanSource] = Field(default_factory=list)
    """Who wrote each plan version, in order (an edit under --approve is "user")."""
    resumed_from: str | None = None
    """The run id this run resumed (`coder resume`); its counts include that run's."""
    candidates: list[Candidate] | None = None
    """With `--attempts N`: every attempt, in order, as the selection saw it."""
    selected: int | None = None
    """With `--attempts N`: the attempt whose change `branch` holds; None when none verified."""
