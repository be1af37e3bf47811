"""The calc repository used by the run-loop tests: add() subtracts; scale() is fine."""

from pathlib import Path
from typing import Any

from gitrepo import make_repo

CALC = """\
def add(a, b):
    return a - b


def scale(value, factor=2):
    return value * factor
"""

TESTS = """\
from calc import add, scale


def test_add():
    assert add(2, 3) == 5


def test_scale():
    assert scale(2) == 4
    assert scale(value=2, factor=3) == 6
"""

PYPROJECT = """\
[tool.coder]
test_cmd = "python -m pytest -q"
cmd_timeout = 20

[tool.pytest.ini_options]
# This repository needs none of the host's pytest plugins; loading them costs seconds a run.
addopts = "-p no:hypothesispytest -p no:benchmark -p no:anyio"
"""

FIX_ADD = {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}


def step(
    step_id: str, files: list[str], invariants: list[Any], deps: list[str] | None = None
) -> dict:
    return {
        "stepId": step_id,
        "dependencies": deps or [],
        "intendedModification": {"files": files, "invariants": invariants},
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }


def plan(*steps: dict) -> dict:
    return {"tool": "submit_plan", "input": {"goal": "fix calc", "steps": list(steps)}}


FIX_STEP = step(
    "fix-add",
    ["calc.py"],
    [
        "All unit tests in tests/test_calc.py must exit code 0",
        {"kind": "signature_unchanged", "symbol": "add", "file": "calc.py"},
    ],
)


FIX_TURNS = (
    plan(FIX_STEP),
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "finish_step", "input": {"summary": "fixed"}},
)
"""A scripted model's turns for the run that verifies: plan, fix, finish."""


def make_calc_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT},
    )
