"""Where a resumed run starts: the earlier run's branch, plan, steps, baseline and budgets.

`coder.loop.resume` decides whether a run can be resumed; this is what the runner does with
one that can: a worktree on the old branch, the run state as the old run left it (its verified
steps, the step in progress to start again from its checkpoint, what it spent), and the old
plan versions copied so the new run directory reads as the whole run.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from coder.loop.run.journal import restored_baseline
from coder.loop.run.runtime import Runtime
from coder.loop.state.state import Spent
from contracts.saved_run import SavedRun, save_run
from contracts.validation import ValidPlan
from sandbox.workspace import Workspace


@dataclass
class ResumePoint:
    saved: SavedRun
    from_dir: Path
    """The earlier run's directory."""
    plan: ValidPlan | None
    """The plan version in force when it stopped (validated again), or None."""

    @property
    def run_id(self) -> str:
        return self.saved.run_id

    def open_workspace(self, repo: Path, run_id: str) -> Workspace:
        return Workspace.reopen(repo, run_id, self.saved.branch, self.saved.base_commit)

    def begin(self, rt: Runtime) -> None:
        """Restore the run state, say so in the trace, and mark the old run as taken over."""
        saved, state = self.saved, rt.state
        spent = saved.spent
        state.started -= spent.wall_s  # this run's own setup so far counts too
        state.turns = spent.turns
        state.spent = Spent(**spent.timing.model_dump(exclude={"harness_s"}))
        state.input_tokens, state.output_tokens = spent.input_tokens, spent.output_tokens
        state.cache_read_tokens = spent.cache_read_tokens
        state.cache_write_tokens = spent.cache_write_tokens
        state.plan_versions, state.revisions = spent.plan_versions, spent.revisions
        state.rollbacks = spent.rollbacks
        state.plan, state.plan_version = self.plan, saved.plan_version or 0
        state.plan_sources = list(saved.plan_sources)
        state.steps = {o.stepId: o.model_copy(deep=True) for o in saved.steps}
        state.step_commits = dict(saved.step_commits)
        state.verified = list(saved.verified)
        state.failures = dict(saved.failures)
        state.awaiting_revision = saved.awaiting_revision
        self._copy_plans(rt.run_dir)
        if saved.baseline is not None:
            rt.baseline = restored_baseline(saved.baseline)
            rt.trace.emit("baseline", **rt.baseline.event(), restored_from=saved.run_id)
        rt.trace.emit(
            "run_resumed",
            from_run=saved.run_id,
            from_dir=str(self.from_dir),
            stopped=saved.stop_reason or "killed",
            plan_version=saved.plan_version,
            steps=self.plan.order if self.plan else [],
            verified=state.verified,
            in_progress=saved.in_progress.step if saved.in_progress else None,
            awaiting_revision=saved.awaiting_revision,
            spent=spent.model_dump(),
            limits=rt.limits.__dict__,
            left=rt.budget_left(),
        )
        taken = saved.model_copy(update={"resumed_by": rt.trace.run_id})
        try:
            save_run(self.from_dir, taken)
        except OSError:
            pass  # a read-only copy of a run: the branch check still stops a second resume

    def _copy_plans(self, run_dir: Path) -> None:
        if run_dir.resolve() == self.from_dir.resolve():
            return
        for plan in self.from_dir.glob("plan.v*.json"):
            if not (run_dir / plan.name).exists():
                shutil.copyfile(plan, run_dir / plan.name)
