"""`coder ci fix`: when a PR's tests fail, let the agent fix them on a branch of its own.

Nothing is pushed unless the whole run verified (every step and the final check). The push
goes to `coder/fix-<pr>`; the PR's own branch is touched only when the user asked for it. The
planner is told which PR it is fixing (pr_context), and the report says what the fix does to
the PR's own change (pr_effect).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coder.ci.context import ContextProblem, EventInfo, read_event
from coder.ci.errors import CiInputError
from coder.ci.fix_report import FixFailOn, FixReport, fix_steps
from coder.ci.gitrefs import git, is_repository, merge_base, resolve_commit
from coder.ci.pr_context import gather_facts, render_context
from coder.ci.pr_effect import pr_effect
from coder.ci.push import push_commit, remote_exists
from coder.ci.suite import (
    SuiteOutcome,
    choose_test_command,
    compare_runs,
    run_suite,
    tree_sandbox,
    trusted_include,
)
from coder.ci.trees import commit_tree
from contracts.result import PullRequestRecord

if TYPE_CHECKING:
    from coder.loop.runner import RunOutcome

MAX_LISTED_FAILURES = 30


@dataclass
class FixOptions:
    repo: Path
    head: str = "HEAD"
    base: str | None = None
    model: str | None = None
    remote: str = "origin"
    push_to_pr: bool = False
    pr: int | None = None
    test_cmd: str | None = None
    max_revisions: int = 3
    sandbox: str = "auto"
    out_dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    warn: Callable[[str], None] | None = None
    fail_on: list[FixFailOn] = field(default_factory=list)
    """`revert`: a fix that reverts the whole PR is a failure, and nothing is pushed."""
    record: Path | None = None
    """Write the model's replies here as a replayable script (as `coder run --record`)."""


@dataclass(frozen=True)
class _Target:
    head: str
    base: str | None
    since: str | None
    """The merge base of base and head, where the PR's diff starts (as GitHub shows it)."""
    branch: str
    pr_branch: str | None
    number: int | None
    event: EventInfo

    def record(self) -> PullRequestRecord:
        return PullRequestRecord(number=self.number, base=self.base, head=self.head)


def run_fix(options: FixOptions) -> FixReport:
    """Test at head; if something fails, run the agent and push a verified fix."""
    repo = options.repo.resolve()
    target = _check_inputs(repo, options)
    trusted = target.base or target.head  # without a PR the commit is the repository's own
    head_suite, command = _suite_at(repo, target.head, options, ref=options.head, trusted=trusted)
    report = FixReport(
        status="tests_pass", message="", head=target.head, test_cmd=command, pr=target.record()
    )
    if head_suite.run.passed:
        return report.model_copy(update={"message": f"`{command}` passes at {target.head[:10]}."})
    failing = sorted(head_suite.failing)
    old: list[str] = []
    new: list[str] = []
    if target.base is not None:
        base_suite, _ = _suite_at(
            repo, target.base, options, ref=options.base or "", trusted=trusted, command=command
        )
        new, _fixed = compare_runs(head_suite, base_suite)
        if not new and not base_suite.run.passed:
            return report.model_copy(
                update={
                    "status": "old_failures_only",
                    "failing": failing,
                    "log": head_suite.run.log,
                    "message": f"every failing test also fails at base {target.base[:10]}; "
                    "nothing pushed.",
                }
            )
        old = sorted(set(failing) - set(new))
        failing = new or failing
    task = build_task(command, target.head, head_suite, failing, old)
    context = _pr_context(repo, options, target, new, old)
    report = report.model_copy(update={"failing": failing, "log": head_suite.run.log})
    return _run_and_push(repo, options, target, task, context, command, report)


def _pr_context(
    repo: Path, options: FixOptions, target: _Target, new: list[str], old: list[str]
) -> str:
    """The PR as the planner is told it; nothing for a bare commit with no PR and no base."""
    if target.number is None and target.base is None:
        return ""
    facts = gather_facts(
        repo,
        head=target.head,
        base=target.base,
        since=target.since,
        number=target.number,
        title=target.event.title,
        body=target.event.body,
        base_ref=target.event.base_ref or _name(options.base, target.base),
        head_ref=target.event.head_ref or _name(options.head, target.head),
        new_failures=new,
        old_failures=old,
    )
    return render_context(facts)


def _name(ref: str | None, sha: str | None) -> str | None:
    """A ref worth naming beside its sha: a branch or tag, not the sha itself or HEAD."""
    if not ref or not sha or ref == "HEAD" or sha.startswith(ref.lower()):
        return None
    return ref


