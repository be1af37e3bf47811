"""`coder run --attempts N`: N whole runs at the task, at most J at once, then one answer.

The attempts are jobs for the bench's executors (the local process pool, or Ray with
`--ray`). As each ends, its facts are read from its run directory; once two verified
candidates pass each other's proven tests and every other verified candidate's, the rest are
stopped (their processes get SIGTERM and end as a run does on it). Then the selection
(`coder.attempts.selection`) chooses, the branches are settled (`coder.attempts.branches`),
and the run's own directory gets a result.json whose `candidates` and `selected` say what was
chosen and a trace whose `selection` event says why.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from coder.attempts import branches
from coder.attempts.cost import Expected, expect, first_request_tokens, token_cap
from coder.attempts.crossproofs import CrossProofs
from coder.attempts.facts import load_result
from coder.attempts.job import AttemptJob, attempt_options, label
from coder.attempts.outcome import parent_result
from coder.attempts.selection import Attempted, Selection, select
from coder.attempts.watch import EnoughAgree, Watch
from coder.bench.executors import make_executor
from coder.bench.jobs import Executor, ExecutorUnavailable
from coder.config import ConfigError, RepoConfig, confinement, detect_test_cmd, load_repo_config
from coder.loop.modes import MODES
from coder.loop.run.outputs import save_result
from coder.loop.runner import RunOptions, RunOutcome, take_change, top_level
from coder.loop.state.rundirs import coder_path, discard_run_dir, first_missing
from coder.loop.state.state import Limits
from coder.loop.state.trace import TraceWriter
from coder.loop.state.usage import UsageError
from coder.models.registry import ConfigError as ModelConfigError
from coder.models.registry import default_model_spec, make_model
from sandbox.environment import NamedEnv
from sandbox.gitcli import GitError, git_line
from sandbox.passenv import PassEnvError, passed_environment
from sandbox.workspace import new_run_id


@dataclass
class AttemptsOptions:
    attempts: int
    models: list[str] = field(default_factory=list)
    """`--model` as given, once or more: attempt i uses the i-th, round robin."""
    jobs: int | None = None
    """At most this many attempts at once (default: the machine's cores)."""
    ray: str | None = None
    """A Ray address (or `local`) to run the attempts on, instead of local processes."""
    max_cost: float | None = None
    """US dollars the whole run may spend at list prices."""
    confirm: Callable[[str], bool] | None = None
    """`--approve`: shown what the run expects to spend, a person says whether to go on."""
    say: Callable[[str], None] = lambda line: None
    """Progress, one line at a time."""
    executor: Executor | None = None
    """Where the attempts run, when not the local pool or Ray (the bench: in its own job)."""


def run_attempts(options: RunOptions, many: AttemptsOptions) -> RunOutcome:
    started = time.monotonic()
    repo, config = _checked(options, many)
    models = _models(options, many, config)
    run_id = options.run_id or new_run_id()
    run_dir = options.out_dir.resolve() if options.out_dir else coder_path(repo, "runs", run_id)
    fresh = first_missing(run_dir)
    base_commit = _head(repo)
    test_cmd = (
        options.test_cmd or (config and config.test_cmd) or detect_test_cmd(repo, checkout=repo)
    )
    first = first_request_tokens(repo, options.task, test_cmd, options.mode)
    expected = expect(first, options.mode, models)
    many.say(expected.line())
    caps = _caps(models, many.max_cost, expected, many.say)
    try:
        executor = many.executor or make_executor(many.ray, many.jobs or os.cpu_count() or 1)
    except ExecutorUnavailable as exc:
        raise UsageError(str(exc)) from None
    run_dir.mkdir(parents=True, exist_ok=True)
    trace = TraceWriter(run_dir / "trace.jsonl", run_id)
    trace.emit(
        "run_started",
        task=options.task,
        mode=options.mode,
        session="attempts",
        model=models[0],
        models=models,
        attempts=many.attempts,
        jobs=many.jobs or os.cpu_count() or 1,
        executor=executor.name,
        repo=str(repo),
        test_cmd=test_cmd,
        expected_tokens=expected.tokens,
        expected_usd=expected.dollars,
        max_cost_usd=many.max_cost,
    )
    jobs = [
        AttemptJob(
            i,
            replace(
                attempt_options(options, i, run_id, run_dir),
                model=models[i - 1],
                max_tokens=_capped(options.max_tokens, caps[i - 1]),
            ),
            own_process=many.ray is None and many.executor is None,
        )
        for i in range(1, many.attempts + 1)
    ]
    watch = Watch(
        repo, run_dir, models, trace, many.say, _cross_proofs(options, config, repo, test_cmd)
    )
    stop_reason = None
    try:
        if many.confirm is not None and not many.confirm(expected.line()):
            stop_reason = "rejected_by_user"
        else:
            try:
                executor.run(jobs, watch.done)
            except EnoughAgree:
                pass
    except KeyboardInterrupt:
        stop_reason = "interrupted"
    finally:
        executor.close()
    usage = [r["usage"] for r in watch.rows if r.get("usage")]
    if usage and len(usage) == len(watch.rows) == many.attempts:
        trace.close()
        discard_run_dir(run_dir, fresh)
        raise UsageError(str(usage[0]))
    facts = [watch.facts_of(i) for i in range(1, many.attempts + 1)]
    if stop_reason != "interrupted":  # Ctrl-C: choose from what was exchanged so far
        for proving in facts:
            for other in facts:
                watch.exchange(proving, other)
    selection = select(facts, watch.exchanges)
    return _finish(
        options,
        repo,
        run_id,
        run_dir,
        trace,
        facts,
        selection,
        stop_reason,
        started,
        watch,
        base_commit,
    )


def _finish(
    options: RunOptions,
    repo: Path,
    run_id: str,
    run_dir: Path,
    trace: TraceWriter,
    facts: list[Attempted],
    selection: Selection,
    stop_reason: str | None,
    started: float,
    watch: Watch,
    base_commit: str,
) -> RunOutcome:
    chosen = selection.selected or selection.closest
    chosen_result = load_result(run_dir / label(chosen)) if chosen else None
    commit = chosen_result.final_commit if chosen_result else None
    branches.settle(repo, run_id, run_dir, len(facts), commit)
    trace.emit(
        "selection",
        selected=selection.selected,
        closest=selection.closest,
        reasons=selection.reasons,
        candidates=[c.model_dump() for c in selection.candidates],
    )
    for line in selection.reasons:
        watch.say(line)
    result = parent_result(
        run_id=run_id,
        task=options.task,
        mode=options.mode,
        models=watch.models,
        base_commit=base_commit,
        chosen=chosen_result,
        selection=selection,
        stop_reason=stop_reason,
        wall_s=time.monotonic() - started,
        turns=sum(f.turns for f in facts),
    )
    patch = run_dir / label(chosen) / "final.patch" if chosen else None
    (run_dir / "final.patch").write_bytes(patch.read_bytes() if patch and patch.is_file() else b"")
    save_result(run_dir, result)
    trace.emit(
        "run_finished",
        status=result.status,
        stop_reason=result.stop_reason,
        message=result.message,
        wall_s=result.wall_s,
        timing=result.timing.model_dump(),
    )
    trace.close()
    watch.say(f"{result.status} ({result.stop_reason}): {result.message}")
    take = take_change(repo, result, run_dir, options.apply)
    return RunOutcome(result, run_dir, take)


def _checked(options: RunOptions, many: AttemptsOptions) -> tuple[Path, RepoConfig | None]:
    """Bad input, said before anything is made (UsageError): the repository and its config."""
    if options.mode not in MODES:
        raise UsageError(f"unknown mode {options.mode!r}; choose one of {', '.join(MODES)}")
    if not options.task.strip():
        raise UsageError("the task is empty; pass --task TEXT")
    if many.attempts < 1:
        raise UsageError("--attempts must be 1 or more")
    if options.record is not None:
        raise UsageError("--record records one run's replies; it does not go with --attempts")
    repo = top_level(options.repo.resolve())
    try:
        git_line(["rev-parse", "--verify", "-q", "HEAD^{commit}"], repo)
    except (GitError, OSError):
        raise UsageError(
            f"{options.repo} is not a git repository with a commit to start from"
        ) from None
    try:
        config = load_repo_config(repo)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return repo, config


def _models(options: RunOptions, many: AttemptsOptions, config: RepoConfig | None) -> list[str]:
    """One model spec per attempt, round robin over `--model`; each one made once here, so a
    model that cannot be used is bad input before any attempt starts."""
    given = many.models or [options.model or (config.model if config else None) or ""]
    try:
        given = [spec or default_model_spec(os.environ) for spec in given]
        for spec in dict.fromkeys(given):
            make_model(spec, base_url=options.base_url)
    except (ModelConfigError, ConfigError) as exc:
        raise UsageError(str(exc)) from None
    return [given[(i - 1) % len(given)] for i in range(1, many.attempts + 1)]


def _caps(
    models: list[str], max_cost: float | None, expected: Expected, say: Callable[[str], None]
) -> list[int | None]:
    """Each attempt's token budget under `--max-cost`: its share of the dollars."""
    if max_cost is None:
        return [None] * len(models)
    if expected.unpriced:
        raise UsageError(
            f"--max-cost needs a list price, and there is none for {', '.join(expected.unpriced)}"
        )
    share = max_cost / len(models)
    caps = [token_cap(model, share) for model in models]
    tight = [
        i for i, cap in enumerate(caps, 1) if cap is not None and cap < expected.attempt_tokens(i)
    ]
    say(
        f"--max-cost ${max_cost:.2f}: each attempt may spend ${share:.2f}"
        + (
            f" (attempt(s) {', '.join(map(str, tight))} may stop at their token budget)"
            if tight
            else ""
        )
    )
    return caps


def _capped(asked: int | None, cap: int | None) -> int | None:
    if cap is None:
        return asked
    return min(asked or Limits().max_tokens, max(1, cap))


def _cross_proofs(
    options: RunOptions, config: RepoConfig | None, repo: Path, test_cmd: str | None
) -> CrossProofs:
    mode, _, _ = confinement(
        config, sandbox_flag=options.sandbox, always_protected=options.always_protected
    )
    try:
        passed = passed_environment(
            os.environ,
            config_names=(config.pass_env if config else None) or [],
            cli_names=options.pass_env,
        )
    except PassEnvError as exc:
        raise UsageError(str(exc)) from None
    env = NamedEnv({**options.command_env, **passed.values}, explicit=passed.values.explicit)
    timeout = (
        options.cmd_timeout_s or (config.cmd_timeout if config else None) or Limits().cmd_timeout_s
    )
    return CrossProofs(repo, test_cmd, mode, env, float(timeout), options.command_limits)


def _head(repo: Path) -> str:
    return git_line(["rev-parse", "HEAD"], repo)
