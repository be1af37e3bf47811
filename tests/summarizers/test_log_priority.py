"""What a long failing log keeps when its failures do not all fit: types, distinct errors, counts.

The log comes from a real pytest run of many parametrized failures sharing one assertion site,
plus a few distinct errors, so the priorities are exercised the way big real logs need them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from logdata import summarized

from summarizers.logs import compact_log
from summarizers.tokens import estimate_tokens

FAST = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

MANY_FAILURES = """
import pytest


def shift(year):
    return year + 1


@pytest.mark.parametrize("year", range(1990, 2050))
def test_year_is_kept(year):
    assert shift(year) == year


def test_lookup():
    raise KeyError("missing-key-in-registry")


def test_parse():
    int("not a number")
"""


@pytest.fixture(scope="module")
def many_failures(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("many")
    (root / "test_many.py").write_text(MANY_FAILURES)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "--tb=auto", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        env=FAST,
    )
    assert "62 failed" in proc.stdout
    return proc.stdout


def test_types_line_comes_first_even_when_few_ids_fit(many_failures: str) -> None:
    result = compact_log(many_failures, budget=150)
    assert result.tokens <= 150
    types = next(line for line in result.text.splitlines() if line.startswith("errors by type"))
    assert "AssertionError x60" in types and "KeyError x1" in types and "ValueError x1" in types


def test_distinct_errors_get_their_message_before_the_remaining_bare_ids(
    many_failures: str,
) -> None:
    result = compact_log(many_failures, budget=600)
    assert result.tokens <= 600
    assert "missing-key-in-registry" in result.text
    assert "invalid literal for int()" in result.text
    assert "assert 1991 == 1990" in result.text
    assert any(item.startswith("ids of ") for item in result.omitted)


def test_ids_still_all_come_when_they_fit(many_failures: str) -> None:
    full = compact_log(many_failures, budget=100_000)
    needed = estimate_tokens("\n".join(f"FAILED {i}" for i in full.failing)) + 200
    result = compact_log(many_failures, budget=needed)
    assert all(ident in result.text for ident in result.failing)


def test_similar_failures_share_one_traceback_and_keep_their_own_values(
    many_failures: str,
) -> None:
    result = compact_log(many_failures, budget=4000)
    assert result.text.count("def test_year_is_kept(year):") == 1
    for year in (1990, 2020, 2049):
        assert f"test_year_is_kept[{year}] - assert {year + 1} == {year}" in result.text
    assert any("repeating an error shown" in item for item in result.omitted)
    assert estimate_tokens(result.text) < 4000  # not padded with 59 copies of one traceback


def test_assertion_type_is_left_implied_only_when_the_types_line_names_it(
    many_failures: str, tmp_path: Path
) -> None:
    many = compact_log(many_failures, budget=4000).text
    assert "test_year_is_kept[1990] - assert 1991 == 1990" in many
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 == 2\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=FAST,
    )
    one = summarized(proc.stdout, 4000).text
    assert "AssertionError" in one


def test_repeated_message_says_same_only_after_the_original_is_shown() -> None:
    lines = [f"FAILED tests/test_a.py::test_{i} - ValueError: bad input" for i in range(30)]
    log = "\n".join([*lines, "=========== 30 failed in 0.10s ==========="])
    result = summarized(log, 2000)
    first = result.text.index("test_0 - ValueError: bad input")
    assert result.text.index("same error as above") > first
