"""A run that stopped before running everything is recognised from what the runner printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from logdata import read_log

from summarizers.runners.reader import read_log as read_runs

FAST = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": ""}
TESTS = {
    "test_a.py": "def test_one():\n    assert 1 == 2\n\n\ndef test_two():\n    assert 2 == 3\n",
    "test_b.py": "def test_three():\n    assert True\n",
}


def stopped_early(text: str) -> str | None:
    return read_runs(text).incomplete


def pytest_output(root: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=FAST,
        timeout=120,
    )
    return proc.stdout + proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in TESTS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("flags", [["-x"], ["--maxfail=1"], ["-q", "--exitfirst"]])
def test_pytest_stopping_after_failures(project: Path, flags: list[str]) -> None:
    assert stopped_early(pytest_output(project, *flags)) == "pytest was stopping after 1 failures"


def test_pytest_interrupted_by_collection_errors(project: Path) -> None:
    (project / "test_c.py").write_text("import missing_dep\n")
    said = stopped_early(pytest_output(project, "-q"))
    assert said == "pytest stopped at collection (1 error during collection)"
    assert stopped_early(read_log("pytest_collect_interrupted.log"))


def test_complete_runs_say_nothing(project: Path) -> None:
    assert stopped_early(pytest_output(project, "-q")) is None
    (project / "test_c.py").write_text("import missing_dep\n")
    assert stopped_early(pytest_output(project, "-q", "--continue-on-collection-errors")) is None
    for name in ("pytest_passing.log", "node_tap.log", "unittest_v.log", "pytest_rA.log"):
        assert stopped_early(read_log(name)) is None


def test_a_tap_bail_out() -> None:
    tap = "TAP version 13\nnot ok 1 - first\nBail out! too many failures\n"
    assert stopped_early(tap) == "the test runner bailed out (too many failures)"
