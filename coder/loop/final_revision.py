"""A failed final check is worth one more revision (contract mode).

Every step verified, yet the repository's test command on the final tree says otherwise (a
test no step's invariant ran now fails, the run changed nothing). The planner is given the
final check's evidence and revises the plan as it does after a failed step, counted against
`--max-revisions`; the verified steps stay committed, the new plan's other steps run, and the
final check is run once more. Once: a second failure ends the run `final_check_failed`.
"""

from __future__ import annotations

from coder.loop.modes import run_steps
from coder.loop.plan.planning import revise_phase
from coder.loop.run.runtime import Runtime
from coder.loop.state.failure_account import FAILURE_BUDGET
from contracts.result import FinalCheck
from summarizers.tokens import estimate_tokens

WHAT_FAILED = (
    "Every step verified, but the final check (the repository's test command on the final "
    "tree) failed. The verified steps are committed and stay; add or change steps so that "
    "the final check passes."
)


def revise_after_final(rt: Runtime, final: FinalCheck) -> bool:
    """The revision, when the mode has a plan to revise and a revision is left; whether it
    was made (and the revised plan's steps ran)."""
    state = rt.state
    if rt.mode != "contract" or not rt.revise or state.plan is None:
        return False
    if state.revisions >= rt.limits.max_revisions:
        return False
    rt.trace.emit("final_check_revision", revision=state.revisions + 1)
    plan = revise_phase(rt, rt.session.redact(_account(final)), what_failed=WHAT_FAILED)
    run_steps(rt, plan)
    return True


def _account(final: FinalCheck) -> str:
    lines = [f"The final check failed: `{final.command or 'no test command'}`"]
    if final.new_failures:
        lines.append("Tests that passed at the base and fail now: " + ", ".join(final.new_failures))
    text = "\n".join([*lines, final.detail])
    while estimate_tokens(text) > FAILURE_BUDGET and len(text) > 200:
        text = text[: len(text) * 3 // 4] + "\n(cut)"
    return text
