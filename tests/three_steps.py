"""A repository with three independent steps (each sets its own module's VALUE), and the
phase model's turns for them: for the concurrent-steps test and benchmarks/bench_steps.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitrepo import make_repo

NAMES = ("alpha", "beta", "gamma")
PYPROJECT = """\
[tool.coder]
test_cmd = "python -m unittest -v"
cmd_timeout = 60
"""
TESTS = """\
import unittest


class Values(unittest.TestCase):
    def test_modules_import(self):
        import alpha, beta, gamma  # noqa: F401
"""


def make_three(path: Path) -> Path:
    files = {f"{name}.py": "VALUE = 0\n" for name in NAMES}
    files |= {"tests/__init__.py": "", "tests/test_values.py": TESTS, "pyproject.toml": PYPROJECT}
    return make_repo(path, files)


def step(name: str, deps: list[str] | None = None, file: str | None = None) -> dict[str, Any]:
    target = file or f"{name}.py"
    return {
        "stepId": f"set-{name}",
        "dependencies": deps or [],
        "intendedModification": {
            "files": [target],
            "invariants": [
                {"kind": "text_present", "pattern": f"{name.upper()} = 1", "paths": [target]}
            ],
        },
        "rollbackPlan": {"gitCheckout": "HEAD~1"},
    }


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"tool": "submit_plan", "input": {"goal": "set the values", "steps": list(steps)}}


def step_turns(
    name: str, reads: int, file: str | None = None, old: str = "VALUE = 0\n"
) -> list[dict[str, Any]]:
    target = file or f"{name}.py"
    edit = {"path": target, "old_text": old, "new_text": f"{old}{name.upper()} = 1\n"}
    return [
        *({"tool": "read_file", "input": {"path": target}} for _ in range(reads)),
        {"tool": "edit_file", "input": edit},
        {"tool": "finish_step", "input": {"summary": f"{name} set"}},
    ]


def independent_phases(reads: int) -> dict[str, list[dict[str, Any]]]:
    """Three steps on three files, none depending on another."""
    phases: dict[str, list[dict[str, Any]]] = {"plan": [plan(*(step(n) for n in NAMES))]}
    phases |= {f"set-{n}": step_turns(n, reads) for n in NAMES}
    return phases
