"""The runner rows of the conformance matrix: one plain table, one row per test runner.

A row says how a project tested by that runner is written (its test files, its test command as
the owner runs it, its package.json), how a test is named in each spelling, and how the runner
is made to show each state of the base (no per-test lines, artifacts in the tree, a coverage
gate). Nothing here knows coder's internals: the cells drive coder through a run and read what
the run wrote. Adding a runner is a runner module in coder and one row in `RUNNERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One test of the generated project: `func(arg)` must equal `want`."""

    group: str
    name: str
    func: str
    arg: int
    want: int


@dataclass(frozen=True)
class Runner:
    name: str
    language: str
    """"python" or "js" (JS rows run through `npm test`, with `command` as the test script)."""
    command: str
    """The runner as the project's owner runs it."""
    files: tuple[str, str]
    """The file the cells name (calc tests) and a second test file beside it."""
    test_dir: str
    glob: str
    render: Callable[[list[Case]], str]
    """A whole test file holding these cases (all of one group)."""
    printed_id: Callable[[str, Case], str] | None
    """The spelling coder prints; None: a runner coder does not know (it runs whole)."""
    own_id: Callable[[str, Case], str] | None = None
    """The runner's own spelling, where it differs from the printed one."""
    packages: tuple[str, ...] = ()
    """The npm packages the project depends on (its node_modules: these and their own)."""
    package: dict[str, Any] = field(default_factory=dict)
    """package.json keys beyond name/private/scripts/devDependencies (JS)."""
    module: str = "cjs"
    """How the JS source is written: "cjs" or "esm"."""
    quiet: str | None = None
    """The command printing no per-test lines; None: this row has no such state."""
    artifacts: str | None = None
    """The command whose runs write files in the tree; "" the plain command already does."""
    wrote: tuple[str, ...] = ()
    """What those runs leave in the tree (never part of the model's change)."""
    gate: str | None = None
    """The command with a coverage gate on the whole suite; "" the runner's default has one."""
    gate_package: dict[str, Any] = field(default_factory=dict)
    """package.json keys that turn the gate on (and the row's `package` keys it replaces)."""
    extra_files: dict[str, str] = field(default_factory=dict)
    """Files the runner needs in the project (its configuration)."""
    slow: bool = False
    """One run takes many seconds: only one cell of it in the default suite."""

    @property
    def known(self) -> bool:
        return self.printed_id is not None


def _title(case: Case) -> str:
    return "test_" + case.name.replace(" ", "_")


