"""Command-line entry points. Parsing and exit codes only; the work lives elsewhere.

Exit codes: 0 success, 1 a run that ended without verifying, 2 bad input (one line, nothing
changed), 130 interrupted (Ctrl-C or SIGTERM; the message says which).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from coder.display import LastingConsole, detach_closed, markup_safe, plain
from coder.exits import INTERRUPTED, fail

app = typer.Typer(
    name="coder",
    help="A coding agent that changes repositories only through verified step contracts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = LastingConsole(stderr=True, soft_wrap=not sys.stderr.isatty())
HELP_WIDTH_OFF_TERMINAL = 160
"""--help piped or captured is laid out this wide instead of rich's 80 columns."""


@app.command()
def run(
    task: Annotated[str, typer.Option(help="What to do, in plain words.")],
    repo: Annotated[Path, typer.Option(help="The git repository to work on.")] = Path("."),
    model: Annotated[
        str | None, typer.Option(help="anthropic:ID, openai:ID or script:PATH.")
    ] = None,
    mode: Annotated[str, typer.Option(help="contract | react | plan")] = "contract",
    test_cmd: Annotated[str | None, typer.Option(help="The repository's test command.")] = None,
    max_revisions: Annotated[int | None, typer.Option(min=0)] = None,
    max_turns: Annotated[int | None, typer.Option(min=1)] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Token budget for the run.")] = None,
    timeout: Annotated[float | None, typer.Option(min=1, help="Wall-clock limit, seconds.")] = None,
    cmd_timeout: Annotated[
        float | None, typer.Option(min=0.1, help="Per-command limit, seconds.")
    ] = None,
    max_reply_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="Longest reply per model call (default: from the server)."),
    ] = None,
    context_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="Most context per model call (default: from the server)."),
    ] = None,
    sandbox: Annotated[str | None, typer.Option(help="auto | bwrap | none")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default <repo>/.coder/runs/<id>).")
    ] = None,
    apply: Annotated[
        bool, typer.Option(help="Apply a verified patch to a clean working tree.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print result.json on stdout.")] = False,
    allow_unverified: Annotated[
        bool, typer.Option(help="Keep invariants no rule compiles as advisory.")
    ] = False,
    base_url: Annotated[
        str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Write the model's replies as a replayable script.")
    ] = None,
) -> None:
    """Run the agent on a repository."""
    from coder.loop.runner import RunOptions, UsageError, run_task
    from coder.progress import ProgressPrinter

    if sandbox not in (None, "auto", "bwrap", "none"):
        fail(f"--sandbox must be auto, bwrap or none, not {sandbox!r}")
    stream = sys.stderr if json_out else sys.stdout
    console = LastingConsole(
        stderr=json_out, soft_wrap=not stream.isatty()
    )  # a log: one event a line
    options = RunOptions(
        repo=repo,
        task=task,
        model=model,
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
        base_url=base_url,
        record=record,
        ask=_terminal_ask(console) if sys.stdin.isatty() else None,
        listeners=[ProgressPrinter(console)],
        warn=lambda line: err.print(f"[yellow]warning:[/] {markup_safe(line)}", highlight=False),
    )
    _sigterm_as_interrupt()
    try:
        outcome = run_task(options)
    except UsageError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("stopped before the run began; nothing was changed", INTERRUPTED)
    result = outcome.result
    try:
        if json_out:
            print(result.model_dump_json(indent=2))
        else:
            console.print(f"run directory: {markup_safe(outcome.run_dir)}", highlight=False)
        if outcome.take:
            console.print(markup_safe(outcome.take), highlight=False, soft_wrap=True)
        sys.stdout.flush()
    except BrokenPipeError:
        detach_closed()
    if result.stop_reason == "interrupted":
        raise typer.Exit(INTERRUPTED)
    raise typer.Exit(0 if result.status == "verified" else 1)


