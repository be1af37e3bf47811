"""Command-line entry points. Parsing and exit codes only; the work lives elsewhere.

Exit codes: 0 success, 1 a run that ended without verifying, 2 bad input (one line, nothing
changed), 130 interrupted (Ctrl-C or SIGTERM; the message says which).
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer
from rich.console import Console

from coder.display import LastingConsole, detach_closed, markup_safe, plain
from coder.exits import INTERRUPTED, check_sandbox, fail

if TYPE_CHECKING:
    from coder.loop.runner import RunOptions, RunOutcome
    from coder.progress import ProgressPrinter
    from coder.terminal_review import TerminalReviewer
    from sandbox.limits import Limits

T = TypeVar("T")

app = typer.Typer(
    name="coder",
    help="A coding agent that changes repositories only through verified step contracts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
err = LastingConsole(stderr=True, soft_wrap=not sys.stderr.isatty())
# Options more than one command takes.
ModelSpec = Annotated[str | None, typer.Option(help="anthropic:ID, openai:ID or script:PATH.")]
TestCmd = Annotated[str | None, typer.Option(help="The repository's test command.")]
MaxRevisions = Annotated[
    int | None, typer.Option(min=0, help="Revisions the planner may make after failed steps.")
]
MaxTurns = Annotated[
    int | None,
    typer.Option(min=1, help="Model calls the run may make (with --attempts: each attempt)."),
]
MaxTokens = Annotated[int | None, typer.Option(min=1, help="Token budget for the run.")]
Timeout = Annotated[
    float | None,
    typer.Option(
        min=1,
        help="Wall-clock limit of the whole run from its start, seconds (with --attempts: each attempt).",
    ),
]
CmdTimeout = Annotated[float | None, typer.Option(min=0.1, help="Per-command limit, seconds.")]
SandboxMode = Annotated[str | None, typer.Option(help="auto | bwrap | none")]
JsonOut = Annotated[
    bool, typer.Option("--json", help="Print result.json on stdout (progress goes to stderr).")
]
TaskText = Annotated[
    str | None, typer.Option(help="What to do, in plain words; - reads it from standard input.")
]
TaskFile = Annotated[
    Path | None, typer.Option(metavar="FILE", help="Read the task from this file.")
]
AllowUnverified = Annotated[
    bool, typer.Option(help="Keep invariants no rule compiles as advisory.")
]
AllowNoTests = Annotated[
    bool,
    typer.Option(
        "--allow-no-tests",
        help="Go on when the test command runs no test (the final check says so).",
    ),
]
BaseUrl = Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")]
Record = Annotated[
    Path | None, typer.Option(help="Write the model's replies as a replayable script.")
]


def _print_version(value: bool) -> None:
    if value:
        from coder.entry import version

        print(f"coder {version()}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """A coding agent that changes repositories only through verified step contracts."""


@app.command()
def run(
    task: TaskText = None,
    task_file: TaskFile = None,
    repo: Annotated[Path, typer.Option(help="The git repository to work on.")] = Path("."),
    model: Annotated[
        list[str] | None,
        typer.Option(
            help="anthropic:ID, openai:ID or script:PATH; with --attempts, repeatable: attempt "
            "i uses the i-th, round robin."
        ),
    ] = None,
    mode: Annotated[str, typer.Option(help="contract | react | plan | reflect")] = "contract",
    test_cmd: TestCmd = None,
    max_revisions: MaxRevisions = None,
    max_turns: MaxTurns = None,
    max_tokens: MaxTokens = None,
    timeout: Timeout = None,
    cmd_timeout: CmdTimeout = None,
    max_reply_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="Longest reply per model call (default: from the server)."),
    ] = None,
    context_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="Most context per model call (default: from the server)."),
    ] = None,
    sandbox: SandboxMode = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default <repo>/.coder/runs/<id>).")
    ] = None,
    apply: Annotated[
        bool, typer.Option(help="Apply a verified patch to a clean working tree.")
    ] = False,
    json_out: JsonOut = False,
    allow_unverified: AllowUnverified = False,
    allow_no_tests: AllowNoTests = False,
    base_url: BaseUrl = None,
    record: Record = None,
    max_memory: Annotated[
        str | None, typer.Option(help="Memory per command, all its processes (default 4G).")
    ] = None,
    max_file_size: Annotated[
        str | None, typer.Option(help="Largest file a command may write (default 512M).")
    ] = None,
    max_growth: Annotated[
        str | None, typer.Option(help="How much one command may grow the worktree (1G).")
    ] = None,
    max_change: Annotated[
        str | None,
        typer.Option(help="What one step may commit, its changed files together (256M)."),
    ] = None,
    mask_threshold: Annotated[
        int | None,
        typer.Option(
            min=1, help="Context tokens of a phase past which old tool outputs are masked."
        ),
    ] = None,
    plan: Annotated[
        Path | None,
        typer.Option(
            "--plan", help="Run this plan (JSON, as `coder plan` writes) instead of planning."
        ),
    ] = None,
    no_revise: Annotated[
        bool, typer.Option("--no-revise", help="A step that fails verification ends the run.")
    ] = False,
    approve: Annotated[
        bool, typer.Option(help="Show every plan version and ask before it runs.")
    ] = False,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            metavar="NAME",
            help="Let commands see this host variable (repeatable; exact names, even secret-"
            "looking ones; never one holding the model's key).",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No live progress; only the result.")
    ] = False,
    attempts: Annotated[
        int | None,
        typer.Option(min=1, help="Independent attempts, each verified; the verifier selects one."),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option(min=1, help="At most this many at once (default: the cores).")
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(min=0, metavar="USD", help="Dollars the whole run may spend (list prices)."),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="[ADDRESS]",
            help="With --attempts: run them as Ray tasks, on the cluster at ADDRESS or a local "
            "Ray instance. Needs coder-contracts[ray].",
        ),
    ] = None,
) -> None:
    """Run the agent on a repository."""
    from coder.loop.runner import RunOptions, run_task
    from coder.progress import ProgressPrinter
    from coder.task_input import read_task

    check_sandbox(sandbox)
    task = read_task(task, task_file)
    if no_revise and max_revisions is not None:
        fail("--no-revise and --max-revisions contradict each other; give one")
    command_limits = _command_limits(max_memory, max_file_size, max_growth, max_change)
    _check_attempt_flags(attempts, model or [], max_cost, ray)
    console = _log_console(json_out)
    printer = ProgressPrinter(console, quiet=quiet or attempts is not None)  # attempts say lines
    options = RunOptions(
        repo=repo,
        task=task,
        model=model[0] if model else None,
        mode=mode,
        test_cmd=test_cmd,
        max_revisions=max_revisions,
        max_turns=max_turns,
        timeout_s=timeout,
        cmd_timeout_s=cmd_timeout,
        max_tokens=max_tokens,
        max_reply_tokens=max_reply_tokens,
        context_tokens=context_tokens,
        sandbox=sandbox,
        out_dir=out,
        apply=apply,
        allow_unverified=allow_unverified,
        allow_no_tests=allow_no_tests,
        base_url=base_url,
        record=record,
        command_limits=command_limits,
        mask_threshold=mask_threshold,
        ask=_terminal_ask(console) if sys.stdin.isatty() else None,
        listeners=[printer],
        warn=_warn,
        plan_file=plan,
        revise=not no_revise,
        approve=approve,
        reviewer=_reviewer(console, printer),
        pass_env=env or [],
        jobs=jobs,
    )
    _sigterm_as_interrupt()
    if attempts is not None:
        _finish(
            _usage(
                lambda: _run_attempts(options, attempts, model, jobs, max_cost, ray, console, quiet)
            ),
            console,
            json_out,
        )
    _finish(_usage(lambda: run_task(options)), console, json_out)


def _check_attempt_flags(
    attempts: int | None, models: list[str], max_cost: float | None, ray: str | None
) -> None:
    if attempts is not None:
        return
    if len(models) > 1:
        fail(f"--model is given {len(models)} times; several models go with --attempts N")
    for flag, value in (("--max-cost", max_cost), ("--ray", ray)):
        if value is not None:
            fail(f"{flag} goes with --attempts N")


def _run_attempts(
    options: RunOptions,
    attempts: int,
    models: list[str] | None,
    jobs: int | None,
    max_cost: float | None,
    ray: str | None,
    console: Console,
    quiet: bool,
) -> RunOutcome:
    """`--attempts N`: the attempts run without a terminal; `--approve` asks once, before
    they start, after the run says what it expects to spend."""
    from coder.attempts.driver import AttemptsOptions, run_attempts

    if options.approve and not sys.stdin.isatty():
        fail("--approve asks on a terminal before the attempts start, and there is none")

    def say(line: str) -> None:
        if not quiet:
            console.print(markup_safe(line), highlight=False, soft_wrap=True)

    def confirm(expected: str) -> bool:
        console.print(
            f"[bold]coder asks:[/] go on with {markup_safe(expected)}? \\[y/N]", highlight=False
        )
        return input("> ").strip().lower() in ("y", "yes")

    many = AttemptsOptions(
        attempts,
        models=list(models or []),
        jobs=jobs,
        ray=ray,
        max_cost=max_cost,
        confirm=confirm if options.approve else None,
        say=say,
    )
    return run_attempts(options, many)


@app.command("plan")
def plan_command(
    task: TaskText = None,
    task_file: TaskFile = None,
    repo: Annotated[Path, typer.Option(help="The git repository to plan for.")] = Path("."),
    model: ModelSpec = None,
    out: Annotated[
        Path | None, typer.Option(help="The plan file (default <repo>/.coder/plans/<id>.json).")
    ] = None,
    test_cmd: TestCmd = None,
    max_turns: MaxTurns = None,
    timeout: Timeout = None,
    cmd_timeout: CmdTimeout = None,
    sandbox: SandboxMode = None,
    allow_unverified: AllowUnverified = False,
    allow_no_tests: AllowNoTests = False,
    base_url: BaseUrl = None,
    record: Record = None,
) -> None:
    """Plan only: print the plan as a table and write it to a file; nothing is changed."""
    from coder.loop.plan_only import plan_task
    from coder.loop.runner import RunOptions
    from coder.plan_table import plan_table, plan_title
    from coder.progress import ProgressPrinter
    from coder.task_input import read_task

    check_sandbox(sandbox)
    task = read_task(task, task_file)
    console = _log_console(False)
    options = RunOptions(
        repo=repo,
        task=task,
        model=model,
        test_cmd=test_cmd,
        max_turns=max_turns,
        timeout_s=timeout,
        cmd_timeout_s=cmd_timeout,
        sandbox=sandbox,
        allow_unverified=allow_unverified,
        allow_no_tests=allow_no_tests,
        base_url=base_url,
        record=record,
        ask=_terminal_ask(console) if sys.stdin.isatty() else None,
        listeners=[ProgressPrinter(console)],
        warn=_warn,
    )
    _sigterm_as_interrupt()
    outcome = _usage(lambda: plan_task(options, out))
    if outcome.plan is None or outcome.plan_file is None:
        console.print(f"no plan: {markup_safe(outcome.message)}", highlight=False)
        raise typer.Exit(INTERRUPTED if outcome.stop_reason == "interrupted" else 1)
    console.print(plan_table(outcome.plan, plan_title(outcome.plan)))
    file = markup_safe(outcome.plan_file)
    console.print(f"plan written to {file}", highlight=False, soft_wrap=True)
    given = (
        f"--task-file {shlex.quote(str(task_file))}" if task_file else f"--task {shlex.quote(task)}"
    )
    console.print(
        f"review or edit it, then: coder run --plan {file} {markup_safe(given)}",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def resume(
    run_dir: Annotated[Path, typer.Argument(help="The run directory of the run to continue.")],
    model: ModelSpec = None,
    repo: Annotated[
        Path | None, typer.Option(help="Where the run's repository is now, if it moved.")
    ] = None,
    max_turns: MaxTurns = None,
    max_revisions: MaxRevisions = None,
    max_tokens: MaxTokens = None,
    timeout: Timeout = None,
    sandbox: SandboxMode = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default <repo>/.coder/runs/<id>).")
    ] = None,
    approve: Annotated[
        bool, typer.Option(help="Show every new plan version and ask before it runs.")
    ] = False,
    json_out: JsonOut = False,
    base_url: BaseUrl = None,
    record: Record = None,
) -> None:
    """Continue a run that was interrupted, timed out or ran out of budget.

    Its budgets count what it spent; --max-turns, --max-tokens, --timeout and --max-revisions
    raise them (a spent one must be raised). --model picks another model (default: the run's)."""
    from coder.loop.resume import ResumeOptions, resume_task
    from coder.progress import ProgressPrinter

    check_sandbox(sandbox)
    console = _log_console(json_out)
    printer = ProgressPrinter(console)
    options = ResumeOptions(
        run_dir=run_dir,
        model=model,
        base_url=base_url,
        repo=repo,
        max_turns=max_turns,
        max_revisions=max_revisions,
        max_tokens=max_tokens,
        timeout_s=timeout,
        sandbox=sandbox,
        out_dir=out,
        approve=approve,
        record=record,
        reviewer=_reviewer(console, printer),
        ask=_terminal_ask(console) if sys.stdin.isatty() else None,
        listeners=[printer],
        warn=_warn,
    )
    _sigterm_as_interrupt()
    _finish(_usage(lambda: resume_task(options)), console, json_out)


def _log_console(json_out: bool) -> LastingConsole:
    """Progress as a log, one event a line (on stderr when stdout carries the JSON)."""
    stream = sys.stderr if json_out else sys.stdout
    return LastingConsole(stderr=json_out, soft_wrap=not stream.isatty())


def _finish(outcome: RunOutcome, console: Console, json_out: bool) -> NoReturn:
    """A run's last words and its exit status: 0 verified, 1 not, 130 interrupted."""
    result = outcome.result
    try:
        if json_out:
            print(result.model_dump_json(indent=2))
        else:
            console.print(f"run directory: {markup_safe(outcome.run_dir)}", highlight=False)
        if outcome.take and outcome.take.startswith("not applied"):
            _warn(outcome.take)  # loud, on stderr: the run verified, its change is not in the tree
        elif outcome.take:
            console.print(markup_safe(outcome.take), highlight=False, soft_wrap=True)
        if _resumable(outcome):
            console.print(
                f"to continue it: coder resume {markup_safe(outcome.run_dir)}",
                highlight=False,
                soft_wrap=True,
            )
        sys.stdout.flush()
    except BrokenPipeError:
        detach_closed()
    if result.stop_reason == "interrupted":
        raise typer.Exit(INTERRUPTED)
    raise typer.Exit(0 if result.status == "verified" else 1)


def _resumable(outcome: RunOutcome) -> bool:
    """A contract run cut short (interrupted, out of time or budget) that left its state."""
    from contracts.saved_run import RESUMABLE, STATE_FILE

    result = outcome.result
    return (
        result.mode == "contract"
        and result.stop_reason in RESUMABLE
        and (outcome.run_dir / STATE_FILE).is_file()
    )


def _usage(work: Callable[[], T]) -> T:
    """`work`, with bad input turned into its lines on stderr and exit 2 (a plan file's
    problems first, as `coder check-plan` prints them)."""
    from coder.loop.state.usage import UsageError

    try:
        return work()
    except UsageError as exc:
        for line in _problem_lines(exc.details):
            err.print(line, markup=False, highlight=False)
        fail(str(exc))
    except KeyboardInterrupt:
        fail("stopped before the run began; nothing was changed", INTERRUPTED)


def _reviewer(console: Console, printer: ProgressPrinter) -> TerminalReviewer | None:
    """The person who approves plans under --approve, when there is a terminal to ask on."""
    from coder.terminal_review import TerminalReviewer

    return TerminalReviewer(console, printer.paused) if sys.stdin.isatty() else None


def _warn(line: str) -> None:
    err.print(f"[yellow]warning:[/] {markup_safe(line)}", highlight=False)


@app.command("apply")
def apply_change(
    run_dir: Annotated[Path, typer.Argument(help="A finished run's directory.")],
    repo: Annotated[
        Path | None,
        typer.Option(help="The repository to apply to (default: the one RUN_DIR lies in)."),
    ] = None,
) -> None:
    """Take a verified run's change into your working tree, with --apply's checks.

    Exit 0 applied; 1 not applied (the reason is printed); 2 not a run directory, or run files
    that disagree with the run's branch; 130 interrupted (before the switch: nothing changed)."""
    from coder.loop.apply.apply import ApplyInputError, apply_run_dir

    def announce(line: str) -> None:
        err.print(markup_safe(line), highlight=False, soft_wrap=True)

    try:
        outcome = apply_run_dir(run_dir, repo, announce)
    except ApplyInputError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        err.print("interrupted: nothing applied", highlight=False)
        raise typer.Exit(130) from None
    Console(stderr=not outcome.applied).print(
        markup_safe(outcome.line), highlight=False, soft_wrap=True
    )
    raise typer.Exit(130 if outcome.interrupted else 0 if outcome.applied else 1)


@app.command()
def clean(
    repo: Annotated[Path, typer.Option(help="The git repository.")] = Path("."),
    older_than: Annotated[
        float | None,
        typer.Option(
            min=0,
            metavar="DAYS",
            help="Only runs older than this; also removes their run directories.",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Remove without asking.")] = False,
) -> None:
    """Remove finished runs' coder/* branches (and, with --older-than, old run directories).

    Says what it will remove first, and asks unless --yes; a run going on is never touched."""
    from coder.clean import CleanInputError
    from coder.clean import clean as clean_repo

    def say(line: str) -> None:
        print(plain(line))

    try:
        status = clean_repo(
            repo, older_than, yes=yes, ask=input if sys.stdin.isatty() else None, say=say
        )
    except CleanInputError as exc:
        fail(str(exc))
    raise typer.Exit(status)


@app.command()
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    diff: Annotated[
        bool, typer.Option("--diff", help="Also print the run's whole change.")
    ] = False,
    transcript: Annotated[
        bool,
        typer.Option("--transcript", help="Also print every model call, tool call and answer."),
    ] = False,
) -> None:
    """Render a run's trace and result for a person."""
    from coder.show import render_run

    run_dir = _run_dir_named(run_dir)
    if not (run_dir / "trace.jsonl").is_file() and not (run_dir / "result.json").is_file():
        fail(f"{run_dir} is not a run directory (no trace.jsonl or result.json)")
    render_run(run_dir, Console(), diff=diff, transcript=transcript)


def _run_dir_named(given: Path) -> Path:
    """A run id as the progress line prints it, from inside the repository: its run directory
    under the repository's `.coder/runs/` (a path that exists is taken as given)."""
    if given.exists() or len(given.parts) != 1:
        return given
    from coder.loop.state.rundirs import coder_path
    from coder.loop.state.usage import UsageError
    from sandbox.gitcli import GitError, git_line

    try:
        top = Path(git_line(["rev-parse", "--show-toplevel"], Path.cwd()))
        found = coder_path(top, "runs", given.name)
    except (GitError, UsageError):
        return given
    return found if found.is_dir() else given


@app.command()
def schema(name: Annotated[str, typer.Argument(help="plan | script | result")] = "plan") -> None:
    """Print a JSON Schema."""
    from contracts.schema import json_schema

    try:
        print(json.dumps(json_schema(name), indent=2))
    except (KeyError, ValueError) as exc:
        fail(str(exc).strip("'\""))


MAX_PROBLEMS_SHOWN = 50
"""A plan with a million mistakes is told by its first fifty and a count of the rest."""


def _clip_line(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _problem_lines(problems: list[str]) -> list[str]:
    """A plan's problems as a person reads them: the first fifty, each clipped and printable."""
    lines = [_clip_line(plain(problem)) for problem in problems[:MAX_PROBLEMS_SHOWN]]
    hidden = len(problems) - MAX_PROBLEMS_SHOWN
    if hidden > 0:
        lines.append(f"… and {hidden} more problem(s), {len(problems)} in all")
    return lines


@app.command("check-plan")
def check_plan(file: Annotated[Path, typer.Argument(help="A plan JSON file.")]) -> None:
    """Validate a plan file: exit 0 valid (steps in order), 2 invalid (every problem)."""
    from contracts.validation import load_plan_file

    check = load_plan_file(file)
    if check.plan is None:
        for line in _problem_lines([str(p) for p in check.problems]):
            print(line)
        raise typer.Exit(2)
    for index, step_id in enumerate(check.plan.order, 1):
        step = check.plan.steps[step_id]
        kinds = ", ".join(i.kind for i in step.invariants) or "scope only"
        files = ", ".join(step.contract.intended_modification.files)
        print(_clip_line(plain(f"{index}. {step_id}: {files} [{kinds}]")))


@app.command()
def compact(
    file: Annotated[str, typer.Argument(help="A log file, or - for standard input.")] = "-",
    budget: Annotated[int, typer.Option(min=1, help="Token budget.")] = 2000,
) -> None:
    """Compact a test or build log the way the model sees it."""
    from summarizers.logs import compact_command_text

    if file == "-":
        text = sys.stdin.read()
    else:
        path = Path(file)
        if not path.is_file():
            fail(f"{file}: no such file")
        text = path.read_bytes().decode("utf-8", errors="replace")
    print(plain(compact_command_text(text, budget)))


@app.command()
def bench(
    fixtures_dir: Annotated[
        Path | None,
        typer.Argument(help="Fixtures directory (default: ./fixtures, else the bundled one)."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="Model for every run (default: each fixture's scripts); script:DIR reads "
            "DIR/<name>.<mode>.json per run."
        ),
    ] = None,
    modes: Annotated[
        str, typer.Option(help="Comma-separated modes.")
    ] = "contract,react,plan,reflect",
    only: Annotated[
        str | None, typer.Option(help="Run only fixtures or instances whose name contains this.")
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Parallel runs (the CPUs of a local Ray instance).")
    ] = 2,
    json_file: Annotated[
        Path | None,
        typer.Option("--json", metavar="FILE", help="Write every run and the summary as JSON."),
    ] = None,
    html_file: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Write the report as a page with pictures."),
    ] = None,
    runs: Annotated[
        bool, typer.Option("--runs", help="Also print the full runs table and failure classes.")
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="[ADDRESS]",
            help="Run each job as a Ray task: on the cluster at ADDRESS (auto, HOST:PORT, "
            "ray://HOST:PORT), or alone on a Ray instance started here. Needs coder-contracts[ray].",
        ),
    ] = None,
    swebench: Annotated[
        Path | None,
        typer.Option(help="SWE-bench instances (JSON Lines or a JSON list) instead of fixtures."),
    ] = None,
    repos: Annotated[
        Path | None,
        typer.Option(
            help="With --swebench: one local clone per repo, owner__name (default: built once "
            "into the cache from the repos/ beside the instances file)."
        ),
    ] = None,
    predictions: Annotated[
        Path | None,
        typer.Option(help="With --swebench: write the predictions here (OUT.jsonl)."),
    ] = None,
    hints: Annotated[
        bool, typer.Option(help="With --swebench: give the model the instances' hints_text.")
    ] = False,
    predictions_in: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="With --swebench: also judge another agent's predictions (SWE-bench JSON Lines).",
        ),
    ] = None,
    record_dir: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="DIR",
            help="Record every run's model replies to DIR/<name>.<mode>.json "
            "(what --model script:DIR replays).",
        ),
    ] = None,
    attempts: Annotated[
        int,
        typer.Option(
            min=1,
            help="Each run is N attempts and a selection; reports resolved@1, @N and the oracle.",
        ),
    ] = 1,
) -> None:
    """Run fixtures (or SWE-bench instances) × modes; report what was resolved and what shipped broken."""
    from coder.bench.cli import bench_command
    from coder.bench.swebench_source import SweBenchArgs

    if swebench is None:
        for flag, value in (
            ("--repos", repos),
            ("--predictions", predictions),
            ("--hints", hints),
            ("--predictions-in", predictions_in),
        ):
            if value:
                fail(f"{flag} goes with --swebench FILE")
    elif fixtures_dir is not None:
        fail("give either a fixtures directory or --swebench FILE, not both")
    if fixtures_dir is None:
        from coder.bench.bundled import default_fixtures

        fixtures_dir = default_fixtures()
    console = Console()  # the terminal's width, else COLUMNS, else 80: the summary fits 80
    source = SweBenchArgs(swebench, repos, predictions, hints) if swebench is not None else None
    raise typer.Exit(
        bench_command(
            fixtures_dir,
            model,
            modes,
            only,
            workers,
            json_file,
            console,
            ray=ray,
            swebench=source,
            runs=runs,
            html_file=html_file,
            predictions_in=predictions_in,
            record=record_dir,
            attempts=attempts,
        )
    )


