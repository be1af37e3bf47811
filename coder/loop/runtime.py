"""The fixed dependencies of one run, bundled so the modes can be short functions of it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from coder.loop.state import Limits, RunState
from coder.loop.trace import TraceWriter
from coder.loop.turns import Session
from coder.tools.toolbox import ToolBox
from sandbox.checkpoint import Checkpoints
from sandbox.confine import Sandbox

VERIFY_ENV = {"PYTEST_ADDOPTS": "-p no:cacheprovider", "PYTHONDONTWRITEBYTECODE": "1"}


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
    allow_unverified: bool = False
    env: dict[str, str] = field(default_factory=lambda: dict(VERIFY_ENV))

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
