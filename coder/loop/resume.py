"""`coder resume RUN_DIR`: continue a run that was cut short, or say in one line why not.

A run can be resumed when it was interrupted, timed out, or ran out of turns, tokens or
revisions, and only where it stopped: its repository, its branch at the commit it left, every
verified step's commit still on that branch. The resumed run is a new run (its own id and
directory, `resumed_from` in its result) on the old branch, with the old plan version, the
verified steps kept, the step in progress started again from its checkpoint, and budgets that
count what the old run spent (flags may raise them, never lower them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from coder.loop.apply.apply import is_run_branch
from coder.loop.plan.approval import Reviewer
from coder.loop.run.resume_point import ResumePoint
from coder.loop.runner import RunOptions, RunOutcome, run_task
from coder.loop.state.trace import Listener, read_trace
from coder.loop.state.usage import UsageError
from contracts.result import STATUS_FOR_REASON
from contracts.saved_run import (
    RESUMABLE,
    STATE_FILE,
    SavedRun,
    SavedRunError,
    load_saved_run,
)
from contracts.validation import ValidPlan, validate_plan
from sandbox.gitcli import GitError, git_line, git_ok
from sandbox.workspace import WorkspaceError, run_in_progress

N = TypeVar("N", int, float)


@dataclass
class ResumeOptions:
    run_dir: Path
    model: str | None = None
    base_url: str | None = None
    repo: Path | None = None
    """Where the repository is now, when it moved since the run (default: where it was)."""
    max_turns: int | None = None
    max_revisions: int | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None
    sandbox: str | None = None
    out_dir: Path | None = None
    approve: bool = False
    reviewer: Reviewer | None = None
    ask: Callable[[str], str] | None = None
    listeners: list[Listener] = field(default_factory=list)
    warn: Callable[[str], None] | None = None
    record: Path | None = None
    """Write the resumed part's model replies here as a replayable script."""


def resume_task(options: ResumeOptions) -> RunOutcome:
    run_dir = options.run_dir.resolve()
    saved = _saved(run_dir)
    repo = _repository(saved, run_dir, options.repo)
    _check_resumable(saved, repo)
    _check_branch(saved, repo)
    plan = _plan(saved)
    budgets = _budgets(saved, options)
    if options.out_dir is not None and options.out_dir.resolve() == run_dir:
        raise UsageError("--out names the run being resumed; a resumed run writes a new directory")
    return run_task(
        RunOptions(
            repo=repo,
            task=saved.task,
            task_context=saved.task_context,
            model=options.model or saved.model,
            base_url=options.base_url,
            mode=saved.mode,
            test_cmd=saved.test_cmd,
            sandbox=options.sandbox,  # confinement comes from the command line only
            allow_unverified=saved.allow_unverified,
            out_dir=options.out_dir,
            record=options.record,
            approve=saved.approve or options.approve,
            reviewer=options.reviewer,
            ask=options.ask,
            listeners=options.listeners,
            warn=options.warn,
            resume=ResumePoint(saved, run_dir, plan),
            revise=budgets.revise,
            max_turns=budgets.max_turns,
            max_revisions=budgets.max_revisions,
            max_tokens=budgets.max_tokens,
            timeout_s=budgets.timeout_s,
            cmd_timeout_s=budgets.cmd_timeout_s,
        )
    )


def _saved(run_dir: Path) -> SavedRun:
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: no such run directory")
    try:
        saved = load_saved_run(run_dir)
    except SavedRunError as exc:
        if (run_dir / "trace.jsonl").is_file() and not (run_dir / STATE_FILE).exists():
            raise UsageError(_no_state(run_dir)) from None
        raise UsageError(str(exc)) from None
    if saved.resumed_by:
        raise UsageError(
            f"run {saved.run_id} was already resumed as run {saved.resumed_by}; resume that one"
        )
    if saved.mode != "contract":
        raise UsageError(
            f"run {saved.run_id} is a {saved.mode}-mode run; coder resume continues "
            "contract-mode runs"
        )
    return saved


