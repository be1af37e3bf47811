"""Independent steps at the same time (`--jobs J`, contract mode).

When several steps are ready at once (every dependency verified), up to J of them run
together, each in a worktree of its own checked out at the run's current verified tip
(`sandbox.proof_tree.tree_at`), with its own toolbox, checkpoints and a sandbox made like the
run's: its execute phase and its verification there, exactly as a step alone. The model calls
of the steps overlap (a thread each; the run's state, trace and budgets are shared).

Then, in plan order, each step that verified is brought onto the run's branch (its change
cherry-picked onto the branch's tip, committed as a step alone is). The first step lands on
the tree it was verified on; a later one lands on a tree that already holds the earlier ones,
and is verified again there. A conflict, or a verification that fails on the merged tree,
rolls that step back and sends it to revision, saying what it conflicted with; a step that
failed in its own worktree is rolled back and revised as a step alone is. The trace's
`steps_overlapped` event says which steps ran together and when each started and ended.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from coder.checks.base import Check
from coder.checks.verify import verify_step
from coder.loop import modes
from coder.loop.conversation.turns import Session
from coder.loop.run.runtime import Runtime
from coder.loop.state.failure_account import failure_account
from coder.loop.state.state import RunState
from coder.tools.toolbox import ToolBox
from coder.verdict.trees import tree_sandbox
from contracts.validation import CompiledStep, ValidPlan
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox
from sandbox.gitcli import GitError, git, git_line
from sandbox.proof_tree import tree_at

Together = Callable[[Runtime, ValidPlan, list[str]], ValidPlan]


@dataclass
class _Alone:
    """What one step did in its own worktree."""

    step_id: str
    checks: list[Check] = field(default_factory=list)
    summary: str = ""
    commit: str | None = None
    """The step's commit in its worktree, when it verified."""
    patch: str = ""
    """Its change, for the failure account when it did not."""
    started: float = 0.0
    ended: float = 0.0
    stop: BaseException | None = None
    """A RunStop (a budget, the model) or a crash: raised once the batch is settled."""
    ready: threading.Event = field(default_factory=threading.Event)
    """Set once the step is done in its worktree; the worktree is removed after, while the
    branch takes the batch's changes."""

    @property
    def verified(self) -> bool:
        return self.commit is not None


def together(jobs: int) -> Together:
    """The batch runner `Runtime.together` holds: at most `jobs` ready steps at once."""

    def run(rt: Runtime, plan: ValidPlan, ready: list[str]) -> ValidPlan:
        return run_together(rt, plan, ready[:jobs])

    return run


def run_together(rt: Runtime, plan: ValidPlan, batch: list[str]) -> ValidPlan:
    tip = git_line(["rev-parse", "HEAD"], rt.root)
    rt.trace.emit("steps_started_together", steps=batch, tip=tip)
    lock = threading.Lock()
    outcomes = [_Alone(step_id) for step_id in batch]
    failed: list[str] = []
    merged: list[str] = []
    with ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix="step") as pool:
        for outcome in outcomes:
            pool.submit(_alone, rt, plan.steps[outcome.step_id], tip, lock, outcome)
        for outcome in outcomes:
            outcome.ready.wait()
        rt.trace.emit(
            "steps_overlapped",
            steps=[
                {"step": o.step_id, "started": round(o.started, 3), "ended": round(o.ended, 3)}
                for o in outcomes
            ],
        )
        for outcome in outcomes:
            if outcome.stop is not None:
                continue
            step = plan.steps[outcome.step_id]
            if not outcome.verified:
                note = f"Step {outcome.step_id} failed verification in its own worktree."
                _failed(rt, step, outcome.checks, outcome, note)
                failed.append(outcome.step_id)
            elif _bring_onto_branch(rt, step, outcome, merged):
                merged.append(outcome.step_id)
            else:
                failed.append(outcome.step_id)
    stop = next((o.stop for o in outcomes if o.stop is not None), None)
    if stop is not None:
        raise stop
    for step_id in failed[:1]:  # one revision; the others retry with their failure told
        rt.state.awaiting_revision = step_id
        plan = modes._revise(rt, step_id)
    return plan


def _alone(
    rt: Runtime, step: CompiledStep, tip: str, lock: threading.Lock, outcome: _Alone
) -> None:
    """The step's execute phase and verification in a worktree of its own at `tip`; `outcome`
    is ready before the worktree is removed."""
    step_id = step.contract.step_id
    outcome.started = time.time()
    try:
        with tree_at(rt.root, tip, {}) as tree:
            own = _own_runtime(rt, tree)
            if isinstance(own, str):
                outcome.checks = [Check("worktree", "failed", own)]
                return
            checkpoint = own.checkpoints.take(step_id)
            rt.trace.emit("checkpoint", step=step_id, sha=checkpoint.sha, worktree="own")
            failure = rt.state.failures.get(step_id, "")
            outcome.summary = modes._execute(own, step, failure, checkpoint.sha)
            too_big = own.checkpoints.oversized_change()
            outcome.checks = (
                [Check("change_size", "failed", too_big)]
                if too_big
                else verify_step(step, modes._verify_env(own, checkpoint.sha))
            )
            modes.emit_checks(rt, step_id, outcome.checks)
            if any(c.status == "failed" for c in outcome.checks):
                outcome.patch = own.checkpoints.patch_since(checkpoint.sha)
            else:
                with lock:
                    modes.withhold_secret_files(own)
                summary = rt.trace.redact.whole(outcome.summary)
                outcome.commit = own.checkpoints.commit(
                    modes.commit_message(step, summary, outcome.checks)
                )
            outcome.ended = time.time()
            outcome.ready.set()
    except BaseException as exc:  # RunStop, a crash: the batch settles, then it is raised
        if not outcome.ready.is_set():
            outcome.stop = exc
    finally:
        outcome.ended = outcome.ended or time.time()
        outcome.ready.set()