def build_task(
    command: str, head: str, suite: SuiteOutcome, failing: list[str], old: list[str]
) -> str:
    """The agent's task, built from the compacted failures so it starts where a person would."""
    listed = "\n".join(f"- {t}" for t in failing[:MAX_LISTED_FAILURES])
    if len(failing) > MAX_LISTED_FAILURES:
        listed += f"\n- … and {len(failing) - MAX_LISTED_FAILURES} more"
    parts = [
        f"The test command `{command}` fails at commit {head[:10]}. Make the failing tests pass "
        "by fixing the code they test. Do not delete, skip or weaken tests; change a test only "
        "if it is itself wrong, and say so.",
    ]
    if listed:
        parts.append(f"Failing tests:\n{listed}")
    if old:
        parts.append(
            "These tests already fail on the base branch and are not part of this task: "
            + ", ".join(old[:MAX_LISTED_FAILURES])
        )
    parts.append(f"Test output (compacted):\n{suite.run.log.strip()}")
    return "\n\n".join(parts)


def _check_inputs(repo: Path, options: FixOptions) -> _Target:
    if not is_repository(repo):
        raise CiInputError(f"{repo} is not a git repository")
    head = resolve_commit(repo, options.head)
    if head is None:
        raise CiInputError(f"--head {options.head!r} names no commit in {repo}")
    base = None
    if options.base:
        base = resolve_commit(repo, options.base)
        if base is None:
            raise CiInputError(f"--base {options.base!r} names no commit in {repo}")
    if not remote_exists(repo, options.remote):
        raise CiInputError(f"no git remote named {options.remote!r} in {repo}; pass --remote NAME")
    event = read_event(options.env)
    if isinstance(event, ContextProblem):
        raise CiInputError(event.message)
    pr = options.pr if options.pr is not None else event.number
    branch = f"coder/fix-{pr}" if pr is not None else f"coder/fix-{head[:10]}"
    pr_branch = _pr_branch(options, event) if options.push_to_pr else None
    since = (merge_base(repo, base, head) or base) if base is not None else None
    return _Target(head, base, since, pr_branch or branch, pr_branch, pr, event)


def _pr_branch(options: FixOptions, event: EventInfo) -> str:
    if not event.head_ref:
        raise CiInputError(
            "--push-to-pr needs the PR's branch name: run on a pull_request event "
            "(GITHUB_EVENT_PATH with pull_request.head.ref)"
        )
    repository = options.env.get("GITHUB_REPOSITORY")
    if event.head_repository and repository and event.head_repository != repository:
        raise CiInputError(
            f"--push-to-pr: the PR branch lives in the fork {event.head_repository}, "
            f"not in {repository}; push to a branch of its own instead"
        )
    return event.head_ref


def _suite_at(
    repo: Path,
    commit: str,
    options: FixOptions,
    *,
    ref: str,
    trusted: str,
    command: str | None = None,
) -> tuple[SuiteOutcome, str]:
    """The tests at `commit`; `command` given, it is used as is (base runs what head ran).
    `trusted`: the commit whose configuration chooses what is brought in (the base)."""
    with commit_tree(repo, commit) as tree:
        choice = choose_test_command(command or options.test_cmd, tree)
        for warning in choice.warnings:
            _warn(options, warning)
        if choice.command is None:
            raise CiInputError(
                "no test command: pass --test-cmd or set test_cmd in [tool.coder] / .coder.toml"
            )
        command = choice.command.command
        sandbox = tree_sandbox(
            tree, options.sandbox, command, options.warn, include=trusted_include(repo, trusted)
        )
        suite = run_suite(
            sandbox, tree, command, ref=ref, commit=commit, timeout_s=choice.timeout_s
        )
        return suite, command


