"""A step that leaves 100,000 new files ends with a verdict, never "Argument list too long":
no git call the harness makes carries a step's paths on its command line unbounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from calcrepo import CALC, FIX_ADD, TESTS, plan, step
from gitrepo import git, make_repo

from coder.loop.runner import RunOptions, run_task
from sandbox.changes import path_batches

FILES = 100_000
MAKE_FILES = (
    "python3 -c \"import os; os.makedirs('gen'); "
    f"[open(f'gen/data-{{i:06d}}.txt', 'w').write(str(i)) for i in range({FILES})]\""
)
PYPROJECT = """\
[tool.coder]
test_cmd = "python -m pytest -q -p no:hypothesispytest -p no:benchmark -p no:anyio tests"
cmd_timeout = 600
"""


@pytest.mark.slow
@pytest.mark.bench  # minutes of git on 100,000 files: CI runs it in its bench pass
@pytest.mark.timeout(1800)
def test_a_step_leaving_100000_new_files_ends_with_a_verdict(tmp_path: Path, script) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"calc.py": CALC, "tests/test_calc.py": TESTS, "pyproject.toml": PYPROJECT},
    )
    model = script(
        plan(step("many", ["calc.py", "gen/**"], ["tests in tests/test_calc.py pass"])),
        {"tool": "run", "input": {"command": MAKE_FILES}},
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "finish_step", "input": {"summary": "fixed add, wrote the data files"}},
    )
    outcome = run_task(RunOptions(repo=repo, task="make add() add", model=model, max_revisions=0))
    result = outcome.result
    assert result.status == "verified", result.message
    assert "internal error" not in (result.message or "")
    listed = git(repo, "ls-tree", "-r", "--name-only", result.branch, "gen").split()
    assert len(listed) == FILES


def test_path_batches_keep_every_path_in_order_within_the_budget() -> None:
    paths = [f"dir/file-{i:05d}" for i in range(5000)]
    batches = list(path_batches(paths, budget=1000))
    assert [p for batch in batches for p in batch] == paths
    assert all(sum(len(p) + 1 for p in batch) <= 1000 for batch in batches)
    assert list(path_batches([])) == []
