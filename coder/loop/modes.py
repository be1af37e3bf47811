"""The four modes. Each returns normally when its work is done (the runner then runs the
final check) or raises RunStop. Same tools, same budgets: only verification differs."""

from __future__ import annotations

from collections.abc import Callable

from coder.checks.base import Check, VerifyEnv
from coder.checks.proofs import removal_reason
from coder.checks.verify import verify_step
from coder.loop.conversation import prompts
from coder.loop.conversation.known_red import known_red
from coder.loop.conversation.repo_words import repo_words
from coder.loop.conversation.scratch import ScratchNotice
from coder.loop.conversation.turns import Phase
from coder.loop.plan.planning import first_plan, revise_phase
from coder.loop.reflect import run_reflect
from coder.loop.run.runtime import Runtime
from coder.loop.state.failure_account import failure_account
from coder.loop.state.state import RunStop, command_timeout
from coder.tools.specs import EXECUTE_TOOLS, REACT_TOOLS
from coder.verdict.baseline import briefing_note
from coder.verdict.final_check import FullRun, tree_of
from coder.verdict.scoping import command_for_paths
from contracts.graph import ready_steps
from contracts.validation import CompiledStep, ValidPlan
from sandbox.attempts import Attempt, save_attempt
from sandbox.checkpoint import ChangeTooLarge, InvalidRollbackRef, resolve_rollback_ref
from sandbox.gitcli import git, git_ok
from sandbox.policy import PathPolicy
from sandbox.workspace import attempts_dir
from summarizers.diffs import summarize_diff

ATTEMPT_DIFF_BUDGET = 800
SUMMARY_CHARS = 600


def run_contract(rt: Runtime) -> None:
    """Plan, then per step: checkpoint, execute, verify; commit on pass, roll back and revise on fail."""
    plan = first_plan(rt)
    if rt.state.awaiting_revision:  # a resumed run that stopped before its revision
        plan = _revise(rt, rt.state.awaiting_revision)
    run_steps(rt, plan)


def run_steps(rt: Runtime, plan: ValidPlan) -> None:
    """Every step of `plan` not verified yet, in order; a failed one is rolled back and the
    plan revised (`plan` becomes the revision)."""
    while (step_id := _next_step(rt)) is not None:
        if rt.together is not None and len(ready := _ready(rt)) > 1:
            plan = rt.together(rt, plan, ready)
            continue
        step = plan.steps[step_id]
        checkpoint = rt.checkpoints.take(step_id)
        rt.trace.emit("checkpoint", step=step_id, sha=checkpoint.sha)
        summary = _execute(rt, step, _last_failure(rt, step), checkpoint.sha)
        too_big = rt.checkpoints.oversized_change()
        checks = (
            [Check("change_size", "failed", too_big)]
            if too_big
            else verify_step(step, _verify_env(rt, checkpoint.sha))
        )
        emit_checks(rt, step_id, checks)
        if all(c.status != "failed" for c in checks):
            rt.state.summaries[step_id] = summary
            _commit(rt, step, checks)
            continue
        rt.state.record_checks(step_id, checks, "rolled_back")
        attempt = _attempt_account(summary, rt.checkpoints.patch_since(checkpoint.sha))
        rt.toolbox.attempt = _keep_attempt(rt, checkpoint.sha, step_id)
        _rollback(rt, step, checkpoint.sha)
        account = failure_account(step_id, checks, attempt, rt.session.redact)
        rt.state.failures[step_id] = account.text()
        rt.state.failure_accounts[step_id] = account
        failed = [c for c in checks if c.status == "failed"]
        if failed and all(c.environmental for c in failed):
            rt.state.environmental.add(step_id)
        else:
            rt.state.environmental.discard(step_id)
        rt.state.awaiting_revision = step_id
        plan = _revise(rt, step_id)


def _last_failure(rt: Runtime, step: CompiledStep) -> str:
    """What the step's attempt is told of its last failure: the checks its plan still has."""
    step_id = step.contract.step_id
    account = rt.state.failure_accounts.get(step_id)
    return account.for_step(step) if account else rt.state.failures.get(step_id, "")


