"""`coder plan`: the plan phase alone, for a person to read (and edit) before anything runs.

It is set up exactly as a run (same config, confinement, baseline and repository map, so the
planner sees what `coder run` would show it), and it takes everything down again: the
worktree is removed and its branch deleted. What stays is the plan file and, in the run
directory, the trace of how the planner got there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from coder.loop.plan.planning import plan_phase
from coder.loop.run.runtime import Runtime
from coder.loop.runner import RunOptions, open_run, prepare, top_level
from coder.loop.state.rundirs import coder_path
from coder.loop.state.state import RunStop, Terminated
from coder.loop.state.usage import UsageError
from coder.verdict.baseline import BaselineUnrunnable
from contracts.validation import ValidPlan
from sandbox.workspace import Workspace, new_run_id

PLANS_DIR = Path(".coder") / "plans"


@dataclass(frozen=True)
class PlanOutcome:
    plan: ValidPlan | None
    """None when the planner did not get to a valid plan (see stop_reason)."""
    plan_file: Path | None
    stop_reason: str
    """"completed", or why the plan phase ended without a plan (as a run's stop reasons)."""
    message: str
    run_dir: Path


def plan_task(options: RunOptions, out: Path | None = None) -> PlanOutcome:
    """Plan `options.task`; write the plan to `out` (default `<repo>/.coder/plans/<id>.json`)."""
    if options.plan_file is not None or options.approve or options.resume is not None:
        raise UsageError("coder plan writes a plan; --plan, --approve and resume are for coder run")
    run_id = options.run_id or new_run_id()
    target = (
        out.resolve()
        if out
        else coder_path(top_level(options.repo.resolve()), "plans") / f"{run_id}.json"
    )
    if target.is_dir():
        raise UsageError(f"--out {out} is a directory; give the plan file's path")
    options = replace(options, run_id=run_id, mode="contract", apply=False, session="plan")
    (plan, reason, message), run_dir = open_run(options, _plan_only)
    if plan is None:
        return PlanOutcome(None, None, reason, message, run_dir)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(plan.plan.wire(), indent=2, ensure_ascii=False) + "\n"
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot write the plan to {target} ({exc.strerror or exc}); "
            f"it is also in {run_dir / 'plan.v1.json'}"
        ) from None
    return PlanOutcome(plan, target, reason, message, run_dir)


def _plan_only(
    rt: Runtime, workspace: Workspace, model_spec: str, options: RunOptions
) -> tuple[ValidPlan | None, str, str]:
    reason, message, plan = "interrupted", "interrupted by the user", None
    unrunnable = False
    try:
        prepare(rt, workspace, None)
        plan = plan_phase(rt)
        reason, message = "completed", f"plan v1: {len(plan.order)} step(s), nothing changed"
    except RunStop as stop:
        reason, message = stop.reason, stop.message
    except Terminated:
        message = "terminated (SIGTERM)"
    except KeyboardInterrupt:
        pass
    except BaselineUnrunnable:
        unrunnable = True
        raise
    except Exception as exc:
        message = f"internal error: {type(exc).__name__}: {exc}"
        raise
    finally:
        if not unrunnable:
            rt.trace.emit(
                "run_finished",
                status="planned" if plan is not None else "stopped",
                stop_reason=reason,
                message=message,
                wall_s=round(rt.state.elapsed(), 3),
            )
        rt.trace.close()
        workspace.delete_branch()
    return plan, reason, message
