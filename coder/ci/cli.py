"""`coder ci review` and `coder ci fix`: parsing, printing and exit codes only.

Everything printed came from a pull request (file names, symbols, test output), so it goes
through `plain` before it reaches a terminal. Exit codes: 0 fine; 1 a `--fail-on` condition holds, a fix did not verify or could not be
pushed, or posting to GitHub failed; 2 bad input (one line on stderr, nothing posted or pushed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from coder.ci.comments import FIX_MARKER, REVIEW_MARKER, PostOutcome, upsert_comment
from coder.ci.context import ContextProblem, PullRequestContext, load_pr_context
from coder.ci.errors import CiInputError
from coder.ci.report import FailOn
from coder.display import plain
from coder.exits import check_sandbox, choice, fail

if TYPE_CHECKING:
    from coder.ci.fix_report import FixFailOn

ci_app = typer.Typer(
    help="Pull-request bot: review a change, or fix its failing tests.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

FORMATS = ("markdown", "json")
FAIL_ON: tuple[FailOn, ...] = ("breaking", "tests")
FIX_FAIL_ON: tuple[FixFailOn, ...] = ("revert",)
Condition = TypeVar("Condition", bound=str)


@ci_app.command()
def review(
    base: Annotated[str, typer.Option(help="The commit the change starts from.")],
    head: Annotated[str, typer.Option(help="The commit under review.")],
    format: Annotated[str, typer.Option("--format", help="markdown | json")] = "markdown",
    post: Annotated[bool, typer.Option(help="Create or update the review comment.")] = False,
    fail_on: Annotated[
        str, typer.Option(help="Exit 1 when these hold: breaking,tests (comma-separated).")
    ] = "",
    compare_base: Annotated[
        bool, typer.Option(help="Run the tests at base too, to tell new failures from old.")
    ] = False,
    repo: Annotated[Path, typer.Option(help="The git repository.")] = Path("."),
    test_cmd: Annotated[str | None, typer.Option(help="The test command.")] = None,
    tests: Annotated[bool, typer.Option(help="Run the tests (--no-tests skips them).")] = True,
    sandbox: Annotated[str, typer.Option(help="auto | bwrap | none")] = "auto",
    pr: Annotated[int | None, typer.Option(help="PR number (default: from the event).")] = None,
) -> None:
    """Report what a change does to symbols and tests; optionally post it on the PR."""
    choice("--format", format, FORMATS)
    check_sandbox(sandbox)
    conditions = _fail_on(fail_on, FAIL_ON)
    ctx = _post_context(pr) if post else None
    from coder.ci.render import render_markdown
    from coder.ci.review import ReviewOptions, build_review

    options = ReviewOptions(
        repo=repo,
        base=base,
        head=head,
        compare_base=compare_base,
        test_cmd=test_cmd,
        run_tests=tests,
        sandbox=sandbox,
    )
    try:
        report = build_review(options)
    except CiInputError as exc:
        fail(str(exc))
    markdown = render_markdown(report)
    typer.echo(report.model_dump_json(indent=2) if format == "json" else plain(markdown))
    code = 0
    if ctx is not None and not _posted(upsert_comment(ctx, markdown, marker=REVIEW_MARKER)):
        code = 1
    for line in report.failed_checks(conditions):
        typer.echo(f"fail-on: {plain(line)}", err=True)
        code = 1
    raise typer.Exit(code)


@ci_app.command()
def fix(
    base: Annotated[
        str | None, typer.Option(help="Fix only failures that do not happen at this commit.")
    ] = None,
    head: Annotated[str, typer.Option(help="The commit whose tests to fix.")] = "HEAD",
    model: Annotated[
        str | None, typer.Option(help="anthropic:ID, openai:ID or script:PATH.")
    ] = None,
    remote: Annotated[str, typer.Option(help="The git remote to push to.")] = "origin",
    push_to_pr: Annotated[
        bool, typer.Option(help="Push to the PR's own branch instead of coder/fix-<pr>.")
    ] = False,
    pr: Annotated[int | None, typer.Option(help="PR number (default: from the event).")] = None,
    repo: Annotated[Path, typer.Option(help="The git repository.")] = Path("."),
    test_cmd: Annotated[str | None, typer.Option(help="The test command.")] = None,
    max_revisions: Annotated[int, typer.Option(min=0, help="Plan revisions allowed.")] = 3,
    sandbox: Annotated[str, typer.Option(help="auto | bwrap | none")] = "auto",
    out: Annotated[Path | None, typer.Option(help="Run directory for the agent's run.")] = None,
    format: Annotated[str, typer.Option("--format", help="markdown | json")] = "markdown",
    fail_on: Annotated[
        str,
        typer.Option(help="revert: a fix that reverts the whole PR fails (exit 1, no push)."),
    ] = "",
    record: Annotated[
        Path | None, typer.Option(help="Write the model's replies as a replayable script.")
    ] = None,
) -> None:
    """When tests fail at head, have the agent fix them; push only a verified fix."""
    choice("--format", format, FORMATS)
    check_sandbox(sandbox)
    conditions = _fail_on(fail_on, FIX_FAIL_ON)
    from coder.ci.fix import FixOptions, run_fix
    from coder.ci.fix_report import render_fix_markdown

    env = dict(os.environ)
    options = FixOptions(
        repo=repo,
        head=head,
        base=base,
        model=model,
        remote=remote,
        push_to_pr=push_to_pr,
        pr=pr,
        test_cmd=test_cmd,
        max_revisions=max_revisions,
        sandbox=sandbox,
        out_dir=out,
        env=env,
        warn=lambda line: typer.echo(f"warning: {plain(line)}", err=True),
        fail_on=conditions,
        record=record,
    )
    try:
        report = run_fix(options)
    except CiInputError as exc:
        fail(str(exc))
    markdown = render_fix_markdown(report)
    typer.echo(report.model_dump_json(indent=2) if format == "json" else plain(markdown))
    typer.echo(plain(report.message), err=True)
    code = report.exit_code
    ctx = _optional_context(env, pr)
    if ctx is not None:
        worth_a_new_comment = report.status not in ("tests_pass", "old_failures_only")
        outcome = upsert_comment(ctx, markdown, marker=FIX_MARKER, create=worth_a_new_comment)
        if not _posted(outcome):
            code = code or 1
    raise typer.Exit(code)


def _post_context(pr: int | None) -> PullRequestContext:
    ctx = load_pr_context(os.environ, pr=pr)
    if isinstance(ctx, ContextProblem):
        fail(f"--post: {ctx.message}")
    return ctx


def _optional_context(env: dict[str, str], pr: int | None) -> PullRequestContext | None:
    """The PR to comment on when the GitHub variables are there; a warning when they are
    half there, since a fix with nowhere to report is still worth pushing."""
    if not env.get("GITHUB_TOKEN"):
        return None
    ctx = load_pr_context(env, pr=pr)
    if isinstance(ctx, ContextProblem):
        typer.echo(f"warning: not commenting: {plain(ctx.message)}", err=True)
        return None
    return ctx


def _posted(outcome: PostOutcome) -> bool:
    if outcome.action == "failed":
        typer.echo(f"error: posting the comment failed: {plain(outcome.line)}", err=True)
        return False
    typer.echo(f"comment: {plain(outcome.line)}", err=True)
    return True


def _fail_on(text: str, known: tuple[Condition, ...]) -> list[Condition]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        fail(f"--fail-on: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    return [n for n in known if n in names]
