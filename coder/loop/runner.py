"""One run from start to finish: set up, run the mode, judge, write the outputs, clean up.

Every way a run can end (done, a budget, a model error, Ctrl-C, a crash) goes through the same
`finally`, so the run directory is always complete and the worktree is always removed.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from coder.checks.proofs import removal_reason
from coder.config import (
    ConfigError,
    RepoConfig,
    confinement,
    detect_test_cmd,
    ignored_model,
    load_repo_config,
    repository_limit,
)
from coder.loop.apply.apply import ApplyInputError, ApplyOutcome, apply_run, take_hint
from coder.loop.concurrent_steps import Together, together
from coder.loop.conversation.context import THRESHOLD_CAP, BatchMasking, ContextPolicy
from coder.loop.conversation.known_red import known_red
from coder.loop.conversation.prompts import SYSTEM_RULES
from coder.loop.conversation.turns import Session
from coder.loop.conversation.windows import token_limits
from coder.loop.final_revision import revise_after_final
from coder.loop.modes import MODES
from coder.loop.plan.approval import PlanApproval, Reviewer
from coder.loop.plan.given_plan import load_given_plan
from coder.loop.run.journal import Journal
from coder.loop.run.outputs import save_result, write_outputs
from coder.loop.run.resume_point import ResumePoint
from coder.loop.run.runtime import Runtime
from coder.loop.state.diskfull import Reserve, disk_full, unless_full
from coder.loop.state.rundirs import (
    RunDirTaken,
    cache_dir,
    claim_run_dir,
    coder_path,
    discard_run_dir,
    first_missing,
    refuse_taken,
)
from coder.loop.state.state import Limits, RunState, RunStop, Terminated, command_timeout
from coder.loop.state.trace import Listener, TraceWriter
from coder.loop.state.usage import UsageError
from coder.models.base import Model, ReportsWindow
from coder.models.registry import ConfigError as ModelConfigError
from coder.models.registry import default_model_spec, hosted_api_note, make_model
from coder.models.scripted import ScriptedModel
from coder.tools.textfile import printable
from coder.tools.toolbox import ToolBox
from coder.verdict.base_probe import BaseProbe
from coder.verdict.baseline import (
    Baseline,
    BaselineCut,
    BaselineUnrunnable,
    raised_limit,
    run_baseline,
)
from coder.verdict.final_check import final_check, reusable_run, unchanged_check
from coder.verdict.scoping import artifacts_of, targets_for
from contracts import invariants as inv
from contracts.result import FinalCheck, PullRequestRecord, RunResult
from contracts.saved_run import STATE_FILE
from contracts.validation import ValidPlan
from sandbox.artifacts import Artifacts
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox, SandboxUnavailable, make_sandbox
from sandbox.environment import NamedEnv
from sandbox.gitcli import GitError, git_line
from sandbox.limits import Limits as CommandLimits
from sandbox.passenv import PassedEnv, PassEnvError, passed_environment
from sandbox.policy import PathPolicy
from sandbox.repo_env import RepoEnvironment, RepoEnvironmentError, prepare_environment
from sandbox.secrets import SecretScan
from sandbox.setup import SetupFailed, run_setup
from sandbox.workspace import Workspace, WorkspaceError, new_run_id, prune_stale_worktrees
from sandbox.wrapper import EnvSandbox
from summarizers.repomap import RepoMapCache, build_repo_map
from summarizers.runners.model import Target


@dataclass
class RunOptions:
    repo: Path
    task: str
    model: str | None = None
    mode: str = "contract"
    test_cmd: str | None = None
    max_revisions: int | None = None
    max_turns: int | None = None
    timeout_s: float | None = None
    cmd_timeout_s: float | None = None
    max_tokens: int | None = None
    sandbox: str | None = None
    out_dir: Path | None = None
    apply: bool = False
    allow_unverified: bool = False
    allow_no_tests: bool = False
    base_url: str | None = None
    record: Path | None = None
    ask: Callable[[str], str] | None = None
    listeners: list[Listener] = field(default_factory=list)
    warn: Callable[[str], None] | None = None
    run_id: str | None = None
    context_tokens: int | None = None
    """The most one model call's context may hold (default: from the server's window)."""
    max_reply_tokens: int | None = None
    """The longest reply one model call may write (default: from the server's window)."""
    mask_threshold: int | None = None
    context_policy: ContextPolicy | None = None
    """What each model call sees of its phase; None: BatchMasking from the limits."""
    always_protected: list[str] = field(default_factory=list)
    """Globs protected whatever the repository's config says (the PR bot protects .github/**)."""
    command_env: dict[str, str] = field(default_factory=dict)
    """Extra environment for every confined command (secrets are still stripped)."""
    command_limits: CommandLimits | None = None
    """Memory, file size and growth bounds per command (never from repository config)."""
    environment_from: Path | None = None
    """Where the ignored dependencies are, when `repo` is a throwaway clone of a checkout."""
    named_secrets: bool = True
    """Whether secret-looking files named in `include` come in (never for a PR's config)."""
    task_context: str = ""
    """Background the plan and revise briefings show with the task, e.g. the pull request the
    PR bot is fixing; kept apart from the task so the task stays what was asked."""
    pr: PullRequestRecord | None = None
    """The pull request this run works on (the PR bot), recorded in result.json."""
    plan_file: Path | None = None
    """A plan a person wrote: validated before anything, then run instead of the plan phase."""
    revise: bool = True
    """False (--no-revise): a step that fails verification ends the run."""
    approve: bool = False
    """Show every plan version to a person before it runs (--approve)."""
    reviewer: Reviewer | None = None
    """Who approves under --approve: the terminal; None when there is none."""
    resume: ResumePoint | None = None
    """Set by `coder resume`: the run this one continues (its branch, plan, steps, budgets)."""
    pass_env: list[str] = field(default_factory=list)
    """`--env NAME`: host variables every command sees, secret-looking ones too (named exactly)."""
    jobs: int | None = None
    """`--jobs J`: up to J ready steps at once, each in a worktree of its own (contract mode,
    a model that is not a script: a script's turns come in order, whatever is asked)."""
    branch: str | None = None
    """The branch to work on, when not `coder/<run-id>`: one of several attempts'
    (`coder/<run-id>/a<i>`, coder.attempts)."""
    session: Literal["run", "plan"] = "run"
    """"plan" for `coder plan`: the plan phase alone, on a branch it throws away; in the
    trace's run_started, for the progress line and `coder show`."""


@dataclass(frozen=True)
class RunOutcome:
    result: RunResult
    run_dir: Path
    take: str | None = None
    """One line on the change: applied, why it was not, or how to take it; None when the run
    has no verified change to offer."""


def run_task(options: RunOptions) -> RunOutcome:
    (rt, workspace, result), run_dir = open_run(options, _drive)
    if rt.state.replies == 0 and workspace.owns_branch:
        _drop_branch(workspace, result, run_dir)
        return RunOutcome(result, run_dir, NOTHING_DONE)
    return RunOutcome(result, run_dir, take_change(workspace.repo, result, run_dir, options.apply))


PLANNED_MODES = ("contract", "plan")
"""The modes that run a plan: the ones a plan can be given to, approved in, or revised in."""
T = TypeVar("T")
Drive = Callable[[Runtime, Workspace, str, RunOptions], T]
"""What happens in a run once it is set up: `coder run`'s modes, or `coder plan`'s plan only."""


def _passed_env(options: RunOptions, config: RepoConfig | None) -> PassedEnv:
    """`--env` and the repository's `pass_env`, judged with the harness's own secret scanner;
    a name that is no variable's name is bad input."""
    try:
        return passed_environment(
            os.environ,
            config_names=(config.pass_env if config else None) or [],
            cli_names=options.pass_env,
            scanner=lambda secrets: SecretScan(secrets).holds,
        )
    except PassEnvError as exc:
        raise UsageError(str(exc)) from None


def open_run(options: RunOptions, drive: Drive[T]) -> tuple[T, Path]:
    """Set a run up (config, model, workspace, sandbox), let `drive` run it, take it down.
    Bad input raises UsageError before anything exists."""
    started = time.monotonic()  # the run's wall time, setup included
    if options.mode not in MODES:
        raise UsageError(f"unknown mode {options.mode!r}; choose one of {', '.join(MODES)}")
    if not options.task.strip():
        raise UsageError("the task is empty; pass --task TEXT")
    options = replace(options, task=printable(options.task))  # argv may hold undecodable bytes
    repo = top_level(options.repo.resolve())
    try:
        config = load_repo_config(repo) if repo.is_dir() else None
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    passed = _passed_env(options, config)
    given = _given_plan(options, repo)
    model_spec, model = _model(options)
    settings = [note] if (note := ignored_model(config)) else []  # what it may not set
    limits = _limits(options, config, model, settings)
    run_id = options.run_id or new_run_id()
    run_dir = options.out_dir.resolve() if options.out_dir else coder_path(repo, "runs", run_id)
    fresh = first_missing(run_dir)
    if options.out_dir is not None:
        try:
            options.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--out {options.out_dir}: {exc.strerror or exc}") from None
        refuse_taken(run_dir)
    mode, protected, warnings = confinement(
        config, sandbox_flag=options.sandbox, always_protected=options.always_protected
    )
    settings += warnings
    for warning in settings:
        _warn(options, warning)
    try:
        prune_stale_worktrees(repo)
        if options.resume is not None:
            workspace = options.resume.open_workspace(repo, run_id)
        else:
            workspace = Workspace.create(
                repo, run_id, throwaway=options.session == "plan", branch=options.branch
            )
    except WorkspaceError as exc:
        raise UsageError(str(exc)) from None
    test_cmd = (
        options.test_cmd
        or (config and config.test_cmd)
        or detect_test_cmd(workspace.path, checkout=repo)
    )
    try:
        environment = prepare_environment(
            workspace,
            include=(config.include if config else None) or [],
            sandbox_mode=mode,
            test_cmd=test_cmd,
            allow_unverified=options.allow_unverified,
            source=options.environment_from,
            named_secrets=options.named_secrets,
        )
        inner = make_sandbox(
            mode,
            workspace.path,
            warn=options.warn,
            environment=environment,
            limits=options.command_limits,
        )
    except (RepoEnvironmentError, SandboxUnavailable) as exc:
        workspace.delete_branch()
        raise UsageError(str(exc)) from None
    for note in environment.notes:
        _warn(options, note)
    for note in passed.notes:
        _warn(options, note)
    explicit = passed.values.explicit
    sandbox = EnvSandbox(
        inner,
        NamedEnv({**options.command_env, **passed.values}, explicit=explicit),
        watchers=options.listeners,
    )
    with workspace, _unstarted(run_dir, fresh, workspace):
        rt = _runtime(
            options,
            workspace,
            sandbox,
            model,
            model_spec,
            limits,
            run_dir,
            run_id,
            environment=environment,
            protected=protected,
            test_cmd=test_cmd,
            settings=[*settings, *passed.notes],
        )
        rt.state.started = started
        rt.setup_cmd = config.setup_cmd if config else None
        rt.given_plan, rt.revise = given, options.revise
        rt.together = _together(options, model)
        rt.approval = PlanApproval(options.reviewer) if options.approve else None
        try:
            outcome = drive(rt, workspace, model_spec, options)
        except BaselineUnrunnable as exc:
            if not isinstance(exc, SetupUnrunnable):  # its setup.log and trace are kept
                discard_run_dir(run_dir, fresh)
            workspace.delete_branch()
            raise UsageError(str(exc)) from None
    return outcome, run_dir


@contextmanager
def _unstarted(run_dir: Path, fresh: Path | None, workspace: Workspace) -> Iterator[None]:
    """A disk too full for the run's first records, or a run directory another run took first:
    nothing was done, one line (UsageError)."""
    try:
        yield
    except RunDirTaken:
        workspace.delete_branch()
        raise
    except OSError as exc:
        if (full := disk_full(exc, [run_dir])) is None:
            raise
        discard_run_dir(run_dir, fresh)
        workspace.delete_branch()
        raise UsageError(f"{full}; nothing was done") from None


def _together(options: RunOptions, model: Model) -> Together | None:
    """Several ready steps at once with --jobs J > 1; never for a scripted or recorded model
    (the turns of a script, and of a recording, are in the order of the calls)."""
    if not options.jobs or options.jobs < 2 or options.record or isinstance(model, ScriptedModel):
        return None
    return together(options.jobs)


def _given_plan(options: RunOptions, repo: Path) -> ValidPlan | None:
    """The --plan file's plan, and the flags that only make sense with a plan; UsageError."""
    planned = options.plan_file or options.approve or not options.revise
    if planned and options.mode not in PLANNED_MODES:
        raise UsageError(
            f"--plan, --approve and --no-revise need a mode with a plan "
            f"({', '.join(PLANNED_MODES)}), not {options.mode}"
        )
    given = None
    if options.plan_file is not None:
        given = load_given_plan(options.plan_file, repo, allow_unverified=options.allow_unverified)
    approved = given is not None or (options.resume is not None and options.resume.plan is not None)
    if options.approve and options.reviewer is None and not approved:
        raise UsageError(
            "--approve asks on a terminal and there is none; run it on a terminal, "
            "or give the plan with --plan FILE (a plan you give counts as approved)"
        )
    return given


def top_level(path: Path) -> Path:
    """`--repo` may name a subdirectory; the run, its config and `.coder/` belong to the top."""
    try:
        return Path(git_line(["rev-parse", "--show-toplevel"], path)).resolve()
    except (GitError, OSError):
        return path  # not a repository: Workspace.create says so in one line


def _runtime(
    options: RunOptions,
    workspace: Workspace,
    sandbox: Sandbox,
    model: Model,
    model_spec: str,
    limits: Limits,
    run_dir: Path,
    run_id: str,
    *,
    environment: RepoEnvironment,
    protected: list[str],
    test_cmd: str | None,
    settings: list[str],
) -> Runtime:
    claim_run_dir(run_dir)
    trace = TraceWriter(run_dir / "trace.jsonl", run_id)
    for listener in options.listeners:
        trace.subscribe(listener)
    state = RunState()
    policy = PathPolicy(workspace.path, [], protected)
    toolbox = ToolBox(workspace.path, sandbox, policy, limits.cmd_timeout_s)
    trace.emit(
        "run_started",
        task=options.task,
        task_context=options.task_context,
        mode=options.mode,
        session=options.session,
        model=model_spec,
        repo=str(workspace.repo),
        worktree=str(workspace.path),
        base_commit=workspace.base_commit,
        branch=workspace.branch,
        sandbox=sandbox.name,
        test_cmd=test_cmd,
        user_tree_dirty=workspace.user_tree_dirty,
        notes=workspace.notes,
        limits=limits.__dict__,
        settings=settings,
    )
    trace.emit("environment", **environment.summary())
    return Runtime(
        task=options.task,
        task_context=options.task_context,
        mode=options.mode,
        root=workspace.path,
        run_dir=run_dir,
        session=Session(
            model,
            toolbox,
            trace,
            state,
            limits,
            SYSTEM_RULES,
            options.context_policy
            or BatchMasking.for_limit(limits.context_tokens, limits.mask_threshold),
            options.ask,
        ),
        toolbox=toolbox,
        sandbox=sandbox,
        checkpoints=Checkpoints(
            workspace.path,
            max_file_bytes=(options.command_limits or CommandLimits()).file_bytes,
            max_change_bytes=(options.command_limits or CommandLimits()).change_bytes,
            artifacts=Artifacts(artifacts_of(test_cmd, workspace.path)),
        ),
        trace=trace,
        state=state,
        limits=limits,
        test_cmd=test_cmd,
        protected=protected,
        repo_map="",
        base_commit=workspace.base_commit,
        allow_unverified=options.allow_unverified,
        allow_no_tests=options.allow_no_tests,
        probe=BaseProbe(workspace.path, workspace.base_commit, sandbox, limits.cmd_timeout_s),
    )


def _drive(
    rt: Runtime, workspace: Workspace, model_spec: str, options: RunOptions
) -> tuple[Runtime, Workspace, RunResult]:
    """Run the mode and judge it; every way of ending writes the same complete outputs, except
    a test command that cannot run at all: then the run never began and writes nothing."""
    reason, message, final = "interrupted", "interrupted", None
    unrunnable = False
    reserve = Reserve(rt.run_dir)
    Journal.attach(rt, options, model_spec, workspace)
    try:
        base = prepare(rt, workspace, options.resume)
        MODES[rt.mode](rt)
        final = _final_check(rt, base)
        if not final.passed and revise_after_final(rt, final):
            final = _final_check(rt, base)
        if final.passed:
            reason, message = "completed", _completed_message(rt)
        else:
            reason, message = "final_check_failed", final.detail.splitlines()[0]
    except RunStop as stop:
        reason, message = stop.reason, stop.message
    except Terminated:
        reason, message = "interrupted", "terminated (SIGTERM)"
    except KeyboardInterrupt:
        reason, message = "interrupted", "interrupted by the user"
    except BaselineUnrunnable:
        unrunnable = True
        raise
    except Exception as exc:
        full = disk_full(exc, [rt.run_dir, rt.root, Path(tempfile.gettempdir())])
        reason, message = "interrupted", f"internal error: {full or f'{type(exc).__name__}: {exc}'}"
        if full is None:
            raise
    finally:
        reserve.release()
        if not unrunnable:
            result = write_outputs(
                rt,
                options=options,
                model_spec=model_spec,
                workspace=workspace,
                reason=reason,
                message=message,
                final=final,
            )
            with unless_full():
                rt.trace.emit(
                    "run_finished",
                    status=result.status,
                    stop_reason=result.stop_reason,
                    message=result.message,
                    wall_s=result.wall_s,
                    timing=result.timing.model_dump(),
                )
        with unless_full():
            rt.trace.close()
    return rt, workspace, result


def prepare(rt: Runtime, workspace: Workspace, resume: ResumePoint | None) -> Baseline:
    """Before the first model call: the baseline (a resumed run keeps the one taken at the
    base) and the repository map."""
    earlier_wall = 0.0
    if resume is not None:
        resume.begin(rt)
        earlier_wall = resume.saved.spent.wall_s
    spent = rt.state.spent
    earlier = replace(spent)
    if rt.setup_cmd:
        _setup(rt, workspace, rt.setup_cmd)
    if rt.baseline is None:
        with spent.clock("baseline_s"):
            try:
                rt.baseline = run_baseline(
                    rt.sandbox,
                    rt.root,
                    rt.test_cmd,
                    rt.limits.cmd_timeout_s,
                    allow_no_tests=rt.allow_no_tests,
                    run_left_s=rt.limits.timeout_s - rt.state.elapsed(),
                )
            except BaselineCut as cut:
                raise RunStop("timeout", str(cut)) from None
        rt.trace.emit("baseline", **rt.baseline.event(), **_fit_command_limit(rt, rt.baseline))
    red = known_red(rt.baseline)
    rt.toolbox.known_red = red.known if red else None
    cache = RepoMapCache(directory=cache_dir(workspace.repo, "repomap"))
    rt.repo_map = build_repo_map(rt.root, rt.task, cache=cache)
    own = rt.state.elapsed() - earlier_wall  # this run's time so far, a resumed one's included
    spent.setup_s = earlier.setup_s + own - (spent.baseline_s - earlier.baseline_s)
    return rt.baseline


class SetupUnrunnable(BaselineUnrunnable):
    """setup_cmd could not prepare the worktree: the run never began (exit 2), like a test
    command that cannot run, but its run directory keeps setup.log and the trace."""


def _setup(rt: Runtime, workspace: Workspace, command: str) -> None:
    """The repository's setup_cmd, before the baseline, within what is left of the run's
    --timeout: cut by it, the run stops with `timeout` as any run does; any other failure
    ends the run before it began (exit 2), with the output's tail in the run directory."""
    limit = command_timeout(rt.limits, rt.state)
    try:
        result = run_setup(rt.sandbox, rt.root, command, limit)
    except SetupFailed as failure:
        (rt.run_dir / "setup.log").write_text(rt.trace.redact(failure.log) + "\n", encoding="utf-8")
        cut = failure.result is not None and failure.result.timed_out
        if cut and limit < rt.limits.cmd_timeout_s:
            rt.trace.emit("setup", command=command, status="timeout", log=failure.log)
            raise RunStop(
                "timeout", f"the run passed its {rt.limits.timeout_s:.0f}s timeout in setup_cmd"
            ) from None
        rt.trace.emit(
            "setup", command=command, status="failed", message=str(failure), log=failure.log
        )
        raise SetupUnrunnable(f"{failure} (output: {rt.run_dir / 'setup.log'})") from None
    rt.trace.emit("setup", command=command, status="ok", duration_s=round(result.duration_s, 3))


def _fit_command_limit(rt: Runtime, base: Baseline) -> dict[str, float]:
    """A test command that took most of the command limit at the base would time out in a
    step on a busier machine: the limit becomes twice what it took, and the baseline event
    says so (`cmd_timeout_raised`: from, to)."""
    limit = raised_limit(rt.limits.cmd_timeout_s, base)
    if limit is None:
        return {}
    was = rt.limits.cmd_timeout_s
    rt.limits = replace(rt.limits, cmd_timeout_s=limit)
    rt.session.limits = rt.limits
    return {"cmd_timeout_raised_from": was, "cmd_timeout_s": limit}


def _warn(options: RunOptions, line: str) -> None:
    if options.warn is not None:
        options.warn(line)


def _removed(rt: Runtime) -> tuple[Target, ...]:
    """The tests the run removed on purpose: what the committed steps' `tests_removed`
    invariants name (verified steps; every committed step in plan mode, which verifies none),
    and what react mode's `final_answer` names where the task asks for removals (a model's
    word alone never waives a test that ran at the base). The final check names them."""
    found: list[str] = []
    if removal_reason(rt.task, False):
        found += rt.state.said_removed
    plan = rt.state.plan
    if plan is not None:
        for step_id, outcome in rt.state.steps.items():
            step = plan.steps.get(step_id)
            if step is not None and outcome.status in ("verified", "done_unverified"):
                found += [
                    p for i in step.invariants if isinstance(i, inv.TestsRemoved) for p in i.paths
                ]
    return targets_for(rt.test_cmd, list(dict.fromkeys(found)), rt.root)


def _final_check(rt: Runtime, base: Baseline) -> FinalCheck:
    reuse = reusable_run(rt.root, rt.state.full_run, rt.test_cmd)
    final = unchanged_check(rt.checkpoints, rt.base_commit)
    if final is None:
        limit = command_timeout(rt.limits, rt.state)
        with rt.state.spent.clock("final_check_s"):
            final = final_check(rt.sandbox, rt.root, base, limit, reuse, _removed(rt), rt.probe)
        if final.timed_out and limit < rt.limits.cmd_timeout_s:  # cut by the run's --timeout
            raise RunStop(
                "timeout",
                f"the run passed its {rt.limits.timeout_s:.0f}s timeout in the final check",
            )
    rt.trace.emit(
        "verification",
        step=None,
        kind="final_check",
        status="passed" if final.passed else "failed",
        evidence=final.detail,
        new_failures=final.new_failures,
        reused=reuse is not None,
    )
    return final


def _model(options: RunOptions) -> tuple[str, Model]:
    """The command line's model, else the default; never the repository's (ignored_model)."""
    try:
        spec = options.model or default_model_spec(os.environ)
        model = make_model(spec, base_url=options.base_url)
    except (ModelConfigError, ConfigError) as exc:
        raise UsageError(str(exc)) from None
    if options.warn and (note := hosted_api_note(model, options.base_url, os.environ)):
        options.warn(note)
    if options.record:
        from coder.models.recording import RecordingModel, record_problem

        if problem := record_problem(options.record):
            raise UsageError(problem)
        model = RecordingModel(model, options.record)
    return spec, model


DEFAULT_REVISIONS = {"reflect": 1}
"""Reflect mode critiques once unless told otherwise (its rounds are its revisions)."""


def _limits(options: RunOptions, config: Any, model: Model, warnings: list[str]) -> Limits:
    """The flags, else the repository's values where they are no looser than the defaults
    (each looser one adds a line to `warnings`), else the defaults."""
    base = Limits()

    def pick(flag: Any, key: str, default: Any) -> Any:
        """The flag, else the file's value when it tightens `default`; None: the default."""
        if flag is not None:
            return flag
        value, warning = repository_limit(config, key, default)
        if warning:
            warnings.append(warning)
        return value

    window = None
    flagged = options.max_reply_tokens is not None and options.context_tokens is not None
    if not flagged and isinstance(model, ReportsWindow):
        window = model.context_window()
    natural = token_limits(window)  # what the run has without the file
    reply = pick(options.max_reply_tokens, "max_reply_tokens", natural.reply)
    context = pick(options.context_tokens, "context_tokens", natural.context)
    tokens = token_limits(window, reply=reply, context=context)
    if window and options.warn and tokens.reply + tokens.context > window.tokens:
        options.warn(
            f"a {tokens.context}-token context plus a {tokens.reply}-token reply exceed the "
            f"{window.tokens}-token window ({window.source}); the server may refuse requests"
        )
    revisions = DEFAULT_REVISIONS.get(options.mode, base.max_revisions)
    turns = pick(options.max_turns, "max_turns", base.max_turns)
    revised = pick(options.max_revisions, "max_revisions", revisions)
    cmd_timeout = pick(options.cmd_timeout_s, "cmd_timeout", base.cmd_timeout_s)
    masking = min(tokens.context, THRESHOLD_CAP)
    return Limits(
        max_turns=base.max_turns if turns is None else turns,
        max_revisions=revisions if revised is None else revised,
        timeout_s=options.timeout_s or base.timeout_s,
        cmd_timeout_s=base.cmd_timeout_s if cmd_timeout is None else cmd_timeout,
        max_tokens=options.max_tokens or base.max_tokens,
        context_tokens=tokens.context,
        max_reply_tokens=tokens.reply,
        token_source=tokens.source,
        mask_threshold=pick(options.mask_threshold, "mask_threshold", masking),
    )


NOTHING_DONE = "nothing was done: the model was never reached (start it again with coder run)"


def _drop_branch(workspace: Workspace, result: RunResult, run_dir: Path) -> None:
    """A run that never got a reply from the model did nothing: leave no branch behind, and no
    state.json offering a resume of it."""
    workspace.delete_branch()
    (run_dir / STATE_FILE).unlink(missing_ok=True)
    result.message += f" (branch {result.branch} removed: the model was never reached)"
    with unless_full():
        save_result(run_dir, result)


def _completed_message(rt: Runtime) -> str:
    state = rt.state
    if rt.mode == "react":
        return "the model finished and the final check passed"
    if rt.mode == "reflect":
        if state.revisions == 0:
            return "the critique found no problem; the final check passed"
        return f"{state.revisions} fresh attempt(s) after a critique; the final check passed"
    if rt.mode == "plan":
        return f"{len(state.steps)} step(s) done without verification; the final check passed"
    return (
        f"{len(state.verified)} step(s) verified, {state.rollbacks} rollback(s), "
        f"{state.revisions} revision(s), final check passed"
    )


def take_change(repo: Path, result: RunResult, run_dir: Path, apply: bool) -> str | None:
    """Apply when asked; either way, the line that tells the person where the change went."""
    if not apply:
        return take_hint(result, run_dir, repo) if result.status == "verified" else None
    try:
        outcome = apply_run(repo, result, run_dir)
    except ApplyInputError as exc:
        outcome = ApplyOutcome(False, f"not applied: {exc}", "the run's files disagree")
    if not outcome.applied:
        result.message += f"; not applied: {outcome.reason}"
        save_result(run_dir, result)
    return outcome.line
