"""The filter on logs produced right now by the real runners, not only on stored captures."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from summarizers.logs import compact_log

FAST = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # quick pytest start-up

FAILING_TEST = """
import pytest


def helper(values):
    return sum(values) / len(values)


@pytest.mark.parametrize("values", [[1, 2, 3], []])
def test_mean(values):
    assert helper(values) == 2


def test_compare():
    assert {"x": 1} == {"x": 2}
"""


@pytest.mark.parametrize("style", ["--tb=auto", "--tb=line", "-v"])
def test_live_pytest(tmp_path: Path, style: str) -> None:
    (tmp_path / "test_live.py").write_text(FAILING_TEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", style, "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=FAST,
    )
    result = compact_log(proc.stdout + proc.stderr, budget=300, exit_code=proc.returncode)
    assert result.format == "pytest"
    assert set(result.failing) == {"test_live.py::test_mean[values1]", "test_live.py::test_compare"}
    assert "ZeroDivisionError" in result.text
    assert "2 failed, 1 passed" in result.text
    assert result.tokens <= 300


def test_live_unittest(tmp_path: Path) -> None:
    (tmp_path / "test_u.py").write_text(
        "import unittest\n\nclass T(unittest.TestCase):\n"
        "    def test_a(self):\n        self.assertEqual('x', 'y')\n"
        "    def test_b(self):\n        pass\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "unittest", "-v"], cwd=tmp_path, capture_output=True, text=True
    )
    result = compact_log(proc.stderr, budget=200)
    assert result.format == "unittest"
    assert result.failing == ["test_u.T.test_a"]
    assert "AssertionError: 'x' != 'y'" in result.text


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
@pytest.mark.parametrize("reporter", ["tap", "spec"])
def test_live_node(tmp_path: Path, reporter: str) -> None:
    (tmp_path / "b.test.js").write_text(
        "const { describe, it } = require('node:test');\nconst assert = require('node:assert');\n"
        "describe('suite', () => {\n  it('works', () => {});\n"
        "  it('breaks', () => { assert.deepStrictEqual([1], [2]); });\n});\n"
    )
    proc = subprocess.run(
        ["node", "--test", f"--test-reporter={reporter}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=FAST,
    )
    result = compact_log(proc.stdout, budget=300)
    assert result.failing == ["suite > breaks"]
    assert "AssertionError" in result.text
    assert result.tokens <= 300
