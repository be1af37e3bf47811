"""Failures are one error only when they fail at the same line of the test, and the line shown
is the test's own, not a library frame in the middle of the stack.

The project reproduces a real case: more-itertools' `chunked_even` (MIT licence, trimmed) with a
one-line change to its look-ahead buffer that broke two tests. Both fail with the same message,
"2 not less than or equal to 1", at two different assertions of the test file; one of them is
reached through a library line. The logs are made live, by the real runners.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from logdata import summarized

from summarizers.logformats.context import assertion_site
from summarizers.logs import compact_log

# pytest cuts its summary lines to the terminal's width, except when it sees CI or BUILD_NUMBER:
# then it prints them whole. Both are real logs (the PR bot runs on CI), so both are tried.
_BARE = {k: v for k, v in os.environ.items() if k not in ("CI", "BUILD_NUMBER")}
_BARE["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
TERMINALS = {"terminal": {**_BARE, "COLUMNS": "80"}, "ci": {**_BARE, "CI": "true"}}

LIBRARY = """\
from itertools import islice


def chunked_even(iterable, n):
    iterator = iter(iterable)
    min_buffer = n + 1
    buffer = list(islice(iterator, min_buffer))
    for _ in islice(map(buffer.append, iterator), n, None, n):
        yield buffer[:n]
        del buffer[:n]
    if not buffer:
        return
    length = len(buffer)
    q, r = divmod(length, n)
    num_lists = q + (1 if r > 0 else 0)
    q, r = divmod(length, num_lists)
    full_size = q + (1 if r > 0 else 0)
    partial_size = full_size - 1
    num_full = length - partial_size * num_lists
    partial_start_idx = num_full * full_size
    if full_size > 0:
        for i in range(0, partial_start_idx, full_size):
            yield buffer[i : i + full_size]
    if partial_size > 0:
        for i in range(partial_start_idx, length, partial_size):
            yield buffer[i : i + partial_size]
"""

TESTS = """\
from itertools import count
from unittest import TestCase

from mi.more import chunked_even


class ChunkedEvenTests(TestCase):
    def test_evenness(self):
        for N in range(1, 50):
            for n in range(1, N + 2):
                lengths = [len(chunk) for chunk in chunked_even(range(N), n)]
                self.assertLessEqual(max(lengths) - min(lengths), 1)

    def test_infinite(self):
        for n in range(1, 5):
            k = 0

            def count_with_assert():
                for i in count():
                    self.assertLessEqual(i, n * k + n * n)
                    yield i

            ls = chunked_even(count_with_assert(), n)
            while k < 2:
                self.assertEqual(next(ls), list(range(k * n, (k + 1) * n)))
                k += 1

    def test_param_one(self):
        self.check(1)

    def test_param_two(self):
        self.check(2)

    def check(self, n):
        self.assertEqual(len(list(chunked_even([], n))), 1)