def _bring_onto_branch(rt: Runtime, step: CompiledStep, outcome: _Alone, merged: list[str]) -> bool:
    """The verified step's change onto the run's branch; whether it stays there."""
    step_id = step.contract.step_id
    checkpoint = rt.checkpoints.take(step_id)
    rt.trace.emit("checkpoint", step=step_id, sha=checkpoint.sha)
    assert outcome.commit is not None
    try:
        git(["cherry-pick", "--no-commit", outcome.commit], rt.root)
    except GitError as exc:
        paths = _conflicted(rt.root)
        rt.checkpoints.rollback(checkpoint, checkpoint.sha)
        why = (
            f"Step {step_id} verified in its own worktree, but its change conflicts with "
            f"{', '.join(merged) or 'the branch'} (brought onto the branch before it) in "
            f"{', '.join(paths) or 'its files'}: {exc}. It was rolled back; make it again on "
            "top of them."
        )
        conflict = Check("merge", "failed", why, detail=", ".join(paths))
        modes.emit_checks(rt, step_id, [conflict], merged_with=merged)
        _failed(rt, step, [conflict], outcome, why)
        return False
    checks = outcome.checks
    if git_line(["write-tree"], rt.root) != git_line(
        ["rev-parse", f"{outcome.commit}^{{tree}}"], rt.root
    ):
        checks = verify_step(step, modes._verify_env(rt, checkpoint.sha))
        modes.emit_checks(rt, step_id, checks, merged_with=merged)
        if any(c.status == "failed" for c in checks):
            outcome.patch = rt.checkpoints.patch_since(checkpoint.sha)
            rt.checkpoints.rollback(checkpoint, checkpoint.sha)
            note = (
                f"Step {step_id} verified in its own worktree, but failed verification once "
                f"brought onto the branch after {', '.join(merged)}: it was rolled back."
            )
            _failed(rt, step, checks, outcome, note)
            return False
    rt.state.summaries[step_id] = outcome.summary
    modes._commit(rt, step, checks)
    return True


def _failed(
    rt: Runtime, step: CompiledStep, checks: list[Check], outcome: _Alone, note: str
) -> None:
    """A step that did not make it onto the branch: recorded, its account kept for revision."""
    step_id = step.contract.step_id
    rt.state.record_checks(step_id, checks, "rolled_back")
    rt.state.rollbacks += 1
    rt.trace.emit(
        "rollback",
        step=step_id,
        to=step.contract.rollback_plan.git_checkout,
        paths=[],
        complete=True,
        restored_by_harness=[],
        note=note,
    )
    attempt = modes._attempt_account(outcome.summary, outcome.patch)
    account = failure_account(step_id, checks, f"{note}\n\n{attempt}", rt.session.redact)
    rt.state.failures[step_id] = account.text()
    rt.state.failure_accounts[step_id] = account


def _own_runtime(rt: Runtime, tree: Path) -> Runtime | str:
    """The run's runtime, for a step in its own worktree: the same model, trace, state and
    limits; a toolbox, checkpoints and a sandbox of the worktree's own."""
    sandbox = _tree_sandbox(rt, tree)
    if isinstance(sandbox, str):
        return sandbox
    toolbox = ToolBox(tree, sandbox, rt.toolbox.policy, rt.toolbox.cmd_timeout_s)
    session = Session(
        rt.session.model,
        toolbox,
        rt.trace,
        cast(RunState, _PhaseState(rt.state)),
        rt.limits,
        rt.session.system,
        rt.session.policy,
        rt.session.ask,
    )
    checkpoints = Checkpoints(
        tree,
        max_file_bytes=rt.checkpoints.max_file_bytes,
        max_change_bytes=rt.checkpoints.max_change_bytes,
    )
    return replace(
        rt, root=tree, session=session, toolbox=toolbox, sandbox=sandbox, checkpoints=checkpoints
    )


class _PhaseState:
    """The run's state as one of several phases at once sees it: turns, tokens and time are
    the run's (its budgets hold for all of them together), but what says whether this phase
    is getting anywhere (turns in a row with nothing new, calls that failed, what it has
    seen) is its own: three steps reading at once must not add up each other's idle turns."""

    _OWN = frozenset({"idle_turns", "failed_calls", "seen"})

    def __init__(self, shared: RunState) -> None:
        object.__setattr__(self, "_shared", shared)
        object.__setattr__(self, "idle_turns", 0)
        object.__setattr__(self, "failed_calls", {})
        object.__setattr__(self, "seen", set(shared.seen))

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_shared"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(object.__getattribute__(self, "_shared"), name, value)


def _tree_sandbox(rt: Runtime, tree: Path) -> Sandbox | str:
    """A sandbox like the run's (its mode, limits and command environment) for `tree`."""
    made = tree_sandbox(tree, rt.sandbox, rt.test_cmd)
    return made if not isinstance(made, str) else f"the step's own worktree: {made}"


def _conflicted(root: Path) -> list[str]:
    out = git(["diff", "--name-only", "--diff-filter=U"], root, check=False)
    return [line for line in out.decode(errors="replace").splitlines() if line]
