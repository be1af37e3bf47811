"""A harness's test run leaves a report the project keeps in git as it was: the project's own
command asks pytest for `--junitxml=junit.xml`, and the file is tracked."""

from __future__ import annotations

from calcrepo import CALC, PYPROJECT, TESTS
from gitrepo import git, make_repo

from coder.verdict.run import run_tests
from sandbox.confine import make_sandbox

KEPT = '<?xml version="1.0"?>\n<testsuites name="as the owner committed it"/>\n'


def test_a_tracked_report_the_run_rewrites_is_put_back(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "calc.py": CALC.replace("a - b", "a + b"),
            "tests/test_calc.py": TESTS,
            "pyproject.toml": PYPROJECT,
            "junit.xml": KEPT,
        },
    )
    command = "python -m pytest -q --junitxml=junit.xml"
    run = run_tests(make_sandbox("auto", repo), repo, command, 60)
    assert run.result.exit_code == 0, run.result.output
    assert (repo / "junit.xml").read_text() == KEPT
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
