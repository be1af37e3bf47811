"""unittest through its runner module against the real `python -m unittest` (pyasn1 live
trial): a test that writes to the stream after its `... ` is still read, and a test named
from its class (`Class.test`, as a model writes it) is selected and covered at any depth."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from summarizers.runners.names import Project, read_names
from summarizers.runners.table import runner_named

UNITTEST = runner_named("unittest")
SOURCE = """import sys
import unittest


class GeneralizedTimeTestCase(unittest.TestCase):
    def testRoundTrip(self):
        self.assertEqual(1, 1)

    def testOther(self):
        self.assertEqual(1, 2)


class DebugCase(unittest.TestCase):
    def testKnownFlags(self):
        sys.stderr.write("DBG: flags set\\nDBG: more\\n")
"""
FILES = ["tests/__init__.py", "tests/type/__init__.py", "tests/type/test_useful.py"]


def _project(root: Path) -> Project:
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(SOURCE if rel.endswith("test_useful.py") else "")
    return Project(frozenset(FILES))


def _run(root: Path, args: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "unittest", *args], cwd=root, capture_output=True, text=True
    )
    return dict(UNITTEST.read((done.stdout + done.stderr).splitlines()).outcomes)


def test_a_test_that_writes_after_its_dots_is_read(tmp_path: Path) -> None:
    _project(tmp_path)
    outcomes = _run(tmp_path, ["discover", "-v", "-s", "tests"])
    assert outcomes == {
        "type.test_useful.DebugCase.testKnownFlags": "passed",
        "type.test_useful.GeneralizedTimeTestCase.testRoundTrip": "passed",
        "type.test_useful.GeneralizedTimeTestCase.testOther": "failed",
    }


def test_every_spelling_of_one_test_selects_and_covers_it(tmp_path: Path) -> None:
    project = _project(tmp_path)
    full = "type.test_useful.GeneralizedTimeTestCase.testRoundTrip"
    for spelling in (
        "GeneralizedTimeTestCase.testRoundTrip",
        "test_useful.GeneralizedTimeTestCase.testRoundTrip",
        "tests.type.test_useful.GeneralizedTimeTestCase.testRoundTrip",
        full,
        "tests/type/test_useful.py::GeneralizedTimeTestCase::testRoundTrip",
    ):
        names = read_names([spelling], project)
        assert isinstance(names, list), names
        selected = UNITTEST.select(["discover", "-s", "tests"], names, project)
        [target] = selected.targets  # type: ignore[union-attr]
        outcomes = _run(tmp_path, selected.args[:])  # type: ignore[union-attr]
        assert outcomes == {full: "passed"}, spelling
        assert target.covers(full), spelling
        assert not target.covers(full.replace("testRoundTrip", "testOther")), spelling
