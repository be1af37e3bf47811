"""The fixed dependencies of one run, bundled so the modes can be short functions of it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from coder.loop.conversation.turns import Session
from coder.loop.state.state import Limits, RunState
from coder.loop.state.trace import TraceWriter
from coder.tools.toolbox import ToolBox
from coder.verdict.base_probe import BaseProbe
from coder.verdict.baseline import Baseline
from contracts.result import PlanSource
from contracts.validation import ValidPlan
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox


class Approval(Protocol):
    """A person who sees each plan version before it runs (`coder.loop.plan.approval.PlanApproval`);
    declared here so the runtime needs nothing of the approval, which needs the runtime."""

    def review(
        self, rt: Runtime, plan: ValidPlan, version: int, source: PlanSource
    ) -> tuple[ValidPlan, int]: ...


@dataclass
class Runtime:
    task: str
    mode: str
    root: Path
    run_dir: Path
    session: Session
    toolbox: ToolBox
    sandbox: Sandbox
    checkpoints: Checkpoints
    trace: TraceWriter
    state: RunState
    limits: Limits
    test_cmd: str | None
    protected: list[str]
    repo_map: str
    base_commit: str
    allow_unverified: bool = False
    allow_no_tests: bool = False
    """Go on when the baseline ran no test (--allow-no-tests); the final check says so."""
    task_context: str = ""
    """Background for the plan and revise briefings (RunOptions.task_context)."""
    baseline: Baseline | None = None
    given_plan: ValidPlan | None = None
    """The plan a person gave (--plan FILE): the first version, instead of the plan phase."""
    revise: bool = True
    """False (--no-revise): a step that fails verification ends the run."""
    approval: Approval | None = None
    """Set with --approve: every plan version is shown to a person before it runs."""
    probe: BaseProbe | None = None
    """Runs a part of the test command at the base where the baseline's log says nothing of
    it (a lint hook npm did not reach there)."""
    setup_cmd: str | None = None
    """The repository's setup_cmd: run first, within the run's --timeout (runner.prepare)."""
    together: Callable[[Runtime, ValidPlan, list[str]], ValidPlan] | None = None
    """Set with --jobs J: runs several ready steps at once (coder.loop.concurrent_steps) and
    returns the plan in force after them; None: one step at a time."""

    def budget_left(self) -> str:
        s, lim = self.state, self.limits
        return (
            f"{lim.max_turns - s.turns} turns, {lim.max_revisions - s.revisions} revisions, "
            f"{max(0, lim.timeout_s - s.elapsed()):.0f}s"
        )

    def save_plan(self, version: int, wire: dict) -> Path:
        path = self.run_dir / f"plan.v{version}.json"
        path.write_text(json.dumps(wire, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return path
