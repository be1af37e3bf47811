"""The spec every log format parser passes, on every captured log, at every budget.

Never raises, never exceeds the budget (exactly, by the stated estimator), never comes back
empty for a non-empty log, keeps the counts line, and keeps every failing id once the budget
has room for them.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logdata import all_logs, read_log

from summarizers.logformats.prep import prepare
from summarizers.logformats.registry import FORMATS, detect
from summarizers.logs import compact_log
from summarizers.tokens import estimate_tokens

BUDGETS = [1, 2, 3, 5, 8, 13, 21, 40, 77, 150, 300, 600, 1200, 2000, 5000]
LOGS = all_logs()
FORMAT_NAMES = [f.name for f in FORMATS]


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("budget", BUDGETS)
def test_budget_is_never_exceeded_and_output_never_empty(name: str, budget: int) -> None:
    result = compact_log(read_log(name), budget=budget, exit_code=1)
    assert estimate_tokens(result.text) == result.tokens <= budget
    assert result.text.strip()


@pytest.mark.parametrize("name", LOGS)
def test_counts_line_is_kept(name: str) -> None:
    lines = prepare(read_log(name)).lines
    parsed = detect(lines).parse(lines)
    result = compact_log(read_log(name), budget=200)
    for count in parsed.counts:
        if count in "\n".join(lines):  # counted by the parser itself when the log has none
            assert count[:80] in result.text


@pytest.mark.parametrize("name", LOGS)
def test_failing_ids_are_kept_when_the_budget_allows(name: str) -> None:
    full = compact_log(read_log(name), budget=100_000)
    needed = estimate_tokens("\n".join(f"ERROR {i}" for i in full.failing)) + 200
    result = compact_log(read_log(name), budget=needed)
    if result.text == "\n".join(prepare(read_log(name)).lines):
        return  # the whole log fitted and came back as it was: every id in the tool's own notation
    for ident in result.failing:
        assert ident[:200] in result.text


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
@pytest.mark.parametrize("name", LOGS)
def test_every_parser_survives_every_log(fmt: str, name: str) -> None:
    """Forcing the wrong parser must degrade, not crash, and still respect the budget."""
    for budget in (1, 60, 700):
        result = compact_log(read_log(name), budget=budget, format=fmt)
        assert result.tokens <= budget
        assert result.text.strip()


def test_ids_come_before_any_context_when_the_budget_is_tight() -> None:
    result = compact_log(read_log("pytest_tb_long.log"), budget=260)
    assert all(ident in result.text for ident in result.failing)
    assert "\n--- " not in result.text or result.text.index("\n--- ") > result.text.index(
        result.failing[-1]
    )


def test_what_was_left_out_is_said() -> None:
    result = compact_log(read_log("pytest_tb_long.log"), budget=300)
    assert result.omitted
    assert "[left out: " in result.text


_FRAGMENTS = [line for name in LOGS for line in read_log(name).splitlines()]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picks=st.lists(st.integers(0, len(_FRAGMENTS) - 1), min_size=1, max_size=300),
    noise=st.text(max_size=50),
    budget=st.integers(1, 3000),
    exit_code=st.one_of(st.none(), st.integers(-9, 255)),
)
def test_shuffled_real_lines_never_break_the_promises(
    picks: list[int], noise: str, budget: int, exit_code: int | None
) -> None:
    text = "\n".join(_FRAGMENTS[i] for i in picks) + noise
    result = compact_log(text, budget=budget, exit_code=exit_code)
    assert estimate_tokens(result.text) <= budget
    if text.strip():
        assert result.text.strip()