@app.command("apply")
def apply_change(
    run_dir: Annotated[Path, typer.Argument(help="A finished run's directory.")],
) -> None:
    """Take a verified run's change into your working tree, with --apply's checks.

    Exit 0 applied; 1 not applied (the reason is printed); 2 not a run directory."""
    from coder.loop.apply import ApplyInputError, apply_run_dir

    try:
        outcome = apply_run_dir(run_dir)
    except ApplyInputError as exc:
        fail(str(exc))
    Console(stderr=not outcome.applied).print(
        markup_safe(outcome.line), highlight=False, soft_wrap=True
    )
    raise typer.Exit(0 if outcome.applied else 1)


@app.command()
def show(run_dir: Annotated[Path, typer.Argument(help="A run directory.")]) -> None:
    """Render a run's trace and result for a person."""
    from coder.show import render_run

    if not (run_dir / "trace.jsonl").is_file() and not (run_dir / "result.json").is_file():
        fail(f"{run_dir} is not a run directory (no trace.jsonl or result.json)")
    render_run(run_dir, Console())


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


@app.command("check-plan")
def check_plan(file: Annotated[Path, typer.Argument(help="A plan JSON file.")]) -> None:
    """Validate a plan file: exit 0 valid (steps in order), 2 invalid (every problem)."""
    from contracts.validation import load_plan_file

    check = load_plan_file(file)
    if check.plan is None:
        for problem in check.problems[:MAX_PROBLEMS_SHOWN]:
            print(_clip_line(plain(str(problem))))
        hidden = len(check.problems) - MAX_PROBLEMS_SHOWN
        if hidden > 0:
            print(f"… and {hidden} more problem(s), {len(check.problems)} in all")
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
    modes: Annotated[str, typer.Option(help="Comma-separated modes.")] = "contract,react,plan",
    only: Annotated[
        str | None, typer.Option(help="Run only fixtures or instances whose name contains this.")
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Parallel runs (the CPUs of a local Ray instance).")
    ] = 2,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write runs and summary here.")
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="[ADDRESS]",
            help="Run each job as a Ray task: on the cluster at ADDRESS (auto, HOST:PORT, "
            "ray://HOST:PORT), or alone on a Ray instance started here. Needs coder[ray].",
        ),
    ] = None,
    swebench: Annotated[
        Path | None,
        typer.Option(help="SWE-bench instances (JSON Lines or a JSON list) instead of fixtures."),
    ] = None,
    repos: Annotated[
        Path | None, typer.Option(help="With --swebench: one local clone per repo, owner__name.")
    ] = None,
    predictions: Annotated[
        Path | None,
        typer.Option(help="With --swebench: write the predictions here (OUT.jsonl)."),
    ] = None,
    hints: Annotated[
        bool, typer.Option(help="With --swebench: give the model the instances' hints_text.")
    ] = False,
) -> None:
    """Run fixtures (or SWE-bench instances) × modes; report what was resolved and what shipped broken."""
    from coder.bench.cli import bench_command
    from coder.bench.swebench_source import SweBenchArgs

    if swebench is None:
        for flag, value in (("--repos", repos), ("--predictions", predictions), ("--hints", hints)):
            if value:
                fail(f"{flag} goes with --swebench FILE")
    elif repos is None:
        fail("--swebench needs --repos DIR (one local clone per repository, named owner__name)")
    elif fixtures_dir is not None:
        fail("give either a fixtures directory or --swebench FILE, not both")
    if fixtures_dir is None:
        bundled = Path(__file__).resolve().parents[1] / "fixtures"
        fixtures_dir = Path("fixtures") if Path("fixtures").is_dir() else bundled
    console = Console() if sys.stdout.isatty() else Console(width=160)
    source = (
        SweBenchArgs(swebench, repos, predictions, hints)
        if swebench is not None and repos is not None
        else None
    )
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
        )
    )


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
        from coder.loop.state import Terminated

        raise Terminated

    signal.signal(signal.SIGTERM, handler)


_mount_ci()


def _help_width() -> None:
    """Rich lays help out 80 columns wide when stdout is no terminal, cutting it short."""
    import typer.rich_utils

    sized = os.environ.get("TERMINAL_WIDTH") or os.environ.get("COLUMNS")
    if not sys.stdout.isatty() and not sized:
        typer.rich_utils.MAX_WIDTH = HELP_WIDTH_OFF_TERMINAL


def main() -> None:
    _help_width()
    app(args=ray_flag_value(sys.argv[1:]))


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