def _no_state(run_dir: Path) -> str:
    """Why a run directory with a trace has no state.json, as its trace tells it."""
    started = next(
        (e for e in read_trace(run_dir / "trace.jsonl") if e["type"] == "run_started"), {}
    )
    if started.get("session") == "plan":
        return f"{run_dir} is a `coder plan` session (no state.json): there is nothing to resume"
    return (
        f"{run_dir} holds no state.json: the run was killed before it saved its state (nothing "
        "was verified yet), so there is nothing to resume; start it again with coder run"
    )


def _repository(saved: SavedRun, run_dir: Path, given: Path | None) -> Path:
    """The run's repository, from the command line: --repo, else the repository whose
    `.coder/runs/` holds RUN_DIR. What state.json records only has to agree with it (a run is
    resumed in its own repository) and helps the person name it; the repository must hold the
    run's base commit."""
    recorded = Path(saved.repo)
    holder = _top(run_dir.parents[2]) if _in_runs_dir(run_dir) else None
    candidate = _top(given) if given is not None else None
    if given is not None and candidate is None:
        raise UsageError(f"--repo {given} is not a git repository")
    if candidate is not None and holder is not None and candidate != holder:
        raise UsageError(
            f"--repo names {candidate}, but RUN_DIR lies in {holder}; a run is resumed only in "
            "its own repository"
        )
    repo = candidate or holder
    if repo is None:
        raise UsageError(
            f"{run_dir} is not in a repository's .coder/runs/: name the run's repository with "
            f"--repo PATH (the run says it was made in {recorded})"
        )
    where = "--repo names" if candidate is not None else "RUN_DIR lies in"
    home = _top(recorded)
    if home is not None and home != repo:
        raise UsageError(
            f"run {saved.run_id} was made in repository {home}, but {where} {repo}; "
            "a run is resumed only in its own repository"
        )
    if not git_ok(["cat-file", "-e", f"{saved.base_commit}^{{commit}}"], repo):
        raise UsageError(
            f"{repo} does not have run {saved.run_id}'s base commit {saved.base_commit[:12]}: "
            "it is another repository"
        )
    return repo


def _check_resumable(saved: SavedRun, repo: Path) -> None:
    if saved.status == "running":
        try:
            alive = run_in_progress(repo, saved.run_id)
        except WorkspaceError as exc:
            raise UsageError(str(exc)) from None
        if alive:
            raise UsageError(f"run {saved.run_id} is still running; stop it before resuming it")
        return  # killed without a chance to say so: as good as interrupted
    reason = saved.stop_reason or "interrupted"
    if reason in RESUMABLE:
        return
    status = STATUS_FOR_REASON.get(reason, "stopped")
    why = f"{saved.message}" if saved.message else reason
    if reason == "completed":
        raise UsageError(f"run {saved.run_id} verified ({why}); a completed run is not resumed")
    raise UsageError(
        f"run {saved.run_id} ended {status} ({reason}: {why}); only a run that was interrupted, "
        "timed out or ran out of budget is resumed"
    )


def _check_branch(saved: SavedRun, repo: Path) -> None:
    """The branch must be the run's own, `coder/<run-id>` (state.json is data: a branch it
    names, such as `main`, is never worked on), and where the run left it: its verified steps
    exactly as they were."""
    branch = saved.branch
    if not is_run_branch(branch):
        raise UsageError(
            f"{STATE_FILE} of run {saved.run_id!r} names branch {branch!r}, not the run's own "
            "coder/<run-id>; a run is resumed only on its own branch"
        )
    try:
        now = git_line(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], repo)
    except GitError:
        raise UsageError(
            f"run {saved.run_id}'s branch {branch} no longer exists (deleted?); its verified "
            "steps are gone with it, so the run cannot be resumed"
        ) from None
    for step, commit in saved.step_commits.items():
        if step not in saved.verified:
            continue
        if not git_ok(["merge-base", "--is-ancestor", commit, now], repo):
            raise UsageError(
                f"branch {branch} was moved: the commit of verified step {step} "
                f"({commit[:12]}) is no longer on it, so the run cannot be resumed"
            )
    if now != saved.head:
        raise UsageError(
            f"branch {branch} moved since run {saved.run_id} stopped (it is at {now[:12]}, "
            f"the run left it at {saved.head[:12]}); to resume, put it back: "
            f"git branch -f {branch} {saved.head[:12]}"
        )


