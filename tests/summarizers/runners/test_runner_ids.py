"""Runner modules read real runs into stable ids: two runs of one suite give the same ids
(no worker id, duration or temporary path), and captured output is never an outcome line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from summarizers.runners import pytest as pytest_runner
from summarizers.runners.reader import read_log
from summarizers.runners.table import RUNNERS, UnknownRunner, runner_named

FAST = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
"""A pytest of its own, on a basetemp of its own: the host's /tmp/pytest-of-<user> (and the
minutes its cleanup of old runs can take) is none of its business."""
SUITE = """\
import pytest


@pytest.mark.parametrize("n", [1, 2, "a-b"])
def test_param(n, tmp_path):
    assert n


def test_prints_failed_but_passes():
    print("FAILED test_s.py::test_other - AssertionError: not a failure")
    print("test_s.py::test_other FAILED")


def test_red():
    assert 0, "red"


@pytest.mark.xfail(reason="known")
def test_xf():
    assert 0


@pytest.mark.skip(reason="later")
def test_sk():
    pass
"""


def pytest_log(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [*PYTEST, f"--basetemp={root / '.basetemp'}", *args]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=FAST, timeout=600)


EXPECTED = {
    "test_s.py::test_param[1]": "passed",
    "test_s.py::test_param[2]": "passed",
    "test_s.py::test_param[a-b]": "passed",
    "test_s.py::test_prints_failed_but_passes": "passed",
    "test_s.py::test_red": "failed",
    "test_s.py::test_xf": "xfailed",
    "test_s.py::test_sk": "skipped",
}


def test_the_table_lists_every_runner_module_and_an_unknown_name_lists_them() -> None:
    names = [r.name for r in RUNNERS]
    assert names == ["pytest", "unittest", "node-test", "vitest", "jest", "mocha", "tap"]
    assert runner_named("pytest").name == "pytest"
    with pytest.raises(UnknownRunner, match="known: jest, mocha, node-test, pytest"):
        runner_named("ava")


def test_captured_output_that_prints_failed_is_not_a_failure(tmp_path: Path) -> None:
    (tmp_path / "test_s.py").write_text(SUITE)
    verbose = read_log(pytest_log(tmp_path, "-rA", "-v").stdout)
    assert verbose.outcomes == EXPECTED and verbose.all_listed
    assert verbose.sections[0].runner == "pytest"
    # -rA names a skip by file and line only: the log does not list every test, and says so
    short = read_log(pytest_log(tmp_path, "-rA").stdout)
    assert short.outcomes == {k: v for k, v in EXPECTED.items() if v != "skipped"}
    assert not short.all_listed


def test_the_junit_report_and_the_log_agree(tmp_path: Path) -> None:
    (tmp_path / "test_s.py").write_text(SUITE)
    report = tmp_path / "r.xml"
    pytest_log(tmp_path, "-q", "-o", "junit_family=xunit1", f"--junitxml={report}")
    assert pytest_runner.read_junit(report.read_bytes()) == EXPECTED


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import xdist"], capture_output=True).returncode != 0,
    reason="pytest-xdist not installed",
)
def test_two_runs_under_xdist_give_the_same_ids_without_worker_ids(tmp_path: Path) -> None:
    (tmp_path / "test_s.py").write_text(SUITE)
    env = {**os.environ}
    cmd = [*PYTEST, f"--basetemp={tmp_path / '.basetemp'}", "-n", "2", "-v", "-rA"]
    runs = [
        subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env).stdout
        for _ in range(2)
    ]
    assert "[gw" in runs[0]
    first, second = (read_log(r).outcomes for r in runs)
    assert first == second == EXPECTED


def test_node_tap_durations_are_not_part_of_an_id() -> None:
    text = (
        "TAP version 14\n"
        "# Subtest: test/ranges/min.js\n"
        "    ok 1 - min works # time=40.659ms\n"
        "    1..1\n"
        "ok 1 - test/ranges/min.js # time=40.659ms\n"
        "# Subtest: test/bin/cli.js\n"
        "    not ok 1 - exits 0 # time=30264.509ms\n"
        "    1..1\n"
        "not ok 2 - test/bin/cli.js # time=30264.509ms\n"
        "1..2\n"
    )
    again = text.replace("40.659", "38.1").replace("30264.509", "29001.2")
    first, second = read_log(text).outcomes, read_log(again).outcomes
    assert (
        first
        == second
        == {
            "test/ranges/min.js": "passed",
            "test/bin/cli.js": "failed",
        }
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_node_test_from_a_real_run_twice(tmp_path: Path) -> None:
    (tmp_path / "a.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('outer', async (t) => {\n  await t.test('inner ok', () => {});\n"
        "  await t.test('inner bad', () => { assert.equal(1, 2); });\n});\n"
    )
    runs = [
        subprocess.run(
            ["node", "--test", "--test-reporter=tap"], cwd=tmp_path, capture_output=True, text=True
        ).stdout
        for _ in range(2)
    ]
    first, second = (read_log(r) for r in runs)
    assert (
        first.outcomes
        == second.outcomes
        == {
            "outer > inner ok": "passed",
            "outer > inner bad": "failed",
            "outer": "failed",
        }
    )
    assert first.sections[0].runner == "node-test"
