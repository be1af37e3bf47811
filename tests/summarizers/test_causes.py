"""The line that says why nothing could run survives compaction, in every format, at every budget
that can hold it; and the names of modules that failed to import are read from it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from logdata import read_log

from summarizers.causes import find_causes, missing_imports
from summarizers.logformats.prep import prepare
from summarizers.logformats.registry import FORMATS, detect
from summarizers.logs import compact_log
from summarizers.runners.reader import read_log as read_runs
from summarizers.tokens import byte_cap, estimate_tokens, utf8_len

BUDGETS = [1, 2, 3, 5, 8, 13, 21, 40, 77, 150, 300, 600, 1200, 2000]
CAUSE_LOGS = {
    "cause_pytest_q.log": "No module named 'pkg._version'",
    "cause_pytest_rA.log": "No module named 'pkg._version'",
    "cause_unittest.log": "No module named 'missing_dep'",
    "cause_traceback.log": "No module named 'missing_dep'",
    "cause_doctest.log": "No module named 'missing_dep'",
    "cause_node_tap.log": "Cannot find module 'is-number'",
    "cause_node_esm.log": "Cannot find package 'is-number'",
    "cause_node_spec.log": "Cannot find module 'is-number'",
    "cause_tsc.log": "Cannot find module 'is-number'",
    "cause_mypy.log": 'module named "missing_dep"',
    "cause_ruff_missing_tool.log": "flake9: command not found",
    "cause_flake8_missing_tool.log": "flake9: command not found",
    "cause_generic_no_venv.log": ".venv/bin/python: No such file or directory",
}


def test_the_cause_logs_cover_every_format() -> None:
    formats = {detect(prepare(read_log(name)).lines).name for name in CAUSE_LOGS}
    assert formats == {f.name for f in FORMATS}


@pytest.mark.parametrize("name", CAUSE_LOGS)
def test_the_cause_survives_every_budget_that_can_hold_it(name: str) -> None:
    text, expected = read_log(name), CAUSE_LOGS[name]
    causes = find_causes(prepare(text).lines)
    assert causes and expected in causes[0].key
    held = [b for b in BUDGETS if byte_cap(b) > utf8_len(causes[0].key)]
    assert len(held) >= len(BUDGETS) - 6
    for budget in held:
        result = compact_log(text, budget=budget, exit_code=1)
        assert expected in result.text, (budget, result.text)
        assert estimate_tokens(result.text) <= budget


def test_a_failure_line_that_names_the_cause_is_not_repeated() -> None:
    lines = compact_log(read_log("cause_pytest_q.log"), budget=120, exit_code=2).text.splitlines()
    assert "ModuleNotFoundError: No module named 'pkg._version'" not in lines
    said = "ERROR tests/test_calc.py - ModuleNotFoundError: No module named 'pkg._version'"
    assert any(line.startswith(said) for line in lines)


def test_cause_lines_lose_their_decoration_and_repeat_once() -> None:
    lines = [
        "_____ ERROR collecting tests/test_a.py _____",
        "E   ModuleNotFoundError: No module named 'x'",
        "# Error: Cannot find module 'is-number'",
        "E   ModuleNotFoundError: No module named 'x'",
        "bash: line 1: jest: command not found",
        "sh: 1: mocha: not found",
    ]
    assert [(c.text, c.key) for c in find_causes(lines)] == [
        ("ModuleNotFoundError: No module named 'x'", "No module named 'x'"),
        ("Error: Cannot find module 'is-number'", "Cannot find module 'is-number'"),
        ("bash: line 1: jest: command not found", "jest: command not found"),
        ("sh: 1: mocha: not found", "mocha: not found"),
    ]


def test_collection_lines_stand_in_when_no_line_names_the_module() -> None:
    lines = ["_____ ERROR collecting tests/test_a.py _____", "ImportError while importing x"]
    causes = find_causes(lines)
    assert [c.text for c in causes] == ["ERROR collecting tests/test_a.py", causes[1].text]
    assert causes[0].key == "ERROR tests/test_a.py"  # what pytest's summary line says


def test_ordinary_failures_have_no_cause() -> None:
    assert find_causes(prepare(read_log("pytest_passing.log")).lines) == []
    assert find_causes(["FileNotFoundError: [Errno 2] No such file or directory: 'x.csv'"]) == []


def test_missing_imports_are_named() -> None:
    lines = [
        "E   ModuleNotFoundError: No module named 'pkg._version'",
        "E   ImportError: cannot import name 'thing' from 'requests' (/x/requests/__init__.py)",
        "# Error: Cannot find module 'is-number'",
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'left-pad' imported from /r/i.js",
        "ModuleNotFoundError: No module named 'pkg._version'",
    ]
    assert [(m.language, m.name) for m in missing_imports(lines)] == [
        ("python", "pkg._version"),
        ("python", "requests"),
        ("node", "is-number"),
        ("node", "left-pad"),
    ]


@pytest.mark.skipif(not shutil.which("node"), reason="needs node")
def test_live_node_run_whose_import_fails_keeps_the_cause(tmp_path: Path) -> None:
    """Issue 11: the evidence said only `ERR_TEST_FAILURE: test failed`."""
    (tmp_path / "test").mkdir()
    (tmp_path / "index.js").write_text("const isNumber = require('is-number');\n")
    (tmp_path / "test/a.test.js").write_text(
        "const test = require('node:test');\nrequire('../index.js');\ntest('a', () => {});\n"
    )
    (tmp_path / "test/b.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('b', () => { assert.strictEqual(1, 2); });\n"
    )
    proc = subprocess.run(
        ["node", "--test", "test/"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "ERR_TEST_FAILURE" in log
    for budget in (10, 20, 40, 80, 160, 600, 2000):
        result = compact_log(log, budget=budget, exit_code=1)
        assert "Cannot find module 'is-number'" in result.text, (budget, result.text)
    wide = compact_log(log, budget=300, exit_code=1)
    assert "a.test.js - Error: Cannot find module 'is-number'" in wide.text
    assert "test failed" not in wide.text.splitlines()[2]


def test_failure_messages_tell_how_each_test_failed() -> None:
    messages = messages_of(read_log("cause_pytest_rA.log"))
    assert messages["tests/test_dep.py"] == "ModuleNotFoundError: No module named 'missing_dep'"
    tap = messages_of(read_log("cause_node_tap.log"))
    assert tap["other fails"] == "AssertionError: 1 == 2"
    assert any(m == "Error: Cannot find module 'is-number'" for m in tap.values())
    masked = messages_of("FAILED t.py::test_x - ValueError: <Obj at 0x7f3a2b1c9d80>\n")
    assert masked == {"t.py::test_x": "ValueError: <Obj at 0x…>"}


def messages_of(text: str) -> dict[str, str]:
    return read_runs(text).messages