def _command_limits(
    memory: str | None, file_size: str | None, growth: str | None, change: str | None = None
) -> Limits | None:
    """The sandbox bounds the flags ask for (None: the defaults); a bad size exits 2."""
    from sandbox.limits import Limits

    if memory is None and file_size is None and growth is None and change is None:
        return None
    base = Limits()
    return Limits(
        memory_bytes=_size("--max-memory", memory, base.memory_bytes),
        file_bytes=_size("--max-file-size", file_size, base.file_bytes),
        growth_bytes=_size("--max-growth", growth, base.growth_bytes),
        change_bytes=_size("--max-change", change, base.change_bytes),
    )


def _size(flag: str, text: str | None, default: int) -> int:
    from sandbox.limits import parse_size

    if text is None:
        return default
    try:
        return parse_size(text)
    except ValueError as exc:
        fail(f"{flag}: {exc}")


def _mount_ci() -> None:
    try:
        from coder.ci.cli import ci_app
    except ImportError:
        return
    app.add_typer(
        ci_app, name="ci", help="Pull-request bot: review a change, or fix failing tests."
    )


def _terminal_ask(console: Console):  # type: ignore[no-untyped-def]
    def ask(question: str) -> str:
        console.print(f"[bold]coder asks:[/] {markup_safe(question)}", highlight=False)
        return input("> ")

    return ask


def _sigterm_as_interrupt() -> None:
    """SIGTERM ends a run the way Ctrl-C does (outputs written, worktree removed, exit 130),
    and the message says it was SIGTERM."""

    def handler(signum: int, frame: object) -> None:
        from coder.loop.state.state import Terminated

        raise Terminated

    signal.signal(signal.SIGTERM, handler)


_mount_ci()


def main() -> None:
    from typer.main import get_command

    from coder.entry import run_command

    sys.exit(run_command(get_command(app), ray_flag_value(sys.argv[1:])))


def ray_flag_value(argv: list[str]) -> list[str]:
    """`--ray [ADDRESS]`: typer options cannot take an optional value, so a `--ray` that is not
    followed by an address (`auto`, `local`, `HOST:PORT`, `ray://HOST:PORT`) gets `local`."""
    out = list(argv)
    for index, arg in enumerate(out):
        if arg != "--ray":
            continue
        following = out[index + 1] if index + 1 < len(out) else ""
        if not (following in ("auto", "local") or ":" in following):
            out[index] = "--ray=local"
    return out


if __name__ == "__main__":
    main()
