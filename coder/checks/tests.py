"""The tests family: `tests_pass` (the repository's test command, narrowed to the names an
invariant gives, judged against the baseline by the one judge) and `command_succeeds`.

Where the baseline cannot say which tests the names hold (its reporter names no passing test,
its ids do not name their file) and the step changed a test file among them, the same
selection also runs on the tree as it was before the step: a test it ran there that is gone
now fails the step unless a `tests_removed` names it."""

from __future__ import annotations

from dataclasses import replace

from coder.checks.base import EVIDENCE_BUDGET, Check, VerifyEnv, at_checkpoint
from coder.verdict.base_probe import judged_with_base_parts
from coder.verdict.evidence import step_head
from coder.verdict.flaky import Rerun, passed_again, worth_rerunning
from coder.verdict.judge import Policy, Verdict, step_policy, with_missing_before
from coder.verdict.run import run_tests
from coder.verdict.scoping import (
    command_for_paths,
    named_in_command,
    runner_configuration,
    targets_for,
)
from coder.verdict.trees import run_at
from contracts import invariants as inv
from contracts.validation import CompiledStep
from sandbox.pipestatus import with_pipeline_status
from sandbox.proof_tree import read_overlay
from summarizers.logs import compact_log
from summarizers.runners.model import Target, covered
from summarizers.runners.names import TEST
from summarizers.runners.table import RUNNERS


def _run_check(kind: str, command: str, env: VerifyEnv) -> Check:
    result = env.sandbox.run(
        with_pipeline_status(command), cwd=env.root, timeout_s=env.cmd_timeout_s
    )
    if result.timed_out:
        status, head = (
            "failed",
            f"`{command}` timed out after {result.duration_s:.0f}s and was killed",
        )
    elif result.exit_code == 0:
        status, head = "passed", f"`{command}` exited 0"
    else:
        status, head = "failed", f"`{command}` exited {result.exit_code}"
    if result.bound:
        head += f"; it hit a sandbox bound: {result.bound_message}"
    evidence = head
    if status == "failed" and result.output.strip():
        evidence += (
            "\n"
            + compact_log(result.output, budget=EVIDENCE_BUDGET, exit_code=result.exit_code).text
        )
    return Check(
        kind,
        status,
        evidence,
        detail=command,
        command_s=result.duration_s,
        timed_out=result.timed_out,
    )


def check_tests(invariant: inv.TestsPass, step: CompiledStep, env: VerifyEnv) -> Check:
    whole_command = invariant.command or env.test_cmd
    if not whole_command:
        return Check("tests_pass", "failed", "no test command: pass --test-cmd or set test_cmd")
    command = whole_command
    scope: tuple[Target, ...] | None = None
    named: tuple[Target, ...] = ()
    said = ""
    if invariant.command:
        scope = ()  # its own command selects tests the judge cannot tell
        named = named_in_command(invariant.command)
    elif invariant.paths:
        on_paths = command_for_paths(command, invariant.paths, env.root)
        if on_paths.problem:
            return Check("tests_pass", "failed", on_paths.problem, detail=command)
        command, said = on_paths.command, on_paths.note
        scope = on_paths.targets
        named = tuple(t for t in on_paths.targets if t.kind == TEST)
    run = run_tests(env.sandbox, env.root, command, env.cmd_timeout_s)
    base = env.baseline.facts() if env.baseline else None
    policy = step_policy(named, removed_on_purpose(step, env), scope)
    whole = not invariant.command and not invariant.paths
    probe = env.probe if whole else None
    verdict = judged_with_base_parts(run.facts(), base, policy, probe)
    spent = run.result.duration_s
    again = rerun_failures(verdict, whole_command, env)
    spent += again.seconds
    if again.passed:
        policy = replace(policy, flaky=frozenset(again.passed))
        verdict = judged_with_base_parts(run.facts(), base, policy, probe)
    if scope:
        verdict, before_s = judged_before(verdict, command, scope, policy, env)
        spent += before_s
    changed = [c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)]
    configured = runner_configuration(command, env.root, changed)
    how = (
        f"the step changed how the tests run: {', '.join(configured)} (each test's outcome is "
        "read by the harness itself, not from reports these files can rewrite)"
        if configured
        else ""
    )
    evidence = "\n".join(line for line in (step_head(verdict), said, how, run.note()) if line)
    if not verdict.passed and run.result.output.strip():
        evidence += (
            "\n"
            + compact_log(
                run.result.output, budget=EVIDENCE_BUDGET, exit_code=run.result.exit_code
            ).text
        )
    return Check(
        "tests_pass",
        "passed" if verdict.passed else "failed",
        evidence,
        detail=command,
        command_s=spent,
        run=run,
        verdict=verdict,
        timed_out=run.result.timed_out,
    )


