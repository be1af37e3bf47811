"""Reflect mode (a baseline): an attempt as in react mode, a critique, and a fresh retry.

The critic sees the attempt's change and the harness's own run of the test command on it, so
its verdict can rest on something outside the model (the reference critic, with nothing
external to check against, flagged right answers as often as wrong ones). On "problem" the
attempt is rolled back to the base and a fresh attempt starts with the critique in its
briefing, never the first transcript. The retry's result replaces the first even when it is
worse, as in the reference: reflection keeps its last answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from coder.loop.conversation import prompts
from coder.loop.conversation.turns import Phase
from coder.loop.run.runtime import Runtime
from coder.loop.state.state import command_timeout
from coder.tools.specs import CRITIQUE_TOOLS, CritiqueDone, usage_line
from coder.verdict.baseline import ENVIRONMENT_FIX, Baseline
from coder.verdict.final_check import FullRun, tree_of
from coder.verdict.judge import Verdict, final_policy, judge
from coder.verdict.run import TestRun, run_tests
from sandbox.checkpoint import Checkpoint
from sandbox.gitcli import git
from sandbox.policy import PathPolicy
from summarizers.diffs import summarize_diff
from summarizers.logs import compact_log
from summarizers.tokens import clip_chars

DIFF_BUDGET = 1500
TESTS_BUDGET = 1200
IDS_SHOWN = 10
MESSAGE_CHARS = 160

Attempt = Callable[[Runtime, str, str], str]
"""(runtime, critique of the discarded attempt or "", phase name) -> the attempt's summary."""


@dataclass(frozen=True)
class Critique:
    verdict: str
    """ok | problem"""
    problem: str = ""


def run_reflect(rt: Runtime, attempt: Attempt) -> None:
    """Attempt; then up to --max-revisions rounds of critique and, on a problem, a fresh retry."""
    base = rt.checkpoints.take("(reflect base)")
    summary = attempt(rt, "", "react")
    for round_ in range(1, rt.limits.max_revisions + 1):
        critique = critique_phase(rt, round_, summary)
        if critique.verdict == "ok":
            return
        _discard(rt, base, round_)
        rt.state.revisions += 1
        summary = attempt(rt, critique.problem, f"retry:{round_}")


def critique_phase(rt: Runtime, round_: int, summary: str) -> Critique:
    attempt_commit = git(["rev-parse", "HEAD"], rt.root).decode().strip()
    run = _harness_tests(rt)
    patch = git(["diff", rt.base_commit, "HEAD"], rt.root).decode("utf-8", errors="replace")
    briefing = prompts.critique_briefing(
        rt.task,
        rt.session.redact(summary),
        summarize_diff(patch, budget=DIFF_BUDGET).text,
        rt.session.redact(run_account(run, rt.baseline)),
        base_note(rt.baseline),
        rt.budget_left(),
    )
    rt.toolbox.policy = PathPolicy(rt.root, [], rt.protected)
    before = rt.checkpoints.take(f"(critique {round_})")
    verdicts: list[Critique] = []

    def judge(tool: str, args: dict[str, Any]) -> str | None:
        try:
            said = CritiqueDone.model_validate(args)
        except ValidationError:
            return f"critique_done needs {usage_line('critique_done')}"
        problem = (said.problem or "").strip()
        if said.verdict == "problem" and not problem:
            return 'verdict "problem" needs `problem`: what is wrong, for the fresh attempt'
        verdicts.append(Critique(said.verdict, problem))
        return None

    rt.session.run_phase(Phase(f"critique:{round_}", CRITIQUE_TOOLS, briefing, judge))
    _reset_commands(rt, before, round_)
    critique = verdicts[-1]
    rt.trace.emit(
        "critique",
        round=round_,
        verdict=critique.verdict,
        problem=critique.problem,
        attempt_commit=attempt_commit,
        tests=_tests_event(run),
    )
    rt.session.progress()
    return critique


def _harness_tests(rt: Runtime) -> TestRun | None:
    """The test command on the attempt, run by the harness; the final check may reuse it."""
    if not rt.test_cmd:
        return None
    run = run_tests(rt.sandbox, rt.root, rt.test_cmd, command_timeout(rt.limits, rt.state))
    rt.state.spent.verification_s += run.result.duration_s
    rt.state.full_run = FullRun(tree_of(rt.root), run)
    return run