def _pytest_file(cases: list[Case]) -> str:
    funcs = sorted({c.func for c in cases})
    lines = ["import pytest", "", f"from calc import {', '.join(funcs)}", "", ""]
    lines.append(f"class Test{cases[0].group.title()}:")
    for case in cases:
        lines += [
            f'    @pytest.mark.parametrize("x", [{case.arg}])',
            f"    def {_title(case)}(self, x):",
            f"        assert {case.func}(x) == {case.want}",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def _pytest_id(file: str, case: Case) -> str:
    return f"{file}::Test{case.group.title()}::{_title(case)}[{case.arg}]"


def _unittest_file(cases: list[Case]) -> str:
    funcs = sorted({c.func for c in cases})
    lines = ["import unittest", "", f"from calc import {', '.join(funcs)}", "", ""]
    lines.append(f"class Test{cases[0].group.title()}(unittest.TestCase):")
    for case in cases:
        lines += [
            f"    def {_title(case)}(self):",
            f"        self.assertEqual({case.func}({case.arg}), {case.want})",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def _unittest_id(file: str, case: Case) -> str:
    module = file.removesuffix(".py").replace("/", ".")
    return f"{module}.Test{case.group.title()}.{_title(case)}"


def _js_file(header: str, group: str, test: str, close: str) -> Callable[[list[Case]], str]:
    """A renderer: `header` (with {funcs}), then a group holding one `test` per case."""

    def render(cases: list[Case]) -> str:
        funcs = ", ".join(sorted({c.func for c in cases}))
        body = "".join(
            test.format(name=c.name, call=f"{c.func}({c.arg})", want=c.want) for c in cases
        )
        opened = group.format(group=cases[0].group) if group else ""
        return header.replace("{funcs}", funcs) + "\n" + opened + body + close

    return render


def _js_id(file: str, case: Case) -> str:
    return f"{file} > {case.group} > {case.name}"


_CJS = "const { {funcs} } = require('../src/calc.js');\n"
_DESCRIBE = "describe('{group}', () => {{\n"

JS_FILES = ("test/calc.test.js", "test/other.test.js")
_PYPROJECT = """\
[tool.pytest.ini_options]
# This project needs none of the host's pytest plugins; loading them costs seconds a run.
addopts = "-p no:hypothesispytest -p no:benchmark -p no:anyio -p no:xdist -p no:timeout"
"""
PY_FILES = ("tests/test_calc.py", "tests/test_other.py")

RUNNERS: list[Runner] = [
    Runner(
        name="pytest",
        language="python",
        command="python -m pytest -q",
        files=PY_FILES,
        test_dir="tests",
        glob="tests/test_*.py",
        render=_pytest_file,
        printed_id=_pytest_id,
        quiet="python -m pytest -q -rN --tb=no",
        artifacts="python -m pytest -q --junitxml=junit.xml",
        wrote=("junit.xml", ".pytest_cache", "__pycache__"),
        extra_files={"pyproject.toml": _PYPROJECT},
    ),
    Runner(
        name="unittest",
        language="python",
        command="python -m unittest",
        files=PY_FILES,
        test_dir="tests",
        glob="tests/test_*.py",
        render=_unittest_file,
        printed_id=_unittest_id,
        extra_files={"tests/__init__.py": ""},
    ),
    Runner(
        name="vitest",
        language="js",
        command="vitest run",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            "import { describe, test, expect } from 'vitest';\n"
            "import { {funcs} } from '../src/calc.js';\n",
            _DESCRIBE,
            "  test('{name}', () => {{\n    expect({call}).toBe({want});\n  }});\n",
            "});\n",
        ),
        printed_id=_js_id,
        packages=("vitest",),
        package={"type": "module"},
        module="esm",
        quiet="vitest run --reporter=dot",
        artifacts="vitest run --reporter=default --reporter=junit --outputFile.junit=junit.xml",
        wrote=("junit.xml",),
    ),
    Runner(
        name="jest",
        language="js",
        command="jest",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            _CJS,
            _DESCRIBE,
            "  test('{name}', () => {{\n    expect({call}).toBe({want});\n  }});\n",
            "});\n",
        ),
        printed_id=_js_id,
        packages=("jest",),
        own_id=lambda file, case: f"{case.group} › {case.name}",
        package={"jest": {"testEnvironment": "node"}},
        quiet="jest --silent --reporters=summary",
        artifacts="jest --coverage",
        wrote=("coverage",),
        gate="",
        gate_package={
            "jest": {
                "testEnvironment": "node",
                "collectCoverage": True,
                "collectCoverageFrom": ["src/**/*.js"],
                "coverageThreshold": {"global": {"lines": 100}},
            }
        },
    ),
    Runner(
        name="mocha",
        language="js",
        command="mocha",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            "const assert = require('node:assert');\n" + _CJS,
            _DESCRIBE,
            "  it('{name}', () => {{\n    assert.strictEqual({call}, {want});\n  }});\n",
            "});\n",
        ),
        printed_id=_js_id,
        packages=("mocha", "c8"),
        own_id=lambda file, case: f"{case.group} {case.name}",
        quiet="mocha --reporter dot",
        artifacts="c8 mocha",
        wrote=("coverage",),
        gate="c8 --check-coverage --lines 100 mocha",
    ),
    Runner(
        name="node-tap",
        language="js",
        command="tap",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            "const t = require('tap');\n" + _CJS,
            "t.test('{group}', async (t) => {{\n",
            "  t.test('{name}', async (t) => {{\n    t.equal({call}, {want});\n  }});\n",
            "});\n",
        ),
        printed_id=_js_id,
        packages=("tap",),
        package={"tap": {"disable-coverage": True}},
        quiet="tap --reporter=dot",
        artifacts="",
        wrote=(".tap",),
        gate="",
        gate_package={"tap": {}},
        slow=True,
    ),
    Runner(
        name="node --test",
        language="js",
        command="node --test",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            "const assert = require('node:assert');\n"
            "const { describe, it } = require('node:test');\n" + _CJS,
            _DESCRIBE,
            "  it('{name}', () => {{\n    assert.strictEqual({call}, {want});\n  }});\n",
            "});\n",
        ),
        printed_id=_js_id,
        own_id=lambda file, case: case.name,
        quiet="node --test --test-reporter=dot",
        artifacts="node --test --test-reporter=spec --test-reporter-destination=stdout"
        " --test-reporter=junit --test-reporter-destination=junit.xml",
        wrote=("junit.xml",),
    ),
    Runner(
        name="ava",
        language="js",
        command="ava",
        files=JS_FILES,
        test_dir="test",
        glob="test/*.test.js",
        render=_js_file(
            "const test = require('ava');\n" + _CJS,
            "",
            "test('{name}', (t) => {{\n  t.is({call}, {want});\n}});\n",
            "",
        ),
        printed_id=None,
        packages=("ava",),
    ),
]
"""Every runner the matrix runs: pytest and unittest from this Python, the JavaScript runners
from scripts/js-runners' pinned install, and AVA, which coder does not know."""
