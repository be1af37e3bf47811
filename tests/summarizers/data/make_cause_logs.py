"""Regenerate the `cause_*.log` files: real runs that fail because something could not be found.

    python tests/summarizers/data/make_cause_logs.py     # from the repository root

A module that is not installed, a generated file that is not there, a program that is not on
PATH: one line in the log says so, and it is the whole diagnosis. Each log is the verbatim
stdout+stderr of one real run, one per log format coder parses, so the compactor can be held to
keeping that line in every format.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from make_logs import run, write

PY_PROJECT = {
    "pkg/__init__.py": "from pkg._version import version\n",
    "pkg/calc.py": """
        def add(a, b):
            return a + b
        """,
    "tests/__init__.py": "",
    "tests/test_calc.py": """
        from pkg.calc import add


        def test_add():
            assert add(1, 2) == 3
        """,
    "tests/test_plain.py": """
        def test_plain():
            assert True
        """,
    "tests/test_dep.py": """
        import missing_dep


        def test_dep():
            assert missing_dep
        """,
}
"""`pkg/_version.py` is generated and ignored in a real project (hatch-vcs); it is absent here."""

UNITTEST_PROJECT = {
    "test_app.py": """
        import unittest

        import missing_dep


        class T(unittest.TestCase):
            def test_it(self):
                self.assertTrue(missing_dep)
        """,
    "test_ok.py": """
        import unittest


        class Ok(unittest.TestCase):
            def test_ok(self):
                self.assertEqual(1, 1)
        """,
}

SCRIPT_PROJECT = {"app.py": "import json\n\nimport missing_dep\n\nprint(json, missing_dep)\n"}

JS_PROJECT = {
    "index.js": """
        const isNumber = require('is-number');
        exports.double = (x) => { if (!isNumber(x)) throw new TypeError('nan'); return 2 * x; };
        """,
    "test/double.test.js": """
        const test = require('node:test');
        const assert = require('node:assert');
        const { double } = require('../index.js');
        test('doubles', () => { assert.strictEqual(double(2), 4); });
        """,
    "test/other.test.js": """
        const test = require('node:test');
        const assert = require('node:assert');
        test('other passes', () => { assert.equal(1, 1); });
        test('other fails', () => { assert.equal(1, 2); });
        """,
}

ESM_PROJECT = {
    "package.json": '{"type": "module"}',
    "index.js": "import isNumber from 'is-number';\nexport const double = (x) => 2 * x;\n",
    "test/double.test.js": """
        import test from 'node:test';
        import assert from 'node:assert';
        import { double } from '../index.js';
        test('doubles', () => { assert.strictEqual(double(2), 4); });
        """,
}

TS_PROJECT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020",'
    ' "module": "commonjs"}, "include": ["src"]}',
    "src/index.ts": """
        import isNumber from 'is-number';

        export function double(x: number): number {
          const n: string = x;
          return isNumber(n) ? 2 * x : 0;
        }
        """,
}

LINT_PROJECT = {
    "bad.py": "import os\n\nimport missing_dep\n\n\ndef f(x: int) -> str:\n    return x\n",
}


def main() -> None:
    py = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        proj = root / "pyproj"
        write(proj, PY_PROJECT)
        run([*py, "-q"], proj, "cause_pytest_q.log")
        go_on = ["--continue-on-collection-errors"]
        run([*py, "-q", "-rA", *go_on], proj, "cause_pytest_rA.log")

        write(root / "ut", UNITTEST_PROJECT)
        run([sys.executable, "-m", "unittest", "-v"], root / "ut", "cause_unittest.log")

        write(root / "script", SCRIPT_PROJECT)
        run([sys.executable, "app.py"], root / "script", "cause_traceback.log")

        if shutil.which("node"):
            write(root / "js", JS_PROJECT)
            run(["node", "--test"], root / "js", "cause_node_tap.log")
            run(["node", "--test", "--test-reporter=spec"], root / "js", "cause_node_spec.log")
            write(root / "esm", ESM_PROJECT)
            run(["node", "--test"], root / "esm", "cause_node_esm.log")

        if shutil.which("npm"):
            ts = root / "ts"
            write(ts, TS_PROJECT)
            subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "typescript"],
                cwd=ts,
                capture_output=True,
                timeout=300,
                check=False,
            )
            if (ts / "node_modules/.bin/tsc").exists():
                run(["npx", "tsc"], ts, "cause_tsc.log")

        write(root / "lint", LINT_PROJECT)
        run(
            [sys.executable, "-m", "mypy", "--no-incremental", "bad.py"],
            root / "lint",
            "cause_mypy.log",
        )
        lint_then_missing_tool = "ruff check --no-cache bad.py; flake9 bad.py"
        run(["bash", "-c", lint_then_missing_tool], root / "lint", "cause_ruff_missing_tool.log")
        try:
            import flake8  # noqa: F401

            lint = f"{sys.executable} -m flake8 bad.py; flake9 bad.py"
            run(["bash", "-c", lint], root / "lint", "cause_flake8_missing_tool.log")
        except ImportError:
            print("flake8 not importable; cause_flake8_missing_tool.log kept as it is")
        run(
            ["bash", "-c", "echo building docs; .venv/bin/python -m pytest -q"],
            root / "lint",
            "cause_generic_no_venv.log",
        )


if __name__ == "__main__":
    main()
