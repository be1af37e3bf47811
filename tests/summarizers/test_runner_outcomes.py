from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from logdata import read_log

from summarizers.logs import compact_log
from summarizers.runners.reader import read_log as read_runs


def parse_outcomes(text: str) -> dict[str, str]:
    return read_runs(text).outcomes


FAST = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # quick pytest start-up


def test_pytest_rA_names_every_test_that_ran() -> None:
    outcomes = parse_outcomes(read_log("pytest_rA.log"))
    assert outcomes["tests/test_calc.py::test_add_ok"] == "passed"
    assert outcomes["tests/test_calc.py::test_param[2-2-0]"] == "passed"
    assert outcomes["tests/test_calc.py::test_add"] == "failed"
    assert outcomes["tests/test_calc.py::TestDicts::test_dict"] == "failed"
    assert outcomes["tests/test_calc.py::test_fixture"] == "error"
    assert outcomes["tests/test_broken_import.py"] == "error"
    assert outcomes["tests/test_calc.py::test_xfail"] == "xfailed"
    # passed its call, errored in teardown: the worst outcome wins
    assert outcomes["tests/test_calc.py::test_teardown"] == "error"


def test_pytest_verbose_includes_skips() -> None:
    outcomes = parse_outcomes(read_log("pytest_v.log"))
    assert outcomes["tests/test_calc.py::test_skipped"] == "skipped"
    assert outcomes["tests/test_calc.py::test_add_ok"] == "passed"
    assert outcomes["tests/test_calc.py::test_param[0-5-5]"] == "failed"
    assert len(outcomes) == 16


def test_unittest_verbose() -> None:
    outcomes = parse_outcomes(read_log("unittest_v.log"))
    assert outcomes == {
        "test_mod.TestSetup.setUpClass": "error",
        "test_mod.TestThings.test_doc": "failed",
        "test_mod.TestThings.test_error": "error",
        "test_mod.TestThings.test_fail": "failed",
        "test_mod.TestThings.test_ok": "passed",
        "test_mod.TestThings.test_skip": "skipped",
        "test_mod.TestThings.test_sub (i=2)": "failed",
        "test_mod.TestThings.test_sub": "failed",
        "test_mod.TestThings.test_xf": "xfailed",
    }


def test_node_tap_uses_full_paths_for_nested_tests() -> None:
    outcomes = parse_outcomes(read_log("node_tap.log"))
    assert outcomes["math > adds"] == "failed"
    assert outcomes["math > adds zero"] == "passed"
    assert outcomes["math > nested > deep equal"] == "failed"
    assert outcomes["parent > child ok"] == "passed"
    assert outcomes["skipped one"] == "skipped"
    assert outcomes["other passes"] == "passed"


def test_ids_with_spaces_and_dashes_in_parameters() -> None:
    text = "PASSED t.py::test_p[a - b]\nFAILED t.py::test_p[c - d] - assert 0\n"
    assert parse_outcomes(text) == {
        "t.py::test_p[a - b]": "passed",
        "t.py::test_p[c - d]": "failed",
    }


def test_nothing_recognisable_gives_no_outcomes() -> None:
    assert parse_outcomes("make: *** [all] Error 2\n") == {}


def test_base_versus_head_shows_the_newly_failing_test(tmp_path: Path) -> None:
    """The final check's use: a real suite run twice, before and after breaking one test."""
    (tmp_path / "test_x.py").write_text(
        "def test_a():\n    assert True\n\ndef test_b():\n    assert True\n"
    )
    cmd = [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "-q"]
    base = parse_outcomes(
        subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=FAST).stdout
    )
    (tmp_path / "test_x.py").write_text(
        "def test_a():\n    assert True\n\ndef test_b():\n    assert 0\n"
    )
    head = parse_outcomes(
        subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=FAST).stdout
    )
    newly = sorted(t for t, o in base.items() if o == "passed" and head.get(t) != "passed")
    assert newly == ["test_x.py::test_b"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_node_tap_from_a_real_run(tmp_path: Path) -> None:
    (tmp_path / "a.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "test('outer', async (t) => {\n  await t.test('inner ok', () => {});\n"
        "  await t.test('inner bad', () => { assert.equal(1, 2); });\n});\n"
    )
    proc = subprocess.run(
        ["node", "--test"], cwd=tmp_path, capture_output=True, text=True, env=FAST
    )
    outcomes = parse_outcomes(proc.stdout)
    assert outcomes == {
        "outer > inner ok": "passed",
        "outer > inner bad": "failed",
        "outer": "failed",
    }


def test_tape_names_each_test_by_its_comment() -> None:
    """tape: no dash after the number, the test a `# name` comment; its assertions are the
    test's, a failure among them failing it (an id is a test, never an assertion message)."""
    outcomes = parse_outcomes(read_log("tape_qs.log"))
    assert outcomes["parse()"] == "passed"
    assert outcomes["stringifies lone surrogates as U+FFFD"] == "failed"
    assert outcomes["RFC 1738 serialization"] == "failed"
    assert not any(ident.startswith(("tests ", "pass ", "ok")) for ident in outcomes)


def test_tape_failures_are_compacted_with_their_values_and_places() -> None:
    text = compact_log(read_log("tape_qs.log"), budget=400, exit_code=1).text
    assert text.splitlines()[0] == "tests 1699, pass 1691, fail 8"
    assert (
        "FAILED RFC 1738 serialization > should be strictly equal (at /tmp/qs/test/stringify.js:1706)"
        in text
    )
    assert "actual:   'a=b%20c'" in text
    assert "node_modules/tape/lib" not in text
