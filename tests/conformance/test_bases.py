"""The matrix's ground truth: each generated base is what its cells say it is, by its own
test command run directly (no coder, no sandbox): a red hook fails it and names itself, a green
one passes; a quiet runner passes and prints no test's name; an artifacts base passes and leaves
the runner's files in the tree; a coverage gate passes on the whole suite and fails a run of
one file. Without this, a broken project would pass for a defect of coder. (A green base and a
test red in the same file show in every cell's evidence: the baseline's exit code and failing
ids.)"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from matrix_cells import POSITIVE, STATES, State
from matrix_check import BaseProjects
from matrix_projects import (
    clone,
    coder_command,
    command,
    drop_node_modules,
    give_node_modules,
    missing_runner,
    skip_or_fail,
)
from matrix_runners import RUNNERS, Runner


def _variant(runner: Runner, state: str) -> str | None:
    return {"artifacts": runner.artifacts, "coverage gate": runner.gate, "quiet": runner.quiet}[
        state
    ]


BASES = [
    pytest.param(runner, state, id=f"{runner.name} | {state}", marks=pytest.mark.bench)
    for runner in RUNNERS
    for state in STATES
    if state != "red in file"
    if state in ("red hook", "green hook") or (runner.known and _variant(runner, state) is not None)
]


def _run(repo: Path, cmd: str) -> tuple[int, str]:
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "CI": "1"}
    env["PATH"] = f"{repo / 'node_modules' / '.bin'}:{env['PATH']}"
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        ["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.timeout(1200)
@pytest.mark.parametrize(("runner", "state"), BASES)
def test_base_is_what_its_cells_say(
    runner: Runner, state: State, bases: BaseProjects, tmp_path: Path
) -> None:
    reason = missing_runner(runner, state)
    if reason:
        skip_or_fail(reason)
    repo = clone(bases.get(runner, state), tmp_path / "repo")
    if runner.language == "js":
        give_node_modules(repo, runner.packages)
    try:
        code, out = _run(repo, coder_command(runner, state))
        red = state == "red hook"
        assert (code != 0) == red, f"{runner.name} | {state}: exit {code}\n{out}"
        if state == "red hook":
            assert "lint:" in out, out
        if state == "quiet":
            assert POSITIVE.name not in out and POSITIVE.name.replace(" ", "_") not in out, out
        if state == "artifacts":
            left = [name for name in runner.wrote if list(repo.rglob(name))]
            assert left, f"{runner.name} wrote none of {runner.wrote}\n{out}"
        if state == "coverage gate":
            code, out = _run(repo, f"{command(runner, state)} {runner.files[0]}")
            assert code != 0, f"the gate let a run of one file pass\n{out}"
    finally:
        if runner.language == "js":
            drop_node_modules(repo)