def _plan(saved: SavedRun) -> ValidPlan | None:
    if saved.plan is None:
        return None
    check = validate_plan(
        saved.plan,
        allow_unverified=saved.allow_unverified,
        known_verified=frozenset(saved.verified),
    )
    if check.plan is None:
        raise UsageError(
            f"run {saved.run_id}'s plan v{saved.plan_version} no longer validates: "
            f"{check.problems[0]}"
        )
    return check.plan


@dataclass(frozen=True)
class Budgets:
    max_turns: int
    max_tokens: int
    timeout_s: float
    max_revisions: int
    revise: bool
    cmd_timeout_s: float


def _budgets(saved: SavedRun, options: ResumeOptions) -> Budgets:
    """The run's budgets (totals), raised where a flag says; one that is spent must be."""
    limits, spent = saved.limits, saved.spent
    turns = _raised("--max-turns", options.max_turns, limits.max_turns, "turns")
    tokens = _raised("--max-tokens", options.max_tokens, limits.max_tokens, "tokens")
    timeout = _raised("--timeout", options.timeout_s, limits.timeout_s, "seconds")
    revise = saved.revise or options.max_revisions is not None
    revisions = _raised(
        "--max-revisions",
        options.max_revisions,
        limits.max_revisions if saved.revise else 0,
        "revisions",
    )
    spent_out: list[tuple[str, float, float, str]] = [
        ("turns", spent.turns, turns, "--max-turns"),
        ("tokens", spent.input_tokens + spent.output_tokens, tokens, "--max-tokens"),
        ("seconds", spent.wall_s, timeout, "--timeout"),
    ]
    if saved.awaiting_revision and not revise:
        raise UsageError(
            f"run {saved.run_id} stopped at a failed step with revisions off (--no-revise); "
            "pass --max-revisions N to resume it with revisions"
        )
    if saved.awaiting_revision:
        spent_out.append(("revisions", spent.revisions, revisions, "--max-revisions"))
    for what, used, budget, flag in spent_out:
        if used >= budget:
            shown = f"{used:.0f}" if isinstance(used, float) else str(used)
            raise UsageError(
                f"run {saved.run_id} has spent {shown} of its {_num(budget)} {what}; "
                f"pass {flag} with more than {shown} to resume it"
            )
    return Budgets(turns, tokens, timeout, revisions, revise, limits.cmd_timeout_s)


def _raised(flag: str, given: N | None, budget: N, what: str) -> N:
    if given is None:
        return budget
    if given < budget:
        raise UsageError(
            f"{flag} {_num(given)} would lower the run's budget of {_num(budget)} {what}; "
            "a resumed run's budgets can only be raised"
        )
    return given


def _num(value: float) -> str:
    return f"{value:g}"


def _top(path: Path) -> Path | None:
    """The repository's top level, or None when `path` is not in a working tree."""
    if not path.is_dir():
        return None
    try:
        return Path(git_line(["rev-parse", "--show-toplevel"], path)).resolve()
    except GitError:
        return None


def _in_runs_dir(run_dir: Path) -> bool:
    return len(run_dir.parents) >= 3 and (
        run_dir.parent.name == "runs" and run_dir.parent.parent.name == ".coder"
    )