def _run_and_push(
    repo: Path,
    options: FixOptions,
    target: _Target,
    task: str,
    context: str,
    command: str,
    report: FixReport,
) -> FixReport:
    from coder.config import DEFAULT_PROTECTED
    from coder.loop.runner import RunOptions, UsageError, run_task
    from coder.loop.state.rundirs import coder_path
    from sandbox.workspace import new_run_id

    run_id = new_run_id()
    try:
        out_dir = options.out_dir or coder_path(repo, "runs", run_id)
    except UsageError as exc:
        raise CiInputError(str(exc)) from None
    model = _model_spec(options)
    with _repo_at(repo, target.head) as run_repo:
        try:
            outcome = run_task(
                RunOptions(
                    repo=run_repo,
                    task=task,
                    model=model,
                    mode="contract",
                    test_cmd=command,
                    max_revisions=options.max_revisions,
                    sandbox=options.sandbox,
                    out_dir=out_dir,
                    warn=options.warn,
                    run_id=run_id,
                    always_protected=DEFAULT_PROTECTED,
                    environment_from=repo if run_repo != repo else None,
                    named_secrets=False,
                    task_context=context,
                    pr=target.record(),
                    record=options.record,
                )
            )
        except UsageError as exc:
            raise CiInputError(str(exc)) from None
        result = outcome.result
        report = report.model_copy(
            update={
                "run_id": result.run_id,
                "run_dir": str(outcome.run_dir),
                "stop_reason": result.stop_reason,
                "final_commit": result.final_commit,
                "steps": fix_steps(result, outcome.run_dir),
                "patch": result.patch,
                "remote": options.remote,
                "branch": target.branch,
            }
        )
        changed = result.final_commit and result.final_commit != target.head
        if result.status != "verified" or not changed:
            why = result.message or result.stop_reason
            if result.status == "verified":
                why = "the run verified but changed nothing"
            return report.model_copy(
                update={
                    "status": "not_verified",
                    "message": f"Run {result.run_id} ended {result.status} ({result.stop_reason}): "
                    f"{why}. Nothing was pushed.",
                }
            )
        fix = result.final_commit or ""
        effect = pr_effect(run_repo, target.since, target.head, fix) if target.since else None
        report = report.model_copy(update={"pr_effect": effect})
        own_branch = run_repo == repo
        if not own_branch:
            git(repo, "fetch", "--quiet", "--no-tags", str(run_repo), f"refs/heads/{result.branch}")
    return _deliver(repo, options, target, outcome, report, own_branch=own_branch)


def _deliver(
    repo: Path,
    options: FixOptions,
    target: _Target,
    outcome: RunOutcome,
    report: FixReport,
    *,
    own_branch: bool,
) -> FixReport:
    """Push a verified fix (unless `--fail-on revert` holds), then record where it went in
    result.json and drop the run's local branch, which the pushed branch now stands for."""
    from coder.loop.run.outputs import save_result

    result, effect, fix = outcome.result, report.pr_effect, outcome.result.final_commit or ""
    said = f"; {effect.sentence}" if effect else ""
    if effect is not None and effect.reverts_all and "revert" in options.fail_on:
        return report.model_copy(
            update={
                "status": "reverts_pr",
                "message": f"Run {result.run_id} verified, but {effect.sentence}. "
                "Nothing was pushed (--fail-on revert).",
            }
        )
    pushed = push_commit(
        repo,
        options.remote,
        fix,
        target.branch,
        force=target.pr_branch is None,
        token=options.env.get("GITHUB_TOKEN"),
    )
    if not pushed.ok:
        return report.model_copy(
            update={"status": "push_failed", "message": f"{pushed.message}{said}."}
        )
    if own_branch:
        git(repo, "branch", "-q", "-D", result.branch, check=False)
    record = target.record().model_copy(
        update={"pushed_branch": target.branch, "pushed_commit": fix}
    )
    save_result(outcome.run_dir, result.model_copy(update={"pr": record}))
    return report.model_copy(
        update={
            "status": "pushed",
            "message": f"{result.message}; {pushed.message}{said}.",
            "compare_url": _compare_url(options.env, target),
            "pr": record,
        }
    )


@contextmanager
def _repo_at(repo: Path, commit: str) -> Iterator[Path]:
    """A repository whose HEAD is `commit`: the user's own when it already is (the run works in
    a worktree and never touches the checkout), else a throwaway clone sharing its objects."""
    if resolve_commit(repo, "HEAD") == commit:
        yield repo
        return
    with tempfile.TemporaryDirectory(prefix="coder-ci-fix-") as tmp:
        clone = Path(tmp) / "repo"
        git(repo, "clone", "--quiet", "--shared", "--no-checkout", str(repo), str(clone))
        git(clone, "checkout", "--quiet", "--detach", commit)
        yield clone


def _model_spec(options: FixOptions) -> str:
    """The flag, else the default from the environment; never the head's `.coder.toml`, which
    the PR wrote and could point at a `script:` model of its own, steering the agent whose
    commits get pushed."""
    from coder.models.registry import ConfigError, default_model_spec

    if options.model:
        return options.model
    try:
        return default_model_spec(options.env)
    except ConfigError as exc:
        raise CiInputError(str(exc)) from None


def _compare_url(env: Mapping[str, str], target: _Target) -> str | None:
    repository = env.get("GITHUB_REPOSITORY")
    if not repository or target.pr_branch is not None:
        return None
    server = (env.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    return f"{server}/{repository}/compare/{target.head}...{target.branch}"


def _warn(options: FixOptions, message: str) -> None:
    if options.warn is not None:
        options.warn(message)
