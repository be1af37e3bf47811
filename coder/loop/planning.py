"""Plan and revision phases: the model proposes, validation disposes."""

from __future__ import annotations

from typing import Any

from coder.loop import prompts
from coder.loop.baseline import briefing_note
from coder.loop.runtime import Runtime
from coder.loop.turns import Phase
from coder.tools.specs import PLAN_TOOLS
from contracts.validation import ValidPlan, validate_plan


def plan_phase(rt: Runtime) -> ValidPlan:
    baseline = briefing_note(rt.baseline) if rt.baseline else ""
    briefing = prompts.plan_briefing(rt.task, rt.repo_map, rt.test_cmd, rt.task_context, baseline)
    return _submit(rt, "plan", briefing)


def revise_phase(rt: Runtime, failure: str) -> ValidPlan:
    assert rt.state.plan is not None
    rt.state.revisions += 1
    briefing = prompts.revision_briefing(
        rt.task, rt.state.plan, rt.state.verified, failure, rt.budget_left(), rt.task_context
    )
    previous = rt.state.plan
    plan = _submit(rt, "revise", briefing)
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


def _submit(rt: Runtime, name: str, briefing: str) -> ValidPlan:
    accepted: list[ValidPlan] = []

    def judge(tool: str, args: dict[str, Any]) -> str | None:
        check = validate_plan(
            args, allow_unverified=rt.allow_unverified, known_verified=frozenset(rt.state.verified)
        )
        if check.plan is None:
            problems = [str(p) for p in check.problems]
            rt.trace.emit("plan_rejected", phase=name, problems=problems)
            return "The plan is invalid; fix every problem and submit again:\n" + "\n".join(
                f"- {p}" for p in problems
            )
        accepted.append(check.plan)
        return None

    rt.session.run_phase(Phase(name, PLAN_TOOLS, briefing, judge))
    plan = accepted[-1]
    rt.state.plan = plan
    rt.state.plan_versions += 1
    path = rt.save_plan(rt.state.plan_versions, plan.plan.wire())
    rt.trace.emit(
        "plan_submitted",
        version=rt.state.plan_versions,
        steps=plan.order,
        file=path.name,
        goal=plan.plan.goal,
    )
    rt.session.progress()
    return plan


def _unchanged(old: ValidPlan, new: ValidPlan, step_id: str) -> bool:
    """A verified step stays verified unless the new plan changes its files; a dropped step
    stays verified too, because later steps may depend on it by id."""
    if step_id not in new.steps or step_id not in old.steps:
        return True
    old_files = old.steps[step_id].contract.intended_modification.files
    return new.steps[step_id].contract.intended_modification.files == old_files