def _revise(rt: Runtime, step_id: str) -> ValidPlan:
    if not rt.revise:
        raise RunStop(
            "revisions_exhausted",
            f"step {step_id} failed verification and revisions are off (--no-revise)",
        )
    if rt.state.revisions >= rt.limits.max_revisions:
        raise RunStop(
            "revisions_exhausted",
            f"step {step_id} failed after {rt.state.revisions} revision(s)",
        )
    plan = revise_phase(
        rt, rt.state.failures[step_id], environmental=step_id in rt.state.environmental
    )
    rt.state.awaiting_revision = None
    return plan


def run_plan_baseline(rt: Runtime) -> None:
    """Plan-and-execute: the same plan and step phases, no verification, no rollback."""
    plan = first_plan(rt)
    for step_id in plan.order:
        step = plan.steps[step_id]
        checkpoint = rt.checkpoints.take(step_id)
        rt.trace.emit("checkpoint", step=step_id, sha=checkpoint.sha)
        rt.state.summaries[step_id] = _execute(rt, step, "")
        _commit(rt, step, [], status="done_unverified")


def run_react(rt: Runtime, critique: str = "", phase: str = "react") -> str:
    """One tool loop until final_answer; the whole change is one commit. Returns the model's
    summary. `critique`: reflect mode's verdict on a discarded attempt, for its fresh one."""
    rt.toolbox.policy = PathPolicy(rt.root, None, rt.protected)
    baseline = briefing_note(rt.baseline, planner=False) if rt.baseline else ""
    briefing = prompts.react_briefing(
        rt.task, rt.repo_map, rt.test_cmd, rt.budget_left(), critique, baseline
    )
    end = rt.session.run_phase(Phase(phase, REACT_TOOLS, briefing, lambda tool, args: None))
    rt.state.said_removed = [str(t) for t in end.args.get("tests_removed") or []]
    if rt.checkpoints.changes_since("HEAD") and withhold_secret_files(rt):
        try:
            rt.checkpoints.commit(f"coder: {phase} run")
        except ChangeTooLarge as refused:
            _discard(rt, str(refused))
            return str(end.args.get("summary", ""))
        if rt.checkpoints.left_out:
            rt.trace.emit("observation", tool=None, status="error", text=oversized_note(rt))
    return str(end.args.get("summary", ""))


def withhold_secret_files(rt: Runtime) -> bool:
    """A file that holds a secret the harness holds never reaches a commit: it is put back as
    it was, and the trace names it (never the value). Whether anything is left to commit."""
    changes = rt.checkpoints.changes_since("HEAD")
    present = [c.path for c in changes if c.kind != "deleted"]
    holders = rt.trace.redact.scan.files_holding(rt.root, present)
    for path in holders:
        if git_ok(["cat-file", "-e", f"HEAD:{path}"], rt.root):
            git(["checkout", "HEAD", "--", path], rt.root)
        else:
            (rt.root / path).unlink()
    if holders:
        rt.trace.emit(
            "observation",
            tool=None,
            status="error",
            text=f"left out of the commit: {', '.join(holders)} held a secret the harness holds "
            "(an API key or token, in some form)",
        )
    return bool(rt.checkpoints.changes_since("HEAD"))


def oversized_note(rt: Runtime) -> str:
    bound = rt.checkpoints.max_file_bytes
    return f"left out of the commit, over the {bound} byte file size bound: " + ", ".join(
        rt.checkpoints.left_out
    )


MODES: dict[str, Callable[[Runtime], object]] = {
    "contract": run_contract,
    "react": run_react,
    "plan": run_plan_baseline,
    "reflect": lambda rt: run_reflect(rt, attempt=run_react),
}


def _next_step(rt: Runtime) -> str | None:
    ready = _ready(rt)
    return ready[0] if ready else None


def _ready(rt: Runtime) -> list[str]:
    """Steps not verified whose dependencies all are, in plan order."""
    assert rt.state.plan is not None
    return [
        s for s in ready_steps(rt.state.plan, set(rt.state.verified)) if s not in rt.state.verified
    ]