"""


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


EVENNESS_LINE = _line_of(TESTS, "max(lengths) - min(lengths)")
LOOKAHEAD_LINE = _line_of(TESTS, "self.assertLessEqual(i, n * k + n * n)")
CHECK_LINE = _line_of(TESTS, "len(list(chunked_even([], n)))")
LIBRARY_LINE = _line_of(LIBRARY, "map(buffer.append, iterator)")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mi")
    (root / "mi").mkdir()
    (root / "mi" / "__init__.py").write_text("")
    (root / "mi" / "more.py").write_text(LIBRARY)
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "test_more.py").write_text(TESTS)
    return root


@pytest.fixture(params=list(TERMINALS))
def terminal(request: pytest.FixtureRequest) -> dict[str, str]:
    return TERMINALS[request.param]


def _run(project: Path, env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, *argv], cwd=project, capture_output=True, text=True, env=env
    )
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout + done.stderr


PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_more.py"]
RUNNERS = {
    "pytest-long": [*PYTEST, "--tb=long"],
    "pytest-short": [*PYTEST, "--tb=short"],
    "unittest": ["-m", "unittest", "tests.test_more"],
}


def _line_for(text: str, test: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("FAILED") and test in line)


@pytest.mark.parametrize("runner", list(RUNNERS))
def test_same_message_at_two_assertions_is_two_errors(
    project: Path, terminal: dict[str, str], runner: str
) -> None:
    raw = _run(project, terminal, *RUNNERS[runner])
    tracebacks = raw.split("short test summary info")[0]
    assert tracebacks.count("AssertionError: 2 not less than or equal to 1") == 2  # the real case
    text = compact_log(raw, budget=300).text
    evenness = _line_for(text, "test_evenness")
    infinite = _line_for(text, "test_infinite")
    assert "same error as above" not in infinite
    assert (
        "2 not less than or equal to 1" in evenness and "2 not less than or equal to 1" in infinite
    )
    assert evenness.endswith(f"tests/test_more.py:{EVENNESS_LINE})")
    assert infinite.endswith(f"tests/test_more.py:{LOOKAHEAD_LINE})")
    assert f"more.py:{LIBRARY_LINE}" not in infinite  # the middle frame is not the location


@pytest.mark.parametrize("runner", ["pytest-long", "pytest-short"])
def test_each_assertion_keeps_its_own_context(
    project: Path, terminal: dict[str, str], runner: str
) -> None:
    text = summarized(_run(project, terminal, *RUNNERS[runner]), 2000).text
    assert "--- FAILED tests/test_more.py::ChunkedEvenTests::test_infinite" in text
    infinite = text.split("--- FAILED tests/test_more.py::ChunkedEvenTests::test_infinite")[1]
    assert "self.assertLessEqual(i, n * k + n * n)" in infinite.split("\n--- ")[0]


@pytest.mark.parametrize("runner", list(RUNNERS))
def test_one_assertion_failing_twice_is_one_error(
    project: Path, terminal: dict[str, str], runner: str
) -> None:
    text = summarized(_run(project, terminal, *RUNNERS[runner]), 2000).text
    one, two = _line_for(text, "test_param_one"), _line_for(text, "test_param_two")
    assert "AssertionError: 0 != 1" in one and f"test_more.py:{CHECK_LINE}" in one
    assert "same error as above" in two and f"test_more.py:{CHECK_LINE}" in two


@pytest.mark.parametrize(
    ("frames", "failure_id", "site", "origin"),
    [
        (
            ["tests/test_a.py:3", "pkg/m.py:9"],
            "tests/test_a.py::test_x",
            "tests/test_a.py:3",
            "pkg/m.py:9",
        ),
        (
            ["tests/test_a.py:3", "pkg/m.py:9", "tests/test_a.py:7"],
            "tests/test_a.py::test_x",
            "tests/test_a.py:7",
            "",
        ),
        (["tests/conftest.py:8"], "tests/test_a.py::test_x", "tests/conftest.py:8", ""),
        (["pkg/a.py:1", "pkg/b.py:2"], "tests/test_a.py::test_x", "pkg/b.py:2", ""),
        (
            ["/w/tests/test_more.py:10", "/w/mi/more.py:4", "/w/tests/test_more.py:5"],
            "tests.test_more.Tests.test_x",
            "/w/tests/test_more.py:5",
            "",
        ),
        (
            ["/w/tests/helpers.py:2", "/w/tests/test_more.py:10", "/w/tests/helpers.py:4"],
            "test_more.Tests.test_x",
            "/w/tests/test_more.py:10",
            "/w/tests/helpers.py:4",
        ),
        ([], "tests/test_a.py::test_x", "", ""),
    ],
)
def test_assertion_site_is_the_innermost_frame_of_the_tests_own_file(
    frames: list[str], failure_id: str, site: str, origin: str
) -> None:
    assert assertion_site(frames, failure_id) == (site, origin)
