"""The test command a run detects is the project's own: its `.venv`, found in the user's
checkout (a run's worktree holds tracked files only), runs pytest."""

from __future__ import annotations

import subprocess
import sys

from calcrepo import CALC, FIX_TURNS, TESTS
from gitrepo import make_repo, write_script

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace

PYPROJECT = """\
[tool.pytest.ini_options]
addopts = "-p no:hypothesispytest -p no:benchmark -p no:anyio"
"""


def test_an_ignored_in_repository_venv_runs_the_tests(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC,
            "tests/test_calc.py": TESTS,
            "pyproject.toml": PYPROJECT,
            ".gitignore": ".venv/\n",
        },
    )
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", ".venv"],
        cwd=repo,
        check=True,
    )
    script = write_script(tmp_path / "script.json", list(FIX_TURNS))
    outcome = run_task(
        RunOptions(repo=repo, task="make add() add", model=f"script:{script}", cmd_timeout_s=30)
    )
    started = next(
        e for e in read_trace(outcome.run_dir / "trace.jsonl") if e["type"] == "run_started"
    )
    assert started["test_cmd"] == ".venv/bin/python -m pytest -q"
    assert outcome.result.status == "verified", outcome.result.message