def _execute(rt: Runtime, step: CompiledStep, failure: str, checkpoint_sha: str = "") -> str:
    """Run the step's execute phase; the model's finish_step summary. With the checkpoint, the
    first finish_step that leaves scratch files outside the step's files is sent back once."""
    step_id = step.contract.step_id
    outcome = rt.state.outcome(step_id)
    outcome.attempts += 1
    rt.trace.emit(
        "step_started",
        step=step_id,
        attempt=outcome.attempts,
        files=step.contract.intended_modification.files,
    )
    rt.toolbox.policy = PathPolicy(rt.root, step.contract.intended_modification.files, rt.protected)
    done = [
        prompts.DoneStep(s, rt.state.step_commits.get(s, ""), rt.state.summaries.get(s, ""))
        for s in rt.state.verified
    ]
    test_cmd = rt.test_cmd
    words = repo_words(rt.root, step.contract.intended_modification.files)
    red = known_red(rt.baseline)
    briefing = prompts.step_briefing(
        rt.task,
        step,
        done,
        rt.budget_left(),
        failure,
        test_cmd,
        rt.state.plan,
        words,
        (lambda paths: command_for_paths(test_cmd, paths, rt.root).command) if test_cmd else None,
        base=red.briefing() if red else "",
    )
    files = step.contract.intended_modification.files
    on_final = (
        ScratchNotice(rt.checkpoints, checkpoint_sha, files, rt.protected)
        if checkpoint_sha
        else (lambda tool, args: None)
    )
    end = rt.session.run_phase(Phase(f"execute:{step_id}", EXECUTE_TOOLS, briefing, on_final))
    return str(end.args.get("summary", ""))


def _verify_env(rt: Runtime, checkpoint_sha: str) -> VerifyEnv:
    return VerifyEnv(
        root=rt.root,
        sandbox=rt.sandbox,
        checkpoints=rt.checkpoints,
        checkpoint_sha=checkpoint_sha,
        test_cmd=rt.test_cmd,
        cmd_timeout_s=command_timeout(rt.limits, rt.state),
        protected=rt.protected,
        baseline=rt.baseline,
        probe=rt.probe,
        removal_allowed=removal_reason(rt.task, _plan_by_user(rt)),
        base_commit=rt.base_commit,
    )


def _plan_by_user(rt: Runtime) -> bool:
    """Whether the plan version in force is the user's (`--plan FILE`, an edit under
    `--approve`)."""
    sources, version = rt.state.plan_sources, rt.state.plan_version
    return 0 < version <= len(sources) and sources[version - 1] == "user"


def _discard(rt: Runtime, why: str) -> None:
    """A change over the commit bound: taken out of the worktree (back to HEAD), and said."""
    rt.checkpoints.rollback("HEAD", "HEAD")
    rt.trace.emit("observation", tool=None, status="error", text=f"{why}; the change was discarded")


def _commit(rt: Runtime, step: CompiledStep, checks: list[Check], status: str = "verified") -> None:
    step_id = step.contract.step_id
    withhold_secret_files(rt)  # contract steps never get here with one: scope failed them
    summary = rt.trace.redact.whole(rt.state.summaries.get(step_id, ""))
    try:
        sha = rt.checkpoints.commit(commit_message(step, summary, checks))
    except ChangeTooLarge as refused:
        _discard(rt, str(refused))
        rt.state.record_checks(
            step_id, [Check("change_size", "failed", str(refused))], "rolled_back"
        )
        rt.state.failures[step_id] = str(refused)
        rt.session.progress()
        return
    if rt.checkpoints.left_out:
        rt.trace.emit("observation", tool=None, status="error", text=oversized_note(rt))
    rt.state.step_commits[step_id] = sha
    full = [c.run for c in checks if c.run and c.run.requested == rt.test_cmd]
    if full:
        rt.state.full_run = FullRun(tree_of(rt.root, sha), full[-1])
    rt.state.record_checks(step_id, checks, status)
    rt.state.outcome(step_id).commit = sha
    if status == "verified":
        rt.state.verified.append(step_id)
        proven = [test for check in checks for test in check.proven]
        rt.trace.emit("step_verified", step=step_id, commit=sha, proven=proven)
    rt.session.progress()