def run_account(run: TestRun | None, baseline: Baseline | None) -> str:
    """The run as the critic is told it: judged against the base, then the compacted log."""
    if run is None:
        return "No test command is known, so the harness ran no tests on the attempt."
    result = run.result
    head = f"The harness ran the test command `{run.command}` on the attempt:"
    judged = judged_run(run, baseline)
    if result.timed_out:
        verdict = f"it timed out after {result.duration_s:.0f}s and was killed."
    elif result.exit_code == 0 and (judged is None or judged.passed):
        verdict = "it passed (exit 0)."
    elif result.exit_code == 0 and judged is not None and judged.fewer and not judged.missing:
        verdict = (
            f"it exited 0, but {judged.fewer} fewer test(s) passed than before the change; the "
            "final check fails such a run."
        )
    elif result.exit_code == 0 and judged is not None:
        verdict = (
            f"it exited 0, but {len(judged.missing)} test(s) that ran before the change did "
            f"not run now (missing, skipped or xfailed): {_ids(judged.missing)}; the final "
            "check fails such a run."
        )
    else:
        new = judged.regressed if judged else []
        same = judged.already_failing if judged else []
        verdict = f"it exited {result.exit_code}"
        if new:
            verdict += f"; {len(new)} test(s) that passed before the change now fail: {_ids(new)}"
        if same:
            verdict += f"; still failing as before the change, the same way: {_ids(same)}"
        verdict += "."
        changed = judged.changed_message if judged else {}
        for t, (was, now) in list(changed.items())[:IDS_SHOWN]:
            verdict += (
                f"\n{t} failed before the change too, but differently: it was "
                f"{clip_chars(was or '(no message)', MESSAGE_CHARS)}; now "
                f"{clip_chars(now or '(no message)', MESSAGE_CHARS)}"
            )
        if run.incomplete:
            verdict += f" The run was incomplete: {run.incomplete}."
    log = compact_log(result.output, budget=TESTS_BUDGET, exit_code=result.exit_code).text
    return f"{head} {verdict}\n{log}".rstrip()


def judged_run(run: TestRun, baseline: Baseline | None) -> Verdict | None:
    """The run as the final check would judge it, or None without a baseline."""
    if baseline is None or baseline.command is None:
        return None
    return judge(run.facts(), baseline.facts(), final_policy())


def base_note(base: Baseline | None) -> str:
    """What the test command said before any change, so the critic can tell what the attempt
    broke from what was already red."""
    if base is None or base.command is None or base.run is None:
        return ""
    if base.timed_out:
        line = f"Before the change, `{base.command}` timed out."
    elif base.exit_code == 0:
        line = f"Before the change, `{base.command}` passed."
    elif base.failing:
        line = f"Before the change, these tests already failed: {_ids(base.failing)}."
    else:
        line = f"Before the change, `{base.command}` exited {base.exit_code}."
    if base.missing_environment:
        missing = "; ".join(base.missing_environment)
        line += (
            f"\nLikely a missing environment, not a code problem: {missing} ({ENVIRONMENT_FIX})."
        )
    return line


def _tests_event(run: TestRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "command": run.command,
        "exit_code": run.result.exit_code,
        "timed_out": run.result.timed_out,
        "failing": run.failing[: IDS_SHOWN * 10],
        "duration_s": round(run.result.duration_s, 3),
    }


def _reset_commands(rt: Runtime, before: Checkpoint, round_: int) -> None:
    """Whatever the critic's commands changed goes: the attempt ships as it was reviewed."""
    report = rt.checkpoints.rollback(before, before.sha)
    if report.paths:
        rt.trace.emit(
            "rollback",
            step=None,
            phase=f"critique:{round_}",
            to="HEAD",
            sha=before.sha,
            paths=report.paths,
            complete=True,
            restored_by_harness=[],
            note="reset what the critique's commands changed",
        )


def _discard(rt: Runtime, base: Checkpoint, round_: int) -> None:
    """Roll the attempt back to the base, verified like a step's rollback."""
    report = rt.checkpoints.rollback(base, base.sha)
    rt.state.rollbacks += 1
    rt.state.full_run = None
    rt.trace.emit(
        "rollback",
        step=None,
        phase=f"critique:{round_}",
        to="base",
        sha=base.sha,
        paths=report.paths,
        complete=report.complete,
        restored_by_harness=report.restored_by_harness,
        note="the critique found a problem: the attempt is discarded for a fresh one",
    )


def _ids(ids: list[str]) -> str:
    more = f" (+{len(ids) - IDS_SHOWN} more)" if len(ids) > IDS_SHOWN else ""
    return ", ".join(ids[:IDS_SHOWN]) + more