def rerun_failures(verdict: Verdict, command: str, env: VerifyEnv) -> Rerun:
    """The step's few new failures run once more on a fresh checkout of the step's tree (the
    checkpoint with the step's change laid over it): those that pass are flaky."""
    failing = worth_rerunning(verdict)
    if not failing:
        return Rerun([])
    changes = env.checkpoints.changes_since(env.checkpoint_sha)
    paths = {p for c in changes for p in (c.path, c.old_path) if p}
    overlay = read_overlay(env.root, paths)
    if isinstance(overlay, str):
        return Rerun([])
    return passed_again(
        env.sandbox, env.root, env.checkpoint_sha, command, failing, env.cmd_timeout_s, overlay
    )


def judged_before(
    verdict: Verdict, command: str, scope: tuple[Target, ...], policy: Policy, env: VerifyEnv
) -> tuple[Verdict, float]:
    """`verdict` with the tests the same selection ran on the tree before the step that are
    missing now, where only that run can tell (`baseline_blind`) and the step changed a test
    file the names hold; and the seconds that run took (0 when none was needed)."""
    if not verdict.passed or not baseline_blind(verdict, scope, env):
        return verdict, 0.0
    files = {f for t in scope for f in t.files}
    changed = [c.path for c in env.checkpoints.changes_since(env.checkpoint_sha)]
    touched = [
        p
        for p in changed
        if (p in files if files else any(r.is_test_file(p) for r in RUNNERS))
        and at_checkpoint(env, p) is not None
    ]
    if not touched:
        return verdict, 0.0
    before = run_at(
        env.root, env.checkpoint_sha, env.sandbox, env.test_cmd, command, env.cmd_timeout_s
    )
    if isinstance(before, str):
        return verdict, 0.0
    spent = before.result.duration_s
    facts = before.facts()
    if facts.timed_out or facts.incomplete:
        return verdict, spent
    return with_missing_before(verdict, facts, policy), spent


def baseline_blind(verdict: Verdict, scope: tuple[Target, ...], env: VerifyEnv) -> bool:
    """The baseline cannot say which tests the names hold: it lists no passing test (a
    reporter that prints files, not tests), none of its ids is among them, or the judge could
    not look (ids that do not name their file)."""
    base = env.baseline.facts() if env.baseline else None
    if base is None or not base.all_listed or verdict.missing_unjudged:
        return True
    return not any(covered(t, scope) for t in base.outcomes)


def removed_on_purpose(step: CompiledStep, env: VerifyEnv) -> tuple[Target, ...]:
    """What the step's `tests_removed` invariants name, as the test command's ids spell it:
    the tests the judge must not count as missing, skipped, deselected or xfailed."""
    paths = [p for i in step.invariants if isinstance(i, inv.TestsRemoved) for p in i.paths]
    return targets_for(env.test_cmd, paths, env.root)


def check_command(invariant: inv.CommandSucceeds, step: CompiledStep, env: VerifyEnv) -> Check:
    return _run_check("command_succeeds", invariant.command, env)
