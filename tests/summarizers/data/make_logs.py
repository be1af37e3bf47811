"""Regenerate the captured logs in this directory by really running the tools.

    python tests/summarizers/data/make_logs.py          # from the repository root

Each log is the verbatim stdout+stderr of one real run on a tiny project written to a temporary
directory (so absolute paths in the logs point to a temporary directory that no longer exists).
tsc logs need `npm` (typescript is installed into the temporary project); flake8 is run only if
importable. Nothing here is used at test time except the files it writes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).parent

PY_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/calc.py": """
        def add(a, b):
            return a - b


        def deep(n):
            if n == 0:
                raise ValueError("bottom reached with n=0")
            return deep(n - 1)


        def recurse(n):
            return recurse(n + 1)
        """,
    "tests/__init__.py": "",
    "tests/conftest.py": """
        import sys

        import pytest


        @pytest.fixture
        def broken():
            raise RuntimeError("fixture exploded")


        @pytest.fixture
        def bad_teardown():
            yield 1
            raise OSError("teardown failed")


        @pytest.fixture
        def shallow_stack():
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(120)
            yield
            sys.setrecursionlimit(old)
        """,
    "tests/test_calc.py": """
        import warnings

        import pytest

        from pkg.calc import add, deep, recurse


        def test_add_ok():
            assert add(0, 0) == 0


        def test_add():
            assert add(2, 3) == 5


        def test_deep():
            deep(3)


        @pytest.mark.parametrize("a,b,expected", [(1, 1, 2), (2, 2, 0), (0, 5, 5)])
        def test_param(a, b, expected):
            assert add(a, b) == expected


        class TestDicts:
            def test_dict(self):
                assert {"a": 1, "b": [1, 2, 3]} == {"a": 1, "b": [1, 2, 4]}

            def test_ok(self):
                warnings.warn("this is deprecated", DeprecationWarning)
                assert True


        def test_fixture(broken):
            assert broken


        def test_teardown(bad_teardown):
            assert bad_teardown == 1


        def test_missing_fixture(nope):
            pass


        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass


        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert 0


        def test_recursion(shallow_stack):
            recurse(0)


        def test_print():
            print("some captured output")
            assert [1, 2, 3] == [1, 2]
        """,
    "tests/test_broken_import.py": """
        import pkg.nonexistent_module  # noqa

        def test_never():
            pass
        """,
}

PASSING_PROJECT = {
    "test_ok.py": """
        def test_one():
            assert 1 + 1 == 2


        def test_two():
            assert "a".upper() == "A"
        """,
}

UNITTEST_PROJECT = {
    "test_mod.py": """
        import unittest


        def helper(x):
            return {"k": x}["missing"]


        class TestThings(unittest.TestCase):
            def test_ok(self):
                self.assertEqual(1, 1)

            def test_fail(self):
                self.assertEqual([1, 2, 3], [1, 2, 4])

            def test_error(self):
                helper(3)

            @unittest.skip("later")
            def test_skip(self):
                pass

            def test_sub(self):
                for i in range(3):
                    with self.subTest(i=i):
                        self.assertLess(i, 2)

            def test_doc(self):
                \"\"\"A docstring line.\"\"\"
                self.assertTrue(False, "custom message")

            @unittest.expectedFailure
            def test_xf(self):
                self.assertEqual(1, 2)


        class TestSetup(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                raise RuntimeError("class setup broke")

            def test_never(self):
                pass
        """,
}

JS_PROJECT = {
    "math.js": """
        function add(a, b) { return a - b; }
        function boom() { throw new TypeError("boom happened"); }
        module.exports = { add, boom };
        """,
    "test/math.test.js": """
        const test = require('node:test');
        const { describe, it } = require('node:test');
        const assert = require('node:assert');
        const { add, boom } = require('../math');

        describe('math', () => {
          it('adds', () => { assert.strictEqual(add(1, 1), 2); });
          it('adds zero', () => { assert.strictEqual(add(1, 0), 1); });
          describe('nested', () => {
            it('deep equal', () => { assert.deepStrictEqual({a: [1, 2]}, {a: [1, 3]}); });
          });
        });

        test('throws', () => { boom(); });
        test('skipped one', { skip: 'not now' }, () => {});
        test('todo one', { todo: true }, () => {});
        test('parent', async (t) => {
          await t.test('child ok', () => {});
          await t.test('child bad', () => { assert.ok(false, 'child failed'); });
        });
        """,
    "test/other.test.js": """
        const test = require('node:test');
        const assert = require('node:assert');
        test('other passes', () => { assert.equal(1, 1); });
        test('other fails', () => { assert.equal(1, 2); });
        """,
}

TS_PROJECT = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020",'
    ' "module": "commonjs"}, "include": ["src"]}',
    "src/auth.ts": """
        export interface Credential {
          user: string;
          token: string;
        }

        export function verifyCredential(c: Credential): boolean {
          const n: number = c.user;
          return c.token.length > 0 && n > 0;
        }

        export function call(): void {
          verifyCredential({ user: "a" });
          undefinedFunction();
        }
        """,
    "src/other.ts": """
        import { verifyCredential } from "./auth";
        const x: string = 42;
        verifyCredential(1, 2);
        """,
}

LINT_PROJECT = {
    "bad.py": """
        import os
        import sys


        def f(x: int) -> str:
            y = 1
            return x + 1


        def g():
            return undefined_name
        """,
}

SCRIPT_PROJECT = {
    "app.py": """
        import json


        def load(text):
            try:
                return json.loads(text)
            except ValueError as exc:
                raise RuntimeError(f"config is not JSON: {text!r}") from exc


        load("{not json")
        """,
    "broken.py": "def f(:\n    pass\n",
}


DOCTEST_PROJECT = {
    "mod.py": '''
        def f(x):
            """
            >>> f(1)
            2
            >>> f(
            ...   2)
            3
            >>> g()
            'x'
            >>> print("a", "b", sep=chr(10))
            a
            c
            >>> f(0)
            """
            return x


        def g():
            """
            >>> g()
            'x'
            """
            raise ValueError("boom")
        ''',
}


LONG_NAMES_PROJECT = {
    "test_long_names.py": """
        class UsageError(Exception):
            pass


        def helper():
            try:
                {}["x"]
            except KeyError as exc:
                raise UsageError("the task is empty; pass --task TEXT") from exc


        def test_a_run_with_an_empty_task_is_refused_before_anything_is_created_in_the_repo():
            helper()


        def test_an_empty_task_is_refused_and_the_run_directory_is_never_written_at_all():
            raise UsageError("the task is empty")


        def test_short():
            assert 1 == 2
        """,
}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def run(cmd: list[str], cwd: Path, name: str) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    (HERE / name).write_text(proc.stdout + proc.stderr)
    print(f"{name}: exit {proc.returncode}, {len(proc.stdout + proc.stderr)} chars")


def main() -> None:
    py = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        proj = root / "pyproj"
        write(proj, PY_PROJECT)
        go_on = ["--continue-on-collection-errors"]
        for tb in ("auto", "long", "short", "line", "native", "no"):
            run([*py, f"--tb={tb}", *go_on], proj, f"pytest_tb_{tb}.log")
        run([*py, "-q", *go_on], proj, "pytest_q.log")
        run([*py, "-v", *go_on], proj, "pytest_v.log")
        run([*py, "-rA", *go_on], proj, "pytest_rA.log")
        run([*py, "-q", "-rA", "--tb=short", *go_on], proj, "pytest_q_rA_short.log")
        run([*py], proj, "pytest_collect_interrupted.log")
        write(root / "passing", PASSING_PROJECT)
        run([*py, "-q"], root / "passing", "pytest_passing.log")

        write(root / "ut", UNITTEST_PROJECT)
        run([sys.executable, "-m", "unittest"], root / "ut", "unittest_plain.log")
        run([sys.executable, "-m", "unittest", "-v"], root / "ut", "unittest_v.log")

        if shutil.which("node"):
            write(root / "js", JS_PROJECT)
            run(["node", "--test"], root / "js", "node_tap.log")
            run(["node", "--test", "--test-reporter=spec"], root / "js", "node_spec.log")

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
                run(["npx", "tsc"], ts, "tsc_plain.log")
                run(["npx", "tsc", "--pretty"], ts, "tsc_pretty.log")

        write(root / "lint", LINT_PROJECT)
        run(["ruff", "check", "--no-cache", "bad.py"], root / "lint", "ruff_full.log")
        run(
            ["ruff", "check", "--no-cache", "--output-format=concise", "bad.py"],
            root / "lint",
            "ruff_concise.log",
        )
        run([sys.executable, "-m", "mypy", "--no-incremental", "bad.py"], root / "lint", "mypy.log")
        try:
            import flake8  # noqa: F401

            run([sys.executable, "-m", "flake8", "bad.py"], root / "lint", "flake8.log")
        except ImportError:
            print("flake8 not importable; flake8.log kept as it is")

        write(root / "doctest", DOCTEST_PROJECT)
        run([sys.executable, "-m", "doctest", "mod.py"], root / "doctest", "doctest_plain.log")
        run([*py, "--doctest-modules", "mod.py"], root / "doctest", "pytest_doctest.log")

        write(root / "long", LONG_NAMES_PROJECT)
        run([*py], root / "long", "pytest_long_names.log")
        run([*py, "--tb=short"], root / "long", "pytest_long_names_short.log")
        run([*py, "--tb=short", "-k", "refused"], root / "long", "pytest_long_names_only.log")

        write(root / "script", SCRIPT_PROJECT)
        run([sys.executable, "app.py"], root / "script", "python_traceback.log")
        run(
            [sys.executable, "-m", "compileall", "-q", "."],
            root / "script",
            "generic_compileall.log",
        )


if __name__ == "__main__":
    main()
