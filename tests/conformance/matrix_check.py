"""The one check every cell of the conformance matrix runs: clone the cell's base, run coder on
it with the cell's script, compare the verdicts with the specification."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from matrix_cells import Cell, State
from matrix_projects import (
    clone,
    coder_command,
    drop_node_modules,
    give_node_modules,
    make_base,
    missing_runner,
    script,
    skip_or_fail,
)
from matrix_runners import Runner
from matrix_verdicts import REMOVAL_TASK, TASK, differences, report, run_cell

from sandbox.confine import bwrap_unavailable_reason


@dataclass
class BaseProjects:
    root: Path
    made: dict[tuple[str, State], Path] = field(default_factory=dict)

    def get(self, runner: Runner, state: State) -> Path:
        key = (runner.name, state)
        if key not in self.made:
            name = f"{len(self.made)}-{runner.name.replace(' ', '')}"
            self.made[key] = make_base(self.root / name, runner, state)
        return self.made[key]


def check(cell: Cell, bases: BaseProjects, tmp_path: Path) -> None:
    reason = bwrap_unavailable_reason() or missing_runner(cell.runner, cell.state)
    if reason:
        skip_or_fail(reason)
    repo = clone(bases.get(cell.runner, cell.state), tmp_path / "repo")
    js = cell.runner.language == "js"
    if js:
        give_node_modules(repo, cell.runner.packages)
    try:
        task = REMOVAL_TASK if cell.change == "deleted, removed" else TASK
        seen = run_cell(
            repo, tmp_path / "run", script(cell), coder_command(cell.runner, cell.state), task
        )
    finally:
        if js:
            drop_node_modules(repo)
    wrong = differences(cell, seen)
    if wrong:
        pytest.fail(report(cell, seen, wrong), pytrace=False)
