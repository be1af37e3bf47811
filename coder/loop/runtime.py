"""The fixed dependencies of one run, bundled so the modes can be short functions of it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from coder.loop.baseline import Baseline
from coder.loop.state import Limits, RunState
from coder.loop.trace import TraceWriter
from coder.loop.turns import Session
from coder.tools.toolbox import ToolBox
from contracts.result import PlanSource
from contracts.validation import ValidPlan
from sandbox.checkpoint import Checkpoints
from sandbox.confine import CommandResult, Sandbox
from sandbox.environment import NamedEnv


class Approval(Protocol):
    """A person who sees each plan version before it runs (`coder.loop.approval.PlanApproval`);
    declared here so the runtime needs nothing of the approval, which needs the runtime."""

    def review(
        self, rt: Runtime, plan: ValidPlan, version: int, source: PlanSource
    ) -> tuple[ValidPlan, int]: ...


COMMAND_ENV = {"PYTEST_ADDOPTS": "-p no:cacheprovider"}
"""pytest's cache directory would show up as a change outside every step's files."""


class EnvSandbox:
    """A sandbox whose every command also gets `env` (a call's own env wins on conflicts), and
    that tells `watchers` when each command starts and ends (the live progress line shows the
    command running and its elapsed time; these notes are for display and never traced)."""

    def __init__(
        self,
        inner: Sandbox,
        env: Mapping[str, str],
        watchers: Sequence[Callable[[dict[str, Any]], None]] = (),
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.root = inner.root
        self.view_root = inner.view_root
        self.env = dict(env)
        self.explicit = env.explicit if isinstance(env, NamedEnv) else frozenset()
        self.watchers = list(watchers)

    def run(
        self, command: str, *, cwd: Path, timeout_s: float, env: Mapping[str, str] | None = None
    ) -> CommandResult:
        merged = NamedEnv({**self.env, **(env or {})}, explicit=self.explicit)
        self._tell({"type": "command_started", "command": command, "started": time.monotonic()})
        try:
            return self.inner.run(command, cwd=cwd, timeout_s=timeout_s, env=merged)
        finally:
            self._tell({"type": "command_finished", "command": command})

    def _tell(self, note: dict[str, Any]) -> None:
        for watcher in self.watchers:
            try:
                watcher(note)
            except Exception:  # a display must never end a run
                self.watchers.remove(watcher)


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
