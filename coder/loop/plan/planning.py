"""Plan and revision phases: the model proposes, validation disposes.

The planner may run commands (to reproduce a bug before it writes invariants). The first one
takes a checkpoint; whatever they change in the worktree is reset before the next step starts,
by the same machinery that rolls back a step: tracked files back to the commit, new untracked
and ignored entries removed, the ignored entries that were there before (the environment)
left alone.
"""

from __future__ import annotations

from typing import Any

from coder.loop.conversation import prompts
from coder.loop.conversation.repo_words import repo_words
from coder.loop.conversation.turns import Phase
from coder.loop.run.runtime import Runtime
from coder.tools.specs import PLAN_TOOLS
from coder.verdict.baseline import briefing_note
from coder.verdict.scoping import paths_briefing
from contracts.result import PlanSource
from contracts.validation import ValidPlan, validate_plan
from sandbox.checkpoint import Checkpoint


def first_plan(rt: Runtime) -> ValidPlan:
    """The plan the steps start from: the one in force (a resumed run), the one a person
    gave (--plan FILE), or the planner's."""
    if rt.state.plan is not None:
        return rt.state.plan
    if rt.given_plan is not None:
        return accept_version(rt, rt.given_plan, "user")
    return plan_phase(rt)


def plan_phase(rt: Runtime) -> ValidPlan:
    baseline = briefing_note(rt.baseline) if rt.baseline else ""
    briefing = prompts.plan_briefing(
        rt.task,
        rt.repo_map,
        rt.test_cmd,
        rt.task_context,
        baseline,
        repo_words(rt.root),
        paths_run=paths_briefing(rt.test_cmd, rt.root),
    )
    return _submit(rt, "plan", briefing, forms_known=True)


def revise_phase(
    rt: Runtime, failure: str, *, environmental: bool = False, what_failed: str | None = None
) -> ValidPlan:
    """Counted once its plan is accepted: a revision cut short (an interrupt) did not happen.
    `what_failed`: the briefing's account of what went wrong, when not a failed step."""
    assert rt.state.plan is not None
    briefing = prompts.revision_briefing(
        rt.task,
        rt.state.plan,
        rt.state.verified,
        failure,
        rt.budget_left(),
        rt.task_context,
        environmental=environmental,
        **({"what_failed": what_failed} if what_failed else {}),
    )
    previous = rt.state.plan
    plan = _submit(rt, "revise", briefing, forms_known=False)
    rt.state.revisions += 1
    kept = [s for s in rt.state.verified if _unchanged(previous, plan, s)]
    dropped = [s for s in rt.state.verified if s not in kept]
    rt.state.verified = kept
    for step_id in dropped:
        rt.state.outcome(step_id).status = "pending"
    rt.trace.emit(
        "plan_revised",
        version=rt.state.plan_versions,
        revision=rt.state.revisions,
        kept_verified=kept,
        reopened=dropped,
    )
    return plan


def _submit(rt: Runtime, name: str, briefing: str, *, forms_known: bool) -> ValidPlan:
    """`forms_known`: the briefing lists the invariant forms; otherwise the first rejection
    that needs them lists them, and later ones refer back to it."""
    accepted: list[ValidPlan] = []
    shown = [forms_known]

    def judge(tool: str, args: dict[str, Any]) -> str | None:
        check = validate_plan(
            args,
            allow_unverified=rt.allow_unverified,
            known_verified=frozenset(rt.state.verified),
            schema_key=False,
            forms_known=shown[0],
        )
        shown[0] |= check.shows_forms
        if check.plan is None:
            problems = [str(p) for p in check.problems]
            rt.trace.emit("plan_rejected", phase=name, problems=problems)
            return "The plan is invalid; fix every problem and submit again:\n" + "\n".join(
                f"- {p}" for p in problems
            )
        accepted.append(check.plan)
        return None

    before: list[Checkpoint] = []

    def checkpoint() -> None:
        if not before:
            before.append(rt.checkpoints.take(f"({name})"))

    rt.session.run_phase(Phase(name, PLAN_TOOLS, briefing, judge, before_command=checkpoint))
    if before:
        _reset(rt, before[0], name)
    return accept_version(rt, accepted[-1], "model")


def accept_version(rt: Runtime, plan: ValidPlan, source: PlanSource) -> ValidPlan:
    """A valid plan becomes the next version; with --approve a person sees it first (and may
    edit it into a version of their own, or stop). It is in force only once approved."""
    version = record_version(rt, plan, source, "plan_submitted")
    if rt.approval is not None:
        plan, version = rt.approval.review(rt, plan, version, source)
    rt.state.plan, rt.state.plan_version = plan, version
    rt.session.progress()
    return plan


def record_version(
    rt: Runtime, plan: ValidPlan, source: PlanSource, event: str, **extra: Any
) -> int:
    """Save `plan.vN.json` and say so in the trace; returns N."""
    rt.state.plan_versions += 1
    rt.state.plan_sources.append(source)
    path = rt.save_plan(rt.state.plan_versions, plan.plan.wire())
    rt.trace.emit(
        event,
        version=rt.state.plan_versions,
        steps=plan.order,
        file=path.name,
        goal=plan.plan.goal,
        source=source,
        **extra,
    )
    return rt.state.plan_versions


def _reset(rt: Runtime, before: Checkpoint, phase: str) -> None:
    """What the phase's commands changed, put back; a test runner's artifacts go too, unsaid
    (they are never the model's doing)."""
    report = rt.checkpoints.rollback(before, before.sha)
    paths = rt.checkpoints.artifacts.without(report.paths)
    if paths:
        rt.trace.emit(
            "rollback",
            step=None,
            phase=phase,
            to="HEAD",
            sha=before.sha,
            paths=paths,
            complete=True,
            restored_by_harness=[],
            note=f"reset what the {phase} phase's commands changed",
        )


def _unchanged(old: ValidPlan, new: ValidPlan, step_id: str) -> bool:
    """A verified step stays verified unless the new plan changes its files; a dropped step
    stays verified too, because later steps may depend on it by id."""
    if step_id not in new.steps or step_id not in old.steps:
        return True
    old_files = old.steps[step_id].contract.intended_modification.files
    return new.steps[step_id].contract.intended_modification.files == old_files
