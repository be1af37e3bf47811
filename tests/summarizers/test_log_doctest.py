"""Doctest failures keep their example, Expected and Got at every budget; a log that fits the
budget comes back whole; one failure is one line whatever its id looks like."""

from __future__ import annotations

import pytest
from logdata import read_log

from summarizers.logs import compact_log, strip_terminal
from summarizers.tokens import estimate_tokens

BOLTONS = "pytest_doctest_boltons.log"  # a real boltons doctest failure (see data/README.md)
EXAMPLE = "camel2under('BasicParseTest')"
EXPECTED = "'basic_parse_test'"
GOT = "'Basic_Parse_Test'"


def test_a_log_that_fits_is_shown_whole_but_its_progress_dots() -> None:
    raw = read_log(BOLTONS)
    result = compact_log(raw, budget=2000)
    dots = "boltons/strutils.py ......F......................"
    assert dots in raw and dots not in result.text
    kept = [line.rstrip() for line in raw.splitlines() if not line.startswith(dots)]
    assert result.text.splitlines() == kept
    assert result.failing == ["boltons/strutils.py::boltons.strutils.camel2under"]


@pytest.mark.parametrize("budget", [300, 150, 100, 80, 60])
def test_a_doctest_failure_keeps_its_example_expected_and_got(budget: int) -> None:
    result = compact_log(read_log(BOLTONS), budget=budget)
    assert result.tokens <= budget
    for part in (EXAMPLE, EXPECTED, GOT):
        assert part in result.text, (budget, result.text)


def test_the_example_and_both_halves_come_as_detail_when_there_is_room() -> None:
    text = compact_log(read_log(BOLTONS), budget=100).text
    detail = text[text.index("\n--- ") :]
    assert (
        "073     >>> camel2under('BasicParseTest')\nExpected:\n    'basic_parse_test'\nGot:"
        in detail
    )


def test_one_doctest_failure_is_one_line() -> None:
    text = compact_log(read_log(BOLTONS), budget=100).text
    assert text.count("camel2under - ") == 1 and "[doctest]" not in text


def test_an_unexpected_exception_keeps_the_example_and_the_exception() -> None:
    result = compact_log(read_log("pytest_doctest.log"), budget=120)
    assert result.failing == ["mod.py::mod.f", "mod.py::mod.g"]
    assert "mod.py::mod.f - DocTestFailure: f(1): expected 2, got 1" in result.text
    assert "g() raised ValueError('boom')" in result.text


def test_python_m_doctest_reports_every_failed_example() -> None:
    result = compact_log(read_log("doctest_plain.log"), budget=260)
    assert result.format == "doctest"
    assert len(result.failing) == 6
    assert "***Test Failed*** 6 failures." in result.text
    assert "f(1): expected 2, got 1" in result.text
    assert "f(0): expected nothing, got 0" in result.text
    assert "raised ValueError: boom" in result.text


@pytest.mark.parametrize(
    "name",
    ["pytest_long_names.log", "pytest_long_names_short.log", "pytest_long_names_only.log"],
)
def test_a_failure_with_a_long_id_is_one_failure_with_its_own_message(name: str) -> None:
    """pytest centres long ids between single underscores; the block must still be found."""
    result = compact_log(read_log(name), budget=300)
    text = result.text
    assert "unnamed failure" not in text
    assert (
        len(result.failing)
        == len(set(result.failing))
        == text.count("\nFAILED ") + (text.startswith("FAILED "))
    )
    first = "test_a_run_with_an_empty_task_is_refused_before_anything_is_created_in_the_repo - "
    second = "test_an_empty_task_is_refused_and_the_run_directory_is_never_written_at_all - "
    assert f"{first}test_long_names.UsageError: the task is empty; pass --task TEXT" in text
    line = next(x for x in text.splitlines() if second in x)
    assert f"{second}test_long_names.UsageError: the task is empty" in line
    assert "pass --task" not in line  # its own message, not the other failure's


def test_colour_codes_and_redraws_never_reach_the_text() -> None:
    coloured = (
        "\x1b[1m============ test session starts ============\x1b[0m\n"
        + "tests/test_a.py \x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\n" * 40
        + "downloading 10%\r downloading 100%\n"
        + "\x1b[31mFAILED\x1b[0m tests/test_a.py::test_x - assert 1 == 2\n"
        + "\x1b[31m==== 1 failed, 80 passed in 0.1s ====\x1b[0m\n"
    )
    assert strip_terminal("\x1b[32m.\x1b[0m\a\b") == "."
    result = compact_log(coloured, budget=2000)
    assert "\x1b" not in result.text and "\r" not in result.text
    assert " downloading 100%" in result.text and "downloading 10%" not in result.text
    assert "FAILED tests/test_a.py::test_x - assert 1 == 2" in result.text
    assert estimate_tokens(result.text) < estimate_tokens(coloured) / 3