def commit_message(step: CompiledStep, summary: str, checks: list[Check]) -> str:
    """A step's commit reads as history, since a fix can be merged as it is (coder ci fix):
    the title, what the executor said it did, and what the verifier checked."""
    contract = step.contract
    body = [summary.strip()] if summary.strip() else []
    passed = [c.kind for c in checks if c.status == "passed"]
    trailers = [f"Coder-Step: {contract.step_id}"]
    if passed:
        trailers.append(f"Coder-Verified: {', '.join(dict.fromkeys(passed))}")
    return "\n\n".join([f"coder: {contract.title or contract.step_id}", *body, "\n".join(trailers)])


def _rollback(rt: Runtime, step: CompiledStep, checkpoint_sha: str) -> None:
    """Roll back as the plan says; a ref that resolves past the run's base falls back to the
    checkpoint (HEAD~1), and the trace says so."""
    plan = step.contract.rollback_plan
    ref, note = plan.git_checkout, ""
    try:
        target = resolve_rollback_ref(
            ref, checkpoint_sha, rt.state.step_commits, rt.root, base_commit=rt.base_commit
        )
    except InvalidRollbackRef as exc:
        target, note = checkpoint_sha, f"{exc}; rolled back to the checkpoint (HEAD~1) instead"
    report = rt.checkpoints.rollback(checkpoint_sha, target, plan.discard_paths)
    rt.state.rollbacks += 1
    undone = [
        s
        for s, sha in rt.state.step_commits.items()
        if s in rt.state.verified and not rt.checkpoints.contains(target, sha)
    ]
    for step_id in undone:
        rt.state.verified.remove(step_id)
        rt.state.outcome(step_id).status = "rolled_back"
    rt.trace.emit(
        "rollback",
        step=step.contract.step_id,
        to=plan.git_checkout,
        sha=target,
        paths=report.paths,
        complete=report.complete,
        restored_by_harness=report.restored_by_harness,
        unverified_steps=undone,
        note=note,
    )


def _keep_attempt(rt: Runtime, checkpoint_sha: str, step_id: str) -> Attempt | None:
    """The rolled-back change, kept beside the run's worktree for restore_attempt (never in
    the repository): scrubbed and bounded as a commit is, a file holding a secret the harness
    holds left out."""
    changes = rt.checkpoints.changes_since(checkpoint_sha)
    present = [c.path for c in changes if c.kind != "deleted"]
    holders = rt.trace.redact.scan.files_holding(rt.root, present)
    return save_attempt(
        rt.root,
        checkpoint_sha,
        step_id,
        attempts_dir(rt.root),
        left_out={path: "it held a secret the harness holds" for path in holders},
        max_file_bytes=rt.checkpoints.max_file_bytes,
        max_change_bytes=rt.checkpoints.max_change_bytes,
    )


def _attempt_account(summary: str, patch: str) -> str:
    """What the failed attempt did, so a revision keeps its correct half: the model's own
    summary and the rolled-back change, compacted."""
    said = summary.strip() or "(no summary)"
    said = said if len(said) <= SUMMARY_CHARS else said[: SUMMARY_CHARS - 1] + "…"
    diff = summarize_diff(patch, budget=ATTEMPT_DIFF_BUDGET).text
    return (
        f"What the failed attempt did: its finish_step summary was {said!r}. Its change, "
        f"rolled back (the files are as before the step):\n{diff}\n"
        "The retried step can bring this change back in one call, restore_attempt {} (or "
        '{"paths": [...]} for some of its files), then fix only what was wrong.'
    )


def emit_checks(
    rt: Runtime, step_id: str, checks: list[Check], merged_with: list[str] | None = None
) -> None:
    """Each check into the trace, its command time counted as verification (`merged_with`:
    a step verified again on the tree it landed on, beside steps that ran with it)."""
    for check in checks:
        rt.state.spent.verification_s += check.command_s
        rt.trace.emit(
            "verification",
            step=step_id,
            kind=check.kind,
            status=check.status,
            detail=check.detail,
            evidence=check.evidence,
            duration_s=round(check.command_s, 3),
            **({"merged_with": merged_with} if merged_with is not None else {}),
            **_run_facts(check),
        )


def _run_facts(check: Check) -> dict[str, object]:
    """What a check's test run showed, for readers of the trace (the bench's failure classes):
    whether it was killed at its time limit, and which tests that passed at the base failed."""
    if check.verdict is None:
        return {"timed_out": check.timed_out}
    return {"timed_out": check.timed_out, "regressed": list(check.verdict.regressed)}
